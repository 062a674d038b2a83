import { useState } from 'preact/hooks';
import { useConsole } from '../app-context.js';
import { useAction } from '../components.js';
import { ActionForm, Problems, TextField } from '../forms.js';
import { DataTable } from '../lists.js';
import { formatDate } from '../format.js';

export interface ApiBudgetEntry {
  key: string;
  endpoint: string | null;
  callsLastHour: number;
  cap: number;
  documentedCap: number | null;
  loweredUntil: string | null;
}

/** Calls of the last hour against each cap Vigia keeps for the tenant (families and per-tenant capped endpoints). */
export function ApiBudgetTable(props: { tenantName: string; budget: ApiBudgetEntry[] }) {
  const { t, lang } = useConsole();
  const num = new Intl.NumberFormat(lang);
  return (
    <DataTable
      list
      wrap
      testId="api-budget"
      caption={t('abTitle', { name: props.tenantName })}
      rows={props.budget}
      rowKey={(b) => b.key}
      rowAttrs={(b) => ({ 'data-budget': b.key })}
      columns={[
        { label: t('abKey'), rowHeader: true, cell: (b) => <code>{b.key}</code> },
        { label: t('abCalls'), cell: (b) => num.format(b.callsLastHour) },
        { label: t('abCap'), cell: (b) => num.format(b.cap) },
        { label: t('abDocumented'), cell: (b) => (b.documentedCap === null ? t('abOwn') : num.format(b.documentedCap)) },
        { label: t('abLowered'), cell: (b) => (b.loweredUntil ? formatDate(lang, b.loweredUntil) : '—') },
      ]}
    />
  );
}

/** The connection's share of the per-tenant caps (PATCH `capSharePercent`); the server checks the same rule again. */
export function CapShareForm(props: { path: string; tenantId: string; tenantName: string; share: number; onSaved: () => void }) {
  const { t, call } = useConsole();
  const [value, setValue] = useState(String(props.share));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useAction();
  const id = `cs-${props.tenantId}`;
  const submit = () => {
    const share = Number(value.trim());
    if (value.trim() === '' || !Number.isInteger(share) || share < 1 || share > 100) {
      setProblem(t('abShareWhole'));
      return;
    }
    setProblem(null);
    void save.run(async () => {
      await call('PATCH', props.path, { capSharePercent: share });
      props.onSaved();
      return t('abShareSaved', { name: props.tenantName });
    });
  };
  return (
    <ActionForm heading="h3" titleId={`${id}-title`} title={t('abShareTitle')} help={t('abShareHelp')} testId="cap-share" action={save} submitLabel={t('abShareSave')} submitClass="secondary" onSubmit={submit}>
      <TextField id={id} label={t('abShare')} inputMode="numeric" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
      <Problems problems={problem ? [problem] : []} />
    </ActionForm>
  );
}

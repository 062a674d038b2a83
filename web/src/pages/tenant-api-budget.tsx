import { useState } from 'preact/hooks';
import { useConsole } from '../app-context.js';
import { ErrorMessage, Field, Notice, useAction } from '../components.js';
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
    <div class="table-wrap">
      <table class="list" data-testid="api-budget">
        <caption>{t('abTitle', { name: props.tenantName })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('abKey')}</th>
            <th scope="col">{t('abCalls')}</th>
            <th scope="col">{t('abCap')}</th>
            <th scope="col">{t('abDocumented')}</th>
            <th scope="col">{t('abLowered')}</th>
          </tr>
        </thead>
        <tbody>
          {props.budget.map((b) => (
            <tr key={b.key} data-budget={b.key}>
              <th scope="row">
                <code>{b.key}</code>
              </th>
              <td>{num.format(b.callsLastHour)}</td>
              <td>{num.format(b.cap)}</td>
              <td>{b.documentedCap === null ? t('abOwn') : num.format(b.documentedCap)}</td>
              <td>{b.loweredUntil ? formatDate(lang, b.loweredUntil) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The connection's share of the per-tenant caps (PATCH `capSharePercent`); the server checks the same rule again. */
export function CapShareForm(props: { path: string; tenantId: string; tenantName: string; share: number; onSaved: () => void }) {
  const { t, call } = useConsole();
  const [value, setValue] = useState(String(props.share));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useAction();
  const id = `cs-${props.tenantId}`;
  const submit = (e: Event) => {
    e.preventDefault();
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
    <form noValidate onSubmit={submit} aria-labelledby={`${id}-title`} data-testid="cap-share">
      <h3 id={`${id}-title`}>{t('abShareTitle')}</h3>
      <p class="muted">{t('abShareHelp')}</p>
      <Field id={id} label={t('abShare')}>
        <input id={id} inputMode="numeric" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
      </Field>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {save.notice && <Notice>{save.notice}</Notice>}
      <ErrorMessage error={save.error} />
      <button type="submit" class="secondary" disabled={save.busy}>
        {t('abShareSave')}
      </button>
    </form>
  );
}

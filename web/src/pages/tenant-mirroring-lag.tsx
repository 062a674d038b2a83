import { useState } from 'preact/hooks';
import { useConsole } from '../app-context.js';
import { useAction } from '../components.js';
import { ActionForm, Problems, TextField, useFormValues } from '../forms.js';

export interface MirroringLag {
  infoSeconds: number;
  errorSeconds: number;
}

/**
 * The tenant's replication lag thresholds (PATCH `mirroringLag`). The form keeps what the person
 * types while the page re-reads the tenant list; the server checks the same rules again.
 */
export function MirroringLagForm(props: { path: string; tenantId: string; tenantName: string; lag: MirroringLag; onSaved: () => void }) {
  const { t, call } = useConsole();
  const form = useFormValues({ info: String(props.lag.infoSeconds), error: String(props.lag.errorSeconds) });
  const f = form.values;
  const [problems, setProblems] = useState<string[]>([]);
  const save = useAction();
  const id = (k: string) => `ml-${k}-${props.tenantId}`;
  const submit = () => {
    const info = Number(f.info.trim());
    const error = Number(f.error.trim());
    const found: string[] = [];
    if (!Number.isInteger(info) || info < 1 || f.info.trim() === '') found.push(t('mlWhole', { field: t('mlInfo') }));
    if (!Number.isInteger(error) || error < 1 || f.error.trim() === '') found.push(t('mlWhole', { field: t('mlError') }));
    if (found.length === 0 && info >= error) found.push(t('mlOrder'));
    setProblems(found);
    if (found.length) return;
    void save.run(async () => {
      await call('PATCH', props.path, { mirroringLag: { infoSeconds: info, errorSeconds: error } });
      props.onSaved();
      return t('mlSaved', { name: props.tenantName });
    });
  };
  return (
    <ActionForm heading="h3" titleId={id('title')} title={t('mlTitle')} help={t('mlHelp')} testId="mirroring-lag" action={save} submitLabel={t('mlSave')} submitClass="secondary" onSubmit={submit}>
      <div class="grid">
        <TextField id={id('info')} label={t('mlInfo')} inputMode="numeric" value={f.info} onInput={form.onInput('info')} />
        <TextField id={id('error')} label={t('mlError')} inputMode="numeric" value={f.error} onInput={form.onInput('error')} />
      </div>
      <Problems problems={problems} />
    </ActionForm>
  );
}

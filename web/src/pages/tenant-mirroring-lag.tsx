import { useState } from 'preact/hooks';
import { useConsole } from '../app-context.js';
import { ErrorMessage, Field, Notice, useAction } from '../components.js';

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
  const [f, setF] = useState({ info: String(props.lag.infoSeconds), error: String(props.lag.errorSeconds) });
  const [problems, setProblems] = useState<string[]>([]);
  const save = useAction();
  const id = (k: string) => `ml-${k}-${props.tenantId}`;
  const submit = (e: Event) => {
    e.preventDefault();
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
    <form noValidate onSubmit={submit} aria-labelledby={id('title')} data-testid="mirroring-lag">
      <h3 id={id('title')}>{t('mlTitle')}</h3>
      <p class="muted">{t('mlHelp')}</p>
      <div class="grid">
        <Field id={id('info')} label={t('mlInfo')}>
          <input id={id('info')} inputMode="numeric" value={f.info} onInput={(e) => {
            const value = (e.target as HTMLInputElement).value;
            setF((prev) => ({ ...prev, info: value }));
          }} />
        </Field>
        <Field id={id('error')} label={t('mlError')}>
          <input id={id('error')} inputMode="numeric" value={f.error} onInput={(e) => {
            const value = (e.target as HTMLInputElement).value;
            setF((prev) => ({ ...prev, error: value }));
          }} />
        </Field>
      </div>
      {problems.length > 0 && (
        <ul class="error" role="alert">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {save.notice && <Notice>{save.notice}</Notice>}
      <ErrorMessage error={save.error} />
      <button type="submit" class="secondary" disabled={save.busy}>
        {t('mlSave')}
      </button>
    </form>
  );
}

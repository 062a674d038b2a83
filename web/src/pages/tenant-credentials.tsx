/**
 * "Atualizar credenciais": a new client secret for a connection, saved through the admin API's
 * PATCH …/tenants/{id} (the one path that replaces credentials), then checked at once — the
 * check's result shows on the card. The secret is saved even when the check fails, and the notice
 * says so. The field is cleared once saved; the secret is never shown again.
 */
import { useState } from 'preact/hooks';
import type { TenantCheck } from '../api.js';
import { useConsole } from '../app-context.js';
import { ErrorMessage, Field, Notice, useAction } from '../components.js';

export function CredentialsForm(props: { path: string; tenantId: string; name: string; onChecked: (check: TenantCheck) => void }) {
  const { t, call } = useConsole();
  const [open, setOpen] = useState(false);
  const [secret, setSecret] = useState('');
  const save = useAction();
  const fieldId = `credentials-${props.tenantId}`;
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        {t('tnUpdateCredentials')}
      </button>
    );
  }
  return (
    <form
      aria-label={t('tnUpdateCredentialsOf', { name: props.name })}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run(async () => {
          await call('PATCH', props.path, { credentials: { clientSecret: secret } });
          setSecret('');
          const check = await call<TenantCheck>('POST', `${props.path}/check`);
          props.onChecked(check);
          return check.ok ? t('tnCredentialsSavedOk') : t('tnCredentialsSavedProblems');
        });
      }}
    >
      <Field id={fieldId} label={t('tnNewClientSecret')}>
        <input id={fieldId} type="password" autocomplete="off" required value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />
      </Field>
      <button type="submit" disabled={save.busy || !secret}>
        {t('tnSaveCredentials')}
      </button>
      {save.notice && <Notice>{save.notice}</Notice>}
      <ErrorMessage error={save.error} />
    </form>
  );
}

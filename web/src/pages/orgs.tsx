import { useState } from 'preact/hooks';
import type { Org } from '../api.js';
import { useConsole } from '../app-context.js';
import { Empty, ErrorMessage, Field, useAction, useLoad, usePageTitle } from '../components.js';
import { navigate } from '../router.js';

/** Choose the organization to work on, or create one. */
export function OrgsPage() {
  const { t, call, orgId, chooseOrg } = useConsole();
  usePageTitle(t('orgsTitle'));
  const orgs = useLoad((signal) => call<Org[]>('GET', '/orgs', undefined, signal), []);
  const [name, setName] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const create = useAction();

  const open = (id: string) => {
    chooseOrg(id);
    // The overview is an organization's home (docs/console.md).
    navigate('/overview');
  };

  return (
    <section>
      <h1>{t('orgsTitle')}</h1>
      {orgs.loading && !orgs.data && <p>{t('loading')}</p>}
      <ErrorMessage error={orgs.error} onRetry={orgs.reload} />
      {orgs.data && orgs.data.length === 0 && <Empty>{t('orgsEmpty')}</Empty>}
      {orgs.data && orgs.data.length > 0 && (
        <ul class="cards" aria-label={t('chooseOrg')}>
          {orgs.data.map((o) => (
            <li key={o.id} class="card row">
              <span>
                <strong>{o.name}</strong> {o.suspended && <span class="badge warn">{t('suspended')}</span>}
                {o.id === orgId && <span class="badge">{t('currentOrg')}</span>}
              </span>
              <button type="button" aria-label={`${t('openOrg')}: ${o.name}`} onClick={() => open(o.id)}>
                {t('openOrg')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        class="card"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const trimmed = name.trim();
          if (trimmed.length < 1 || trimmed.length > 200) return setInvalid(t('orgNameRequired'));
          setInvalid(null);
          void create.run(async () => {
            const org = await call<Org>('POST', '/orgs', { name: trimmed });
            setName('');
            open(org.id);
          });
        }}
      >
        <h2>{t('createOrg')}</h2>
        <Field id="org-name" label={t('orgName')} error={invalid}>
          <input id="org-name" value={name} maxLength={200} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <ErrorMessage error={create.error} />
        <button type="submit" disabled={create.busy}>
          {t('create')}
        </button>
      </form>
    </section>
  );
}

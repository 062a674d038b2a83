import { useState } from 'preact/hooks';
import type { Org } from '../api.js';
import { useConsole } from '../app-context.js';
import { useAction } from '../components.js';
import { ActionForm, TextField } from '../forms.js';
import { ListPage, useGet } from '../lists.js';
import { navigate } from '../router.js';

/** Choose the organization to work on, or create one. */
export function OrgsPage() {
  const { t, orgId, chooseOrg } = useConsole();
  const orgs = useGet<Org[]>('/orgs');
  const open = (id: string) => {
    chooseOrg(id);
    // The overview is an organization's home (docs/console.md).
    navigate('/overview');
  };
  return (
    <ListPage title={t('orgsTitle')} list={orgs} empty={t('orgsEmpty')} after={<NewOrgForm onCreated={open} />}>
      {(list) => (
        <ul class="cards" aria-label={t('chooseOrg')}>
          {list.map((o) => (
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
    </ListPage>
  );
}

/** A new organization: its name, 1 to 200 characters; created, it is opened. */
function NewOrgForm(props: { onCreated: (id: string) => void }) {
  const { t, call } = useConsole();
  const [name, setName] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const create = useAction();
  const submit = () => {
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > 200) return setInvalid(t('orgNameRequired'));
    setInvalid(null);
    void create.run(async () => {
      const org = await call<Org>('POST', '/orgs', { name: trimmed });
      setName('');
      props.onCreated(org.id);
    });
  };
  return (
    <ActionForm class="card" titleId="create-org" title={t('createOrg')} action={create} submitLabel={t('create')} onSubmit={submit}>
      <TextField id="org-name" label={t('orgName')} error={invalid} value={name} maxLength={200} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
    </ActionForm>
  );
}

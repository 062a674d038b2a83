import { useState } from 'preact/hooks';
import { SCOPES, type ApiKey, type CreatedApiKey } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { invalidProps, ShownOnce, useAction, useFieldErrors } from '../components.js';
import { ActionForm, TextField } from '../forms.js';
import { ListPage, RemovableTable, useGet } from '../lists.js';
import { DateField, readDateField } from '../date-field.js';
import { formatDate } from '../format.js';

export function ApiKeysPage(props: { orgId: string }) {
  const { t } = useConsole();
  const path = orgPath(props.orgId, '/api-keys');
  const list = useGet<ApiKey[]>(path);
  const [shown, setShown] = useState<string | null>(null);
  return (
    <ListPage
      title={t('apiKeysTitle')}
      list={list}
      empty={t('apiKeysEmpty')}
      before={shown && <ShownOnce title={t('keyTitle')} warning={t('keyOnce')} value={shown} onDone={() => setShown(null)} />}
      after={
        <NewApiKeyForm
          path={path}
          onCreated={(key) => {
            setShown(key);
            list.reload();
          }}
        />
      }
    >
      {(keys) => <ApiKeysTable path={path} keys={keys} onChange={list.reload} />}
    </ListPage>
  );
}

/** The organization's keys, each revocable after a confirmation. */
function ApiKeysTable(props: { path: string; keys: ApiKey[]; onChange: () => void }) {
  const { t, lang } = useConsole();
  const stateOf = (k: ApiKey) =>
    k.revokedAt ? `${t('revoked')} ${formatDate(lang, k.revokedAt)}` : k.expiresAt && new Date(k.expiresAt) <= new Date() ? t('expired') : t('active');
  return (
    <RemovableTable
      path={props.path}
      onChange={props.onChange}
      caption={t('apiKeysTitle')}
      rows={props.keys}
      rowKey={(k) => k.id}
      rowAttrs={(k) => ({ 'data-key-prefix': k.prefix })}
      columns={[
        { label: t('name'), cell: (k) => k.name },
        { label: t('prefix'), cell: (k) => <code>{k.prefix}</code> },
        { label: t('scopes'), cell: (k) => k.scopes.join(', ') },
        { label: t('lastUsed'), cell: (k) => formatDate(lang, k.lastUsedAt, t('never')) },
        { label: t('expires'), cell: (k) => formatDate(lang, k.expiresAt, t('never')) },
        { label: t('state'), cell: stateOf },
      ]}
      removal={{ label: t('revoke'), danger: true, question: (k) => t('revokeConfirm', { name: k.name }), name: (k) => k.name, id: (k) => k.id, offered: (k) => !k.revokedAt }}
    />
  );
}

/** The form of a new key: name, optional expiry day, scopes; the key is handed up to be shown once. */
function NewApiKeyForm(props: { path: string; onCreated: (key: string) => void }) {
  const { t, call, lang } = useConsole();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['ReadAlerts']);
  const [expires, setExpires] = useState('');
  const fields = useFieldErrors<'name' | 'expires' | 'scopes'>((f) => `key-${f}`);
  const create = useAction();

  const submit = () => {
    const found: { name?: string; expires?: string; scopes?: string } = {};
    if (!name.trim()) found.name = t('fieldRequired', { field: t('name') });
    // The expiry is a day: the key works until the end of it in the viewer's time zone.
    const expiry = readDateField(t, lang, t('expiresAt'), expires, { withTime: false, endOfDay: true });
    const expiresAt = expiry.iso ? new Date(expiry.iso) : null;
    if (expiry.error) found.expires = expiry.error;
    else if (expiresAt && expiresAt <= new Date()) found.expires = t('expiryPast');
    if (scopes.length === 0) found.scopes = t('scopesRequired');
    if (!fields.check(found)) return;
    void create.run(async () => {
      const key = await call<CreatedApiKey>('POST', props.path, {
        name: name.trim(),
        scopes,
        ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
      });
      setName('');
      setExpires('');
      props.onCreated(key.key);
    });
  };

  return (
    <ActionForm class="card" titleId="new-key" title={t('newApiKey')} action={create} submitLabel={t('create')} onSubmit={submit}>
      <div class="grid">
        <TextField id="key-name" label={t('name')} error={fields.errors.name} value={name} maxLength={200} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <DateField id="key-expires" label={t('expiresAt')} withTime={false} value={expires} onValue={setExpires} error={fields.errors.expires} />
      </div>
      <ScopeBoxes scopes={scopes} onChange={setScopes} error={fields.errors.scopes} />
    </ActionForm>
  );
}

/** The scopes of a new key, one checkbox each; the first box carries the group's refusal (and takes focus with it). */
function ScopeBoxes(props: { scopes: string[]; onChange: (update: (cur: string[]) => string[]) => void; error: string | undefined }) {
  const { t } = useConsole();
  return (
    <fieldset>
      <legend>{t('scopes')}</legend>
      {SCOPES.map((s, i) => (
        <label key={s} class="check">
          <input
            id={i === 0 ? 'key-scopes' : undefined}
            {...invalidProps('key-scopes', props.error)}
            type="checkbox"
            checked={props.scopes.includes(s)}
            onChange={(e) => props.onChange((cur) => ((e.target as HTMLInputElement).checked ? [...cur, s] : cur.filter((x) => x !== s)))}
          />
          {s}
        </label>
      ))}
      {props.error && (
        <small id="key-scopes-error" class="field-error" role="alert">
          {props.error}
        </small>
      )}
    </fieldset>
  );
}

import { useState } from 'preact/hooks';
import { SCOPES, type ApiKey, type CreatedApiKey } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { ConfirmAction, Empty, ErrorMessage, Field, invalidProps, ShownOnce, useAction, useFieldErrors, useLoad, usePageTitle, useRemoval } from '../components.js';
import { DateField, readDateField } from '../date-field.js';
import { formatDate } from '../format.js';

export function ApiKeysPage(props: { orgId: string }) {
  const { t, call } = useConsole();
  usePageTitle(t('apiKeysTitle'));
  const path = orgPath(props.orgId, '/api-keys');
  const list = useLoad((signal) => call<ApiKey[]>('GET', path, undefined, signal), [path]);
  const [shown, setShown] = useState<string | null>(null);

  return (
    <section>
      <h1>{t('apiKeysTitle')}</h1>
      {shown && <ShownOnce title={t('keyTitle')} warning={t('keyOnce')} value={shown} onDone={() => setShown(null)} />}
      {list.loading && !list.data && <p>{t('loading')}</p>}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && list.data.length === 0 && <Empty>{t('apiKeysEmpty')}</Empty>}
      {list.data && list.data.length > 0 && <ApiKeysTable path={path} keys={list.data} onChange={list.reload} />}
      <NewApiKeyForm
        path={path}
        onCreated={(key) => {
          setShown(key);
          list.reload();
        }}
      />
    </section>
  );
}

/** The organization's keys, each revocable after a confirmation. */
function ApiKeysTable(props: { path: string; keys: ApiKey[]; onChange: () => void }) {
  const { t, lang } = useConsole();
  const revoke = useRemoval(props.path, props.onChange);
  const stateOf = (k: ApiKey) =>
    k.revokedAt ? `${t('revoked')} ${formatDate(lang, k.revokedAt)}` : k.expiresAt && new Date(k.expiresAt) <= new Date() ? t('expired') : t('active');
  return (
    <>
      <ErrorMessage error={revoke.error} />
      <table class="list">
        <caption class="sr-only">{t('apiKeysTitle')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('name')}</th>
            <th scope="col">{t('prefix')}</th>
            <th scope="col">{t('scopes')}</th>
            <th scope="col">{t('lastUsed')}</th>
            <th scope="col">{t('expires')}</th>
            <th scope="col">{t('state')}</th>
            <th scope="col">
              <span class="sr-only">{t('revoke')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.keys.map((k) => (
            <tr key={k.id} data-key-prefix={k.prefix}>
              <td data-label={t('name')}>{k.name}</td>
              <td data-label={t('prefix')}>
                <code>{k.prefix}</code>
              </td>
              <td data-label={t('scopes')}>{k.scopes.join(', ')}</td>
              <td data-label={t('lastUsed')}>{formatDate(lang, k.lastUsedAt, t('never'))}</td>
              <td data-label={t('expires')}>{formatDate(lang, k.expiresAt, t('never'))}</td>
              <td data-label={t('state')}>{stateOf(k)}</td>
              <td>
                {!k.revokedAt && (
                  <ConfirmAction
                    danger
                    label={t('revoke')}
                    accessibleLabel={`${t('revoke')}: ${k.name}`}
                    question={t('revokeConfirm', { name: k.name })}
                    onConfirm={() => revoke.remove(k.id)}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
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

  const submit = (e: Event) => {
    e.preventDefault();
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
    <form class="card" noValidate onSubmit={submit} aria-labelledby="new-key">
      <h2 id="new-key">{t('newApiKey')}</h2>
      <div class="grid">
        <Field id="key-name" label={t('name')} error={fields.errors.name}>
          <input id="key-name" value={name} maxLength={200} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <DateField id="key-expires" label={t('expiresAt')} withTime={false} value={expires} onValue={setExpires} error={fields.errors.expires} />
      </div>
      <fieldset>
        <legend>{t('scopes')}</legend>
        {SCOPES.map((s, i) => (
          <label key={s} class="check">
            <input
              // The first box carries the group's refusal (and takes focus with it).
              id={i === 0 ? 'key-scopes' : undefined}
              {...invalidProps('key-scopes', fields.errors.scopes)}
              type="checkbox"
              checked={scopes.includes(s)}
              onChange={(e) => setScopes((cur) => ((e.target as HTMLInputElement).checked ? [...cur, s] : cur.filter((x) => x !== s)))}
            />
            {s}
          </label>
        ))}
        {fields.errors.scopes && (
          <small id="key-scopes-error" class="field-error" role="alert">
            {fields.errors.scopes}
          </small>
        )}
      </fieldset>
      <ErrorMessage error={create.error} />
      <button type="submit" disabled={create.busy}>
        {t('create')}
      </button>
    </form>
  );
}

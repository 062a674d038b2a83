import { useState } from 'preact/hooks';
import { ADMIN_BASE, adminClient, type Me, type SessionOptions } from '../api.js';
import { useConsole } from '../app-context.js';
import { ErrorMessage, Field, useLoad } from '../components.js';
import type { TextKey } from '../i18n.js';
import { useLocation } from '../router.js';

/** The sign-in page: the company account (when OpenID Connect is set up) or the admin token, sent once to open a session. */
export function SignIn(props: { onSignedIn: (me: Me) => void }) {
  const { t } = useConsole();
  const [value, setValue] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setMessage(null);
    const token = value.trim();
    if (!token) return setMessage(t('tokenRequired'));
    setBusy(true);
    try {
      // The token is sent once, to open a session; the page keeps nothing of it.
      const me = await adminClient(null, () => undefined)<Me>('POST', '/session', { adminToken: token });
      setValue('');
      props.onSignedIn(me);
    } catch (err) {
      if ((err as { status?: number }).status === 401) setMessage(t('signInRefused'));
      else setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card narrow">
      <h1>{t('signInTitle')}</h1>
      <p>{t('signInHelp')}</p>
      <SsoLink />
      <SsoError />
      <form onSubmit={submit} noValidate>
        <Field id="admin-token" label={t('adminToken')}>
          <input id="admin-token" type="password" autoComplete="off" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
        </Field>
        {message && (
          <p class="error" role="alert">
            {message}
          </p>
        )}
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          {t('signIn')}
        </button>
      </form>
    </section>
  );
}

const SSO_ERRORS: Record<string, TextKey> = {
  invalid_request: 'ssoErrInvalidRequest',
  unauthorized: 'ssoErrUnauthorized',
  forbidden: 'ssoErrForbidden',
  rate_limited: 'ssoErrRateLimited',
  unavailable: 'ssoErrUnavailable',
  not_found: 'ssoErrNotFound',
};

/**
 * Why a company sign-in was refused: the server sends the browser back here with its error code
 * (`/?signInError=…`); the reason is said in the interface language, the code kept beside it.
 */
function SsoError() {
  const { t } = useConsole();
  const { query } = useLocation();
  const code = query.get('signInError');
  if (!code) return null;
  const shown = /^[a-z_]{1,40}$/.test(code) ? code : 'unknown';
  return (
    <p class="error" role="alert" data-testid="sso-error">
      {t(SSO_ERRORS[shown] ?? 'ssoErrOther')} <span class="muted">({t('ssoErrCode')}: <code>{shown}</code>)</span>
    </p>
  );
}

/** "Sign in with your organization's account" when the server has OpenID Connect configured. */
function SsoLink() {
  const { t } = useConsole();
  const { data } = useLoad(() => adminClient(null, () => undefined)<SessionOptions>('GET', '/session/options'), []);
  if (!data?.oidc) return null;
  return (
    <p>
      <a class="button" href={`${ADMIN_BASE}/session/oidc/login`}>
        {t('signInSso')}
      </a>
    </p>
  );
}

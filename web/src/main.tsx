import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import './style.css';
import { ADMIN_BASE, adminClient, type Me, type Org, type SessionOptions } from './api.js';
import { ConsoleContext, holds, useConsole, type Console } from './app-context.js';
import { ErrorMessage, Field, useLoad } from './components.js';
import { loadLang, saveLang, translator, type Lang, type TextKey } from './i18n.js';
import { Link, useLocation } from './router.js';
import { session } from './session.js';
import { matchConsoleRoute } from '../../src/console/routes.js';
import { OrgsPage } from './pages/orgs.js';
import { DestinationsPage } from './pages/destinations.js';
import { DestinationPage } from './pages/destination.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { AlertsPage } from './pages/alerts.js';
import { AlertPage } from './pages/alert.js';
import { SilencesPage } from './pages/silences.js';
import { AuditPage, MembersPage, TokensPage } from './pages/people.js';
import { OverviewPage } from './pages/overview.js';
import { CapacitiesPage, WorkspacesPage } from './pages/inventory.js';
import { GatewaysPage, SemanticModelsPage } from './pages/monitored-inventory.js';
import { TenantsPage } from './pages/tenants.js';
import { useFocusOnNavigation } from './focus.js';
import { MainNav } from './nav.js';

function App() {
  const [lang, setLang] = useState<Lang>(loadLang());
  // undefined: still asking the server whether this browser has a session.
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [orgId, setOrgId] = useState<string | null>(session.orgId());
  const { path } = useLocation();
  const t = useMemo(() => translator(lang), [lang]);
  useFocusOnNavigation(path);

  useEffect(() => {
    document.documentElement.lang = lang;
    saveLang(lang);
  }, [lang]);

  const signedOut = () => {
    session.setOrgId(null);
    setMe(null);
    setOrgId(null);
  };
  useEffect(() => {
    adminClient(null, () => undefined)<Me>('GET', '/session').then(setMe, () => setMe(null));
  }, []);
  const call = useMemo(() => adminClient(me?.csrfToken ?? null, signedOut), [me]);
  const signOut = () => {
    // Ends the session on the server; the page forgets it either way.
    call('DELETE', '/session').catch(() => undefined).finally(signedOut);
  };
  const ctx: Console = {
    lang,
    t,
    call,
    orgId,
    chooseOrg: (id) => {
      session.setOrgId(id);
      setOrgId(id);
    },
    can: (role) => holds(me ?? null, orgId, role),
  };

  const langSwitch = (
    <div class="lang">
      <label for="lang-select">{t('language')}</label>
      <select id="lang-select" value={lang} onChange={(e) => setLang((e.target as HTMLSelectElement).value as Lang)}>
        <option value="pt-BR">Português (Brasil)</option>
        <option value="en">English</option>
      </select>
    </div>
  );

  if (me === undefined) return null;
  if (!me) {
    return (
      <ConsoleContext.Provider value={ctx}>
        <header class="top">
          <span class="brand">{t('appName')}</span>
          {langSwitch}
        </header>
        <main id="main">
          <SignIn
            onSignedIn={(value) => {
              setMe(value);
            }}
          />
        </main>
      </ConsoleContext.Provider>
    );
  }

  return (
    <ConsoleContext.Provider value={ctx}>
      <a class="skip" href="#main">
        {t('skipToContent')}
      </a>
      <header class="top">
        <Link href="/" class="brand">
          {t('appName')}
        </Link>
        <OrgName />
        <MainNav
          path={path}
          // Personal tokens belong to people; the audit log to owners.
          show={(href) => (href === '/tokens' ? me.kind === 'person' : href === '/audit' ? ctx.can('owner') : true)}
        />
        {langSwitch}
        <button type="button" class="secondary" onClick={signOut}>
          {t('signOut')}
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Routes path={path} />
      </main>
    </ConsoleContext.Provider>
  );
}

function OrgName() {
  const { call, orgId, t } = useConsole();
  const { data } = useLoad(() => (orgId ? call<Org>('GET', `/orgs/${encodeURIComponent(orgId)}`) : Promise.resolve(null)), [orgId]);
  if (!data) return null;
  return (
    <span class="org-name">
      <span class="sr-only">{t('currentOrg')}: </span>
      {data.name}
    </span>
  );
}

function Routes(props: { path: string }) {
  const { orgId, t } = useConsole();
  const match = matchConsoleRoute(props.path);
  // The alert page finds the alert's organization itself: its link arrives from a delivery.
  if (match?.route === '/alerts/:alertId') return <AlertPage alertId={match.params.alertId!} />;
  if (!orgId || match?.route === '/orgs') return <OrgsPage />;
  switch (match?.route) {
    case '/':
    case '/overview':
      return <OverviewPage orgId={orgId} />;
    case '/capacities':
      return <CapacitiesPage orgId={orgId} />;
    case '/workspaces':
      return <WorkspacesPage orgId={orgId} />;
    case '/gateways':
      return <GatewaysPage orgId={orgId} />;
    case '/semantic-models':
      return <SemanticModelsPage orgId={orgId} />;
    case '/tenants':
      return <TenantsPage orgId={orgId} />;
    case '/destinations':
      return <DestinationsPage orgId={orgId} />;
    case '/destinations/:destinationId':
      return <DestinationPage orgId={orgId} destinationId={match.params.destinationId!} />;
    case '/alerts':
      return <AlertsPage orgId={orgId} />;
    case '/silences':
      return <SilencesPage orgId={orgId} />;
    case '/api-keys':
      return <ApiKeysPage orgId={orgId} />;
    case '/members':
      return <MembersPage orgId={orgId} />;
    case '/tokens':
      return <TokensPage orgId={orgId} />;
    case '/audit':
      return <AuditPage orgId={orgId} />;
    default:
      return <p class="empty">{t('notFoundPage')}</p>;
  }
}

function SignIn(props: { onSignedIn: (me: Me) => void }) {
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

render(<App />, document.getElementById('app')!);

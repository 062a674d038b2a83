import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import './style.css';
import { adminClient, type Org } from './api.js';
import { ConsoleContext, useConsole, type Console } from './app-context.js';
import { ErrorMessage, Field, useLoad } from './components.js';
import { loadLang, saveLang, translator, type Lang } from './i18n.js';
import { Link, navigate, useLocation } from './router.js';
import { session } from './session.js';
import { OrgsPage } from './pages/orgs.js';
import { DestinationsPage } from './pages/destinations.js';
import { DestinationPage } from './pages/destination.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { AlertsPage } from './pages/alerts.js';
import { AlertPage } from './pages/alert.js';
import { SilencesPage } from './pages/silences.js';

function App() {
  const [lang, setLang] = useState<Lang>(loadLang());
  const [token, setToken] = useState<string | null>(session.token());
  const [orgId, setOrgId] = useState<string | null>(session.orgId());
  const { path } = useLocation();
  const t = useMemo(() => translator(lang), [lang]);

  useEffect(() => {
    document.documentElement.lang = lang;
    saveLang(lang);
  }, [lang]);

  const signOut = () => {
    session.setToken(null);
    session.setOrgId(null);
    setToken(null);
    setOrgId(null);
  };
  const call = useMemo(() => adminClient(token ?? '', signOut), [token]);
  const ctx: Console = {
    lang,
    t,
    call,
    orgId,
    chooseOrg: (id) => {
      session.setOrgId(id);
      setOrgId(id);
    },
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

  if (!token) {
    return (
      <ConsoleContext.Provider value={ctx}>
        <header class="top">
          <span class="brand">{t('appName')}</span>
          {langSwitch}
        </header>
        <main id="main">
          <SignIn
            onSignedIn={(value) => {
              session.setToken(value);
              setToken(value);
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
        <nav aria-label={t('mainNav')}>
          <ul>
            {(
              [
                ['/destinations', 'navDestinations'],
                ['/alerts', 'navAlerts'],
                ['/silences', 'navSilences'],
                ['/api-keys', 'navApiKeys'],
                ['/orgs', 'navOrgs'],
              ] as const
            ).map(([href, key]) => (
              <li key={href}>
                <Link href={href} aria-current={path.startsWith(href) ? 'page' : undefined}>
                  {t(key)}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
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
    <span class="org-name" aria-label={t('currentOrg')}>
      {data.name}
    </span>
  );
}

function Routes(props: { path: string }) {
  const { orgId, t } = useConsole();
  const alertMatch = /^\/alerts\/([^/]+)$/.exec(props.path);
  // The alert page finds the alert's organization itself: its link arrives from a delivery.
  if (alertMatch) return <AlertPage alertId={decodeURIComponent(alertMatch[1]!)} />;
  if (!orgId || props.path === '/orgs') return <OrgsPage />;
  const destMatch = /^\/destinations\/([^/]+)$/.exec(props.path);
  if (destMatch) return <DestinationPage orgId={orgId} destinationId={decodeURIComponent(destMatch[1]!)} />;
  switch (props.path) {
    case '/':
    case '/destinations':
      return <DestinationsPage orgId={orgId} />;
    case '/alerts':
      return <AlertsPage orgId={orgId} />;
    case '/silences':
      return <SilencesPage orgId={orgId} />;
    case '/api-keys':
      return <ApiKeysPage orgId={orgId} />;
    default:
      return <p class="empty">{t('notFoundPage')}</p>;
  }
}

function SignIn(props: { onSignedIn: (token: string) => void }) {
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
      // Any admin call proves the token; the list of organizations is the cheapest.
      await adminClient(token, () => undefined)('GET', '/orgs');
      props.onSignedIn(token);
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


render(<App />, document.getElementById('app')!);

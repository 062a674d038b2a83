import { render, type ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import './style.css';
import { adminClient, type Me, type Org } from './api.js';
import { ConsoleContext, holds, useConsole, type Console } from './app-context.js';
import { useLoad } from './components.js';
import { loadLang, saveLang, translator, type Lang } from './i18n.js';
import { Link, useLocation } from './router.js';
import { session } from './session.js';
import { useFocusOnNavigation } from './focus.js';
import { MainNav } from './nav.js';
import { navPathOf, Routes } from './routes.js';
import { SignIn } from './pages/sign-in.js';
import { followReturnTo, rememberReturnTo } from './return-to.js';

rememberReturnTo();

/** The interface language, kept in the browser and set on the document. */
function useLanguage(): [Lang, (lang: Lang) => void] {
  const [lang, setLang] = useState<Lang>(loadLang());
  useEffect(() => {
    document.documentElement.lang = lang;
    saveLang(lang);
  }, [lang]);
  return [lang, setLang];
}

/**
 * The browser's session with the server and the chosen organization. `me` is undefined while the
 * server is still asked whether this browser has a session, null when it has none.
 */
function useSession() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [orgId, setOrgId] = useState<string | null>(session.orgId());
  const signedOut = () => {
    session.setOrgId(null);
    setMe(null);
    setOrgId(null);
  };
  useEffect(() => {
    adminClient(null, () => undefined)<Me>('GET', '/session').then(setMe, () => setMe(null));
  }, []);
  const call = useMemo(() => adminClient(me?.csrfToken ?? null, signedOut), [me]);
  // Signed in and an acknowledge page asked to come back (return-to.ts): go there.
  useEffect(() => {
    if (me) followReturnTo();
  }, [me]);
  return {
    me,
    setMe,
    orgId,
    call,
    chooseOrg: (id: string) => {
      session.setOrgId(id);
      setOrgId(id);
    },
    // Ends the session on the server; the page forgets it either way.
    signOut: () => {
      call('DELETE', '/session').catch(() => undefined).finally(signedOut);
    },
  };
}

function App() {
  const [lang, setLang] = useLanguage();
  const s = useSession();
  const { path } = useLocation();
  const t = useMemo(() => translator(lang), [lang]);
  useFocusOnNavigation(path);
  const ctx: Console = { lang, t, call: s.call, orgId: s.orgId, chooseOrg: s.chooseOrg, can: (role) => holds(s.me ?? null, s.orgId, role) };
  const langSwitch = <LanguageSwitch lang={lang} onChange={setLang} />;
  if (s.me === undefined) return null;
  const me = s.me;
  return (
    <ConsoleContext.Provider value={ctx}>
      {me ? (
        <SignedIn me={me} path={path} langSwitch={langSwitch} onSignOut={s.signOut} />
      ) : (
        <>
          <header class="top">
            <span class="brand">{t('appName')}</span>
            {langSwitch}
          </header>
          <main id="main">
            <SignIn onSignedIn={s.setMe} />
          </main>
        </>
      )}
    </ConsoleContext.Provider>
  );
}

function LanguageSwitch(props: { lang: Lang; onChange: (lang: Lang) => void }) {
  const { t } = useConsole();
  return (
    <div class="lang">
      <label for="lang-select">{t('language')}</label>
      <select id="lang-select" value={props.lang} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value as Lang)}>
        <option value="pt-BR">Português (Brasil)</option>
        <option value="en">English</option>
      </select>
    </div>
  );
}

/** The signed-in console: the header (brand, organization, menu, language, sign out) and the page of the path. */
function SignedIn(props: { me: Me; path: string; langSwitch: ComponentChildren; onSignOut: () => void }) {
  const { t, can, orgId } = useConsole();
  return (
    <>
      <a class="skip" href="#main">
        {t('skipToContent')}
      </a>
      <header class="top">
        <Link href="/" class="brand">
          {t('appName')}
        </Link>
        <OrgName />
        <MainNav
          path={navPathOf(props.path, orgId)}
          // Personal tokens belong to people; the audit log to owners; organization settings to the instance admin.
          show={(href) => (href === '/tokens' ? props.me.kind === 'person' : href === '/audit' ? can('owner') : href === '/settings' ? props.me.kind !== 'person' : true)}
        />
        {props.langSwitch}
        <button type="button" class="secondary" onClick={props.onSignOut}>
          {t('signOut')}
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Routes path={props.path} />
      </main>
    </>
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

render(<App />, document.getElementById('app')!);

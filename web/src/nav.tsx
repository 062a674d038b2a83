import { useEffect, useRef, useState } from 'preact/hooks';
import type { TextKey } from './i18n.js';
import { useConsole } from './app-context.js';
import { Link } from './router.js';

type Item = readonly [href: string, key: TextKey];

/**
 * The console's pages in three groups, so the header holds one line at 1280 px (fourteen links
 * side by side wrapped onto three). Each group is a disclosure (<details>): its summary is a
 * button for keyboards and screen readers, and the group holding the current page says so.
 */
export const NAV_GROUPS: ReadonlyArray<{ key: TextKey; items: readonly Item[] }> = [
  {
    key: 'navGroupMonitor',
    items: [
      ['/overview', 'navOverview'],
      ['/capacities', 'navCapacities'],
      ['/workspaces', 'navWorkspaces'],
      ['/gateways', 'navGateways'],
      ['/semantic-models', 'navSemanticModels'],
      ['/tenants', 'navTenants'],
    ],
  },
  {
    key: 'navGroupDelivery',
    items: [
      ['/alerts', 'navAlerts'],
      ['/silences', 'navSilences'],
      ['/destinations', 'navDestinations'],
    ],
  },
  {
    key: 'navGroupAccess',
    items: [
      ['/api-keys', 'navApiKeys'],
      ['/members', 'navMembers'],
      ['/tokens', 'navTokens'],
      ['/audit', 'navAudit'],
      ['/settings', 'navSettings'],
      ['/orgs', 'navOrgs'],
    ],
  },
];

/**
 * The main navigation. On a phone it folds behind a "Menu" button (aria-expanded), and the
 * groups open stacked. Choosing a page, Escape, or a click elsewhere closes what is open.
 */
export function MainNav(props: { path: string; show: (href: string) => boolean }) {
  const { t } = useConsole();
  const [menuOpen, setMenuOpen] = useState(false);
  const nav = useRef<HTMLElement>(null);
  const closeAll = () => {
    for (const d of nav.current?.querySelectorAll('details[open]') ?? []) (d as HTMLDetailsElement).open = false;
  };
  useEffect(() => {
    closeAll();
    setMenuOpen(false);
  }, [props.path]);
  useEffect(() => {
    const outside = (e: Event) => {
      if (nav.current && !nav.current.contains(e.target as Node)) closeAll();
    };
    const onEscape = (e: KeyboardEvent) => {
      if (e.key === 'Escape') closeAll();
    };
    document.addEventListener('click', outside);
    document.addEventListener('keydown', onEscape);
    return () => {
      document.removeEventListener('click', outside);
      document.removeEventListener('keydown', onEscape);
    };
  }, []);
  const current = (href: string) => props.path === href || props.path.startsWith(`${href}/`);
  return (
    <>
      <button type="button" class="menu-button secondary" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
        {t('navMenu')}
      </button>
      <nav id="main-nav" aria-label={t('mainNav')} ref={nav} class={menuOpen ? 'open' : undefined}>
        <ul class="nav-groups">
          {NAV_GROUPS.map((g) => {
            const items = g.items.filter(([href]) => props.show(href));
            const here = items.find(([href]) => current(href));
            return (
              <li key={g.key}>
                <details
                  onToggle={(e) => {
                    // One group open at a time.
                    if (!(e.currentTarget as HTMLDetailsElement).open) return;
                    for (const d of nav.current?.querySelectorAll('details[open]') ?? []) if (d !== e.currentTarget) (d as HTMLDetailsElement).open = false;
                  }}
                >
                  <summary class={here ? 'current' : undefined}>
                    {t(g.key)}
                    {here && <span class="nav-here">: {t(here[1])}</span>}
                  </summary>
                  <ul>
                    {items.map(([href, key]) => (
                      <li key={href}>
                        <Link
                          href={href}
                          aria-current={current(href) ? 'page' : undefined}
                          // A chosen page closes the group (and the phone menu), also when it is the page already shown.
                          onClick={() => {
                            closeAll();
                            setMenuOpen(false);
                          }}
                        >
                          {t(key)}
                        </Link>
                      </li>
                    ))}
                  </ul>
                </details>
              </li>
            );
          })}
        </ul>
      </nav>
    </>
  );
}

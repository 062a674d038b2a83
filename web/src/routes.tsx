import type { JSX } from 'preact';
import { useConsole } from './app-context.js';
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
import { OrgSettingsPage } from './pages/org-settings.js';

/** The pages of an organization, by route. */
const ORG_PAGES: Record<string, (props: { orgId: string }) => JSX.Element> = {
  '/': OverviewPage,
  '/overview': OverviewPage,
  '/capacities': CapacitiesPage,
  '/workspaces': WorkspacesPage,
  '/gateways': GatewaysPage,
  '/semantic-models': SemanticModelsPage,
  '/tenants': TenantsPage,
  '/destinations': DestinationsPage,
  '/alerts': AlertsPage,
  '/silences': SilencesPage,
  '/api-keys': ApiKeysPage,
  '/members': MembersPage,
  '/tokens': TokensPage,
  '/audit': AuditPage,
  '/settings': OrgSettingsPage,
};

/**
 * The menu's entry of the page a path shows: Organizations wherever the organization list is
 * shown (no organization chosen yet, whatever the address), the overview at `/`, else the path.
 */
export function navPathOf(path: string, orgId: string | null): string {
  const match = matchConsoleRoute(path);
  if (match?.route === '/alerts/:alertId') return path;
  if (!orgId || match?.route === '/orgs') return '/orgs';
  return path === '/' ? '/overview' : path;
}

/** The page of a console path (the same route table the server answers `index.html` at). */
export function Routes(props: { path: string }) {
  const { orgId, t } = useConsole();
  const match = matchConsoleRoute(props.path);
  // The alert page finds the alert's organization itself: its link arrives from a delivery.
  if (match?.route === '/alerts/:alertId') return <AlertPage alertId={match.params.alertId!} />;
  if (!orgId || match?.route === '/orgs') return <OrgsPage />;
  if (match?.route === '/destinations/:destinationId') return <DestinationPage orgId={orgId} destinationId={match.params.destinationId!} />;
  const Page = match ? ORG_PAGES[match.route] : undefined;
  return Page ? <Page orgId={orgId} /> : <p class="empty">{t('notFoundPage')}</p>;
}

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

/** The page of a console path (the same route table the server answers `index.html` at). */
export function Routes(props: { path: string }) {
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

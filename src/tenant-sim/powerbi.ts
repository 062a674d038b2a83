/** Power BI REST (`/v1.0/myorg/…`): groups, datasets, refreshes, gateways, capacities, admin lists. */
import { randomUUID } from 'node:crypto';
import { serveActivityEvents } from './activity-log.js';
import { gatewayReachable } from './gateway-state.js';
import { executeQueries } from './metrics-app.js';
import { lazyOf, workspaceById } from './lazy-tenant.js';
import { powerBiList } from './paging.js';
import { runScheduledRefreshes } from './schedule.js';
import { type Handler, ok, powerBiError, type RequestContext } from './reply.js';
import type { SimCapacity, SimCapacityState, SimItem, SimWorkspace } from './types.js';

/** What the gateway answers for a data source whose stored credentials no longer work. */
export const CREDENTIALS_ERROR_CODE = 'DM_GWPipeline_Gateway_InvalidConnectionCredentials';

const PBI_CAPACITY_STATE: Record<SimCapacityState, string> = {
  Active: 'Active',
  Suspended: 'Suspended',
  Paused: 'Suspended',
  Inactive: 'Suspended',
  ProvisionFailed: 'ProvisionFailed',
  Provisioning: 'Provisioning',
};

export function powerBiCapacity(c: SimCapacity) {
  return { id: c.id, displayName: c.displayName, admins: c.admins, sku: c.sku, state: PBI_CAPACITY_STATE[c.state], capacityUserAccessRight: 'Admin', region: c.region };
}

function group(w: SimWorkspace) {
  return { id: w.id, name: w.name, isReadOnly: false, isOnDedicatedCapacity: w.capacityId !== null, ...(w.capacityId ? { capacityId: w.capacityId } : {}) };
}

function dataset(item: SimItem) {
  return { id: item.id, name: item.displayName, configuredBy: 'owner@contoso.example', isRefreshable: true, isEffectiveIdentityRequired: false, isEffectiveIdentityRolesRequired: false, isOnPremGatewayRequired: item.gatewayDatasourceId !== undefined, targetStorageMode: 'Abf', createdDate: '2025-01-15T10:00:00Z' };
}

function refresh(r: SimItem['refreshes'][number]) {
  return { requestId: r.requestId, id: Number.parseInt(r.requestId.slice(0, 7), 16), refreshType: r.refreshType, startTime: r.startTime, ...(r.endTime ? { endTime: r.endTime } : {}), status: r.status, ...(r.serviceExceptionJson ? { serviceExceptionJson: r.serviceExceptionJson } : {}) };
}

/** A group the principal may reach through the non-admin APIs, or the refusal. */
function memberGroup(ctx: RequestContext): SimWorkspace | ReturnType<typeof powerBiError> {
  const w = workspaceById(ctx.state, ctx.pathParams.groupId);
  if (!w) return powerBiError(404, 'ItemNotFound', `Couldn't find group ${ctx.pathParams.groupId}`);
  if (!w.member) return powerBiError(401, 'PowerBINotAuthorizedException', 'The service principal is not a member of this workspace.');
  return w;
}

function semanticModel(w: SimWorkspace, id: string | undefined): SimItem | undefined {
  return w.items.find((i) => i.type === 'SemanticModel' && i.id.toLowerCase() === id?.toLowerCase());
}

function visibleGateway(ctx: RequestContext) {
  const g = ctx.state.gateways.find((x) => x.id.toLowerCase() === ctx.pathParams.gatewayId?.toLowerCase());
  return g?.principalIsAdmin ? g : null;
}

export const POWERBI_HANDLERS: Record<string, Handler> = {
  Datasets_ExecuteQueriesInGroup: executeQueries,
  Admin_GetActivityEvents: serveActivityEvents,
  Groups_GetGroups: (ctx) => powerBiList(ctx, ctx.state.workspaces.filter((w) => w.member), 'groups', group),
  Groups_GetGroupsAsAdmin: (ctx) =>
    powerBiList(ctx, ctx.state.workspaces, 'groups', (w) => ({ ...group(w), type: 'Workspace', state: 'Active', hasWorkspaceLevelSettings: false })),
  Capacities_GetCapacities: (ctx) => ok({ 'odata.context': `${ctx.origin}/v1.0/myorg/$metadata#capacities`, value: ctx.state.capacities.map(powerBiCapacity) }),
  Admin_GetCapacitiesAsAdmin: (ctx) => ok({ 'odata.context': `${ctx.origin}/v1.0/myorg/$metadata#capacities`, value: ctx.state.capacities.map(powerBiCapacity) }),
  Admin_GetRefreshables: (ctx) => {
    const lazy = lazyOf(ctx.state.workspaces);
    // A lazy tenant generates the page asked for, not its 200,000 models.
    const rows = lazy
      ? lazy.itemRows(lazy.workspacesOn('*'), 'SemanticModel')
      : ctx.state.workspaces.flatMap((w) => (w.capacityId === null ? [] : w.items.filter((i) => i.type === 'SemanticModel').map((i) => ({ w, i }))));
    return powerBiList(ctx, rows, 'refreshables', ({ w, i }) => {
      const c = ctx.state.capacities.find((x) => x.id === w.capacityId)!;
      if (ctx.state.settings.scheduledRefreshes) runScheduledRefreshes(i, ctx.now, randomUUID);
      const failures = i.refreshes.filter((r) => r.status === 'Failed').length;
      return {
        id: i.id,
        name: i.displayName,
        kind: 'Dataset',
        refreshCount: i.refreshes.length,
        refreshFailures: failures,
        averageDuration: 300,
        medianDuration: 300,
        refreshesPerDay: 1,
        ...(i.refreshes[0] ? { lastRefresh: refresh(i.refreshes[0]) } : {}),
        capacity: powerBiCapacity(c),
        group: { id: w.id, name: w.name },
      };
    });
  },
  Datasets_GetDatasetsInGroup: (ctx) => {
    const w = memberGroup(ctx);
    if ('status' in w) return w;
    return ok({ 'odata.context': `${ctx.origin}/v1.0/myorg/groups/${w.id}/$metadata#datasets`, value: w.items.filter((i) => i.type === 'SemanticModel').map(dataset) });
  },
  Datasets_GetDatasetsInGroupAsAdmin: (ctx) => {
    const w = workspaceById(ctx.state, ctx.pathParams.groupId);
    if (!w) return powerBiError(404, 'ItemNotFound', `Couldn't find group ${ctx.pathParams.groupId}`);
    return powerBiList(ctx, w.items.filter((i) => i.type === 'SemanticModel'), 'datasets', dataset);
  },
  Datasets_GetRefreshHistoryInGroup: (ctx) => {
    const w = memberGroup(ctx);
    if ('status' in w) return w;
    const m = semanticModel(w, ctx.pathParams.datasetId);
    if (!m) return powerBiError(404, 'ItemNotFound', `Couldn't find dataset ${ctx.pathParams.datasetId}`);
    if (ctx.state.settings.scheduledRefreshes) runScheduledRefreshes(m, ctx.now, randomUUID);
    const top = Number(ctx.query.get('$top') ?? m.refreshes.length);
    return ok({ 'odata.context': `${ctx.origin}/v1.0/myorg/$metadata#refreshes`, value: m.refreshes.slice(0, Math.max(0, top)).map(refresh) });
  },
  Datasets_GetRefreshScheduleInGroup: (ctx) => {
    const w = memberGroup(ctx);
    if ('status' in w) return w;
    const m = semanticModel(w, ctx.pathParams.datasetId);
    if (!m) return powerBiError(404, 'ItemNotFound', `Couldn't find dataset ${ctx.pathParams.datasetId}`);
    const s = m.refreshSchedule ?? { days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'], times: ['06:00'], enabled: true, localTimeZoneId: 'E. South America Standard Time' };
    return ok({ days: s.days, times: s.times, enabled: s.enabled, localTimeZoneId: s.localTimeZoneId, NotifyOption: 'MailOnFailure' });
  },
  Datasets_GetDatasourcesInGroup: (ctx) => {
    const w = memberGroup(ctx);
    if ('status' in w) return w;
    const m = semanticModel(w, ctx.pathParams.datasetId);
    if (!m) return powerBiError(404, 'ItemNotFound', `Couldn't find dataset ${ctx.pathParams.datasetId}`);
    const ds = ctx.state.gateways.flatMap((g) => g.datasources).find((d) => d.id === m.gatewayDatasourceId);
    const value = ds ? [{ datasourceType: ds.datasourceType, connectionDetails: JSON.parse(ds.connectionDetails), datasourceId: ds.id, gatewayId: ds.gatewayId }] : [];
    return ok({ 'odata.context': `${ctx.origin}/v1.0/myorg/$metadata#datasources`, value });
  },
  Gateways_GetGateways: (ctx) =>
    ok({
      'odata.context': `${ctx.origin}/v1.0/myorg/$metadata#gateways`,
      value: ctx.state.gateways.filter((g) => g.principalIsAdmin).map((g) => ({ id: g.id, name: g.displayName, type: 'Resource', gatewayStatus: gatewayReachable(g) ? 'Live' : 'NotReachable', gatewayAnnotation: JSON.stringify({ gatewayVersion: g.version }) })),
    }),
  Gateways_GetGateway: (ctx) => {
    const g = visibleGateway(ctx);
    if (!g) return powerBiError(404, 'DMTS_GatewayNotFoundError', 'Gateway not found or the caller is not its admin.');
    return ok({ id: g.id, name: g.displayName, type: 'Resource', gatewayStatus: gatewayReachable(g) ? 'Live' : 'NotReachable', gatewayAnnotation: JSON.stringify({ gatewayVersion: g.version }) });
  },
  Gateways_GetDatasources: (ctx) => {
    const g = visibleGateway(ctx);
    if (!g) return powerBiError(404, 'DMTS_GatewayNotFoundError', 'Gateway not found or the caller is not its admin.');
    return ok({
      'odata.context': `${ctx.origin}/v1.0/myorg/$metadata#gatewayDatasources`,
      value: g.datasources.map((d) => ({ id: d.id, gatewayId: d.gatewayId, datasourceType: d.datasourceType, connectionDetails: d.connectionDetails, credentialType: d.credentialType, datasourceName: d.datasourceName })),
    });
  },
  Gateways_GetDatasourceStatus: (ctx) => {
    const g = visibleGateway(ctx);
    if (!g) return powerBiError(404, 'DMTS_GatewayNotFoundError', 'Gateway not found or the caller is not its admin.');
    const d = g.datasources.find((x) => x.id.toLowerCase() === ctx.pathParams.datasourceId?.toLowerCase());
    if (!d) return powerBiError(404, 'DMTS_DatasourceNotFoundError', 'Data source not found.');
    if (!gatewayReachable(g)) return powerBiError(400, 'DM_GWPipeline_Client_GatewayUnreachable', 'The gateway is unreachable.');
    if (!d.reachable) return powerBiError(400, 'DM_GWPipeline_Gateway_DataSourceAccessError', 'The gateway could not reach the data source.');
    if (d.credentialsExpired) return powerBiError(400, CREDENTIALS_ERROR_CODE, 'The credentials provided for the data source are invalid or expired.');
    return { status: 200 };
  },
};

/**
 * Fabric REST (`/v1/…`): workspaces (member and admin), capacities, items, job instances and
 * schedules, gateways and members with their status checks (200, or 202 and a long-running
 * operation), connections, mirrored databases, semantic models, operations.
 */
import { randomUUID } from 'node:crypto';
import { gatewayReachable } from './gateway-state.js';
import { lazyOf, workspaceById } from './lazy-tenant.js';
import { fabricPage } from './paging.js';
import { fabricError, type Handler, ok, type Reply, type RequestContext } from './reply.js';
import { CREDENTIALS_ERROR_CODE } from './powerbi.js';
import type { SimConnection, SimGateway, SimItem, SimState, SimWorkspace } from './types.js';

const PUBLIC_KEY = { exponent: 'AQAB', modulus: 'o6j2kNjZSim1ulatedGatewayKeyModulusxZk7X2j4Q==' };

/**
 * Fabric writes ids in lower case where Power BI writes capacity ids in upper case (as the
 * services do): a client must compare them without regard to case.
 */
function fabricId(id: string): string {
  return id.toLowerCase();
}

function fabricCapacityState(state: string): 'Active' | 'Inactive' {
  return state === 'Active' ? 'Active' : 'Inactive';
}

function memberWorkspace(ctx: RequestContext): SimWorkspace | Reply {
  const w = workspaceById(ctx.state, ctx.pathParams.workspaceId);
  if (!w) return fabricError(404, 'WorkspaceNotFound', 'The requested workspace was not found.');
  if (!w.member) return fabricError(403, 'InsufficientPrivileges', 'The caller does not have sufficient permissions to access this workspace.');
  return w;
}

function itemIn(w: SimWorkspace, id: string | undefined): SimItem | undefined {
  return w.items.find((i) => i.id.toLowerCase() === id?.toLowerCase());
}

function item(i: SimItem) {
  return { id: i.id, type: i.type, displayName: i.displayName, description: '', workspaceId: i.workspaceId };
}

function gateway(g: SimGateway) {
  return {
    id: g.id,
    type: 'OnPremises',
    displayName: g.displayName,
    publicKey: PUBLIC_KEY,
    version: g.version,
    numberOfMemberGateways: g.members.length,
    loadBalancingSetting: 'Failover',
    allowCloudConnectionRefresh: true,
    allowCustomConnectors: false,
  };
}

function visibleGateway(ctx: RequestContext): SimGateway | Reply {
  const g = ctx.state.gateways.find((x) => x.id.toLowerCase() === ctx.pathParams.gatewayId?.toLowerCase());
  return g?.principalIsAdmin ? g : fabricError(404, 'EntityNotFound', 'The requested gateway was not found.');
}

/** The gateway's status as `checkStatus` reports it. */
function gatewayStatus(g: SimGateway) {
  const reachable = gatewayReachable(g);
  return {
    status: reachable ? 'Online' : 'Offline',
    gatewayVersion: g.version,
    gatewayUpgradeState: g.upgradeRequired ? 'UpgradeRequired' : 'UpToDate',
    ...(reachable ? {} : { errorDetails: [{ errorCode: 'GatewayNotReachable', message: `Gateway ${g.displayName} did not answer the status check.` }] }),
  };
}

/** 200 with the status, or 202 with a long-running operation when the tenant is set so. */
function statusReply(ctx: RequestContext, status: unknown, longRunning = ctx.state.settings.longRunningStatusChecks): Reply {
  if (!longRunning) return ok(status);
  const id = randomUUID();
  const failure = ctx.state.settings.longRunningFails ? { errorCode: 'GatewayStatusCheckFailed', message: 'The status check could not be completed.' } : undefined;
  ctx.operations.set(id, { result: status, polls: 0, createdAt: new Date(ctx.now).toISOString(), failure });
  return { status: 202, headers: { Location: `${ctx.origin}/v1/operations/${id}`, 'x-ms-operation-id': id, 'Retry-After': '1' } };
}

/**
 * What `testConnection` reports: a gateway connection answers for its gateway data source (same
 * id) and its gateway; a cloud connection for itself. Failures are `Offline` with the platform's
 * error code, as the service reports them.
 */
/** A connection as Fabric lists and gets it. */
function connectionView(c: SimConnection) {
  return {
    id: c.id,
    displayName: c.displayName,
    ...(c.gatewayId ? { gatewayId: c.gatewayId } : {}),
    connectivityType: c.connectivityType,
    connectionDetails: { type: c.type, path: c.path },
    privacyLevel: 'Organizational',
    credentialDetails: { credentialType: c.credentialType, singleSignOnType: 'None', connectionEncryption: 'NotEncrypted', skipTestConnection: false },
  };
}

function connectionStatus(state: SimState, c: SimConnection) {
  const offline = (errorCode: string, message: string) => ({ status: 'Offline', errors: [{ errorCode, message }] });
  if (c.gatewayId) {
    const g = state.gateways.find((x) => x.id === c.gatewayId);
    const d = g?.datasources.find((x) => x.id.toLowerCase() === c.id.toLowerCase());
    if (!g || !gatewayReachable(g)) return offline('DM_GWPipeline_Client_GatewayUnreachable', 'The gateway is unreachable.');
    if (d && !d.reachable) return offline('DM_GWPipeline_Gateway_DataSourceAccessError', 'The gateway could not reach the data source.');
    if (d?.credentialsExpired) return offline(CREDENTIALS_ERROR_CODE, 'The credentials provided for the data source are invalid or expired.');
    return { status: 'Online', errors: [] };
  }
  if (c.reachable === false) return offline('DM_GWPipeline_Gateway_DataSourceAccessError', `Could not reach ${c.path}.`);
  if (c.credentialsExpired) {
    return c.credentialType === 'OAuth2'
      ? offline('DMTS_OAuthTokenRefreshFailedError', 'The OAuth token of the connection expired and could not be refreshed.')
      : offline('IncorrectCredentials', 'Failed to establish connection using the stored credentials.');
  }
  return { status: 'Online', errors: [] };
}

/** An operation is `Running` on its first poll and `Succeeded` (or `Failed`, with its error) after, so clients must poll. */
function operationState(ctx: RequestContext): Reply {
  const id = ctx.pathParams.operationId ?? '';
  const op = ctx.operations.get(id);
  if (!op) return fabricError(404, 'OperationNotFound', 'The requested operation was not found.');
  op.polls++;
  const done = op.polls > 1;
  const times = { createdTimeUtc: op.createdAt, lastUpdatedTimeUtc: new Date(ctx.now).toISOString() };
  if (done && op.failure) return { status: 200, headers: { 'x-ms-operation-id': id }, body: { status: 'Failed', ...times, percentComplete: 100, error: op.failure } };
  return {
    status: 200,
    headers: done ? { Location: `${ctx.origin}/v1/operations/${id}/result`, 'x-ms-operation-id': id } : { Location: `${ctx.origin}/v1/operations/${id}`, 'x-ms-operation-id': id, 'Retry-After': '1' },
    body: { status: done ? 'Succeeded' : 'Running', ...times, percentComplete: done ? 100 : 50 },
  };
}

function operationResult(ctx: RequestContext): Reply {
  const op = ctx.operations.get(ctx.pathParams.operationId ?? '');
  if (!op) return fabricError(404, 'OperationNotFound', 'The requested operation was not found.');
  if (op.polls < 2 || op.failure) return fabricError(400, 'OperationNotSucceeded', 'The operation has not succeeded.');
  return ok(op.result);
}

export const FABRIC_HANDLERS: Record<string, Handler> = {
  LongRunningOperations_GetOperationState: operationState,
  LongRunningOperations_GetOperationResult: operationResult,
  Workspaces_ListWorkspaces: (ctx) =>
    ctx.path.toLowerCase().startsWith('/v1/admin/')
      ? fabricPage(
          ctx,
          ctx.state.workspaces.filter(
            (w) =>
              (!ctx.query.get('capacityId') || w.capacityId?.toLowerCase() === ctx.query.get('capacityId')!.toLowerCase()) &&
              (!ctx.query.get('name') || w.name === ctx.query.get('name')) &&
              (!ctx.query.get('state') || ctx.query.get('state') === 'Active') &&
              (!ctx.query.get('type') || ctx.query.get('type') === 'Workspace'),
          ),
          'workspaces',
          (w) => ({ id: w.id, name: w.name, type: 'Workspace', state: 'Active', ...(w.capacityId ? { capacityId: fabricId(w.capacityId) } : {}) }),
        )
      : fabricPage(
          ctx,
          ctx.state.workspaces.filter((w) => w.member),
          'value',
          (w) => {
            const c = ctx.state.capacities.find((x) => x.id === w.capacityId);
            return { id: w.id, displayName: w.name, description: '', type: 'Workspace', ...(c ? { capacityId: fabricId(c.id), capacityRegion: c.region } : {}) };
          },
        ),
  Workspaces_GetWorkspace: (ctx) => {
    const w = memberWorkspace(ctx);
    if ('status' in w) return w;
    const c = ctx.state.capacities.find((x) => x.id === w.capacityId);
    return ok({ id: w.id, displayName: w.name, description: '', type: 'Workspace', ...(c ? { capacityId: fabricId(c.id), capacityRegion: c.region, capacityAssignmentProgress: 'Completed' } : {}) });
  },
  Items_ListItems: (ctx) => {
    if (ctx.path.toLowerCase().startsWith('/v1/admin/')) {
      const wid = ctx.query.get('workspaceId')?.toLowerCase();
      const cid = ctx.query.get('capacityId')?.toLowerCase();
      const type = ctx.query.get('type');
      // One workspace asked for: looked up, not searched. A lazy tenant generates the page, not the tenant.
      const one = wid ? workspaceById(ctx.state, wid) : undefined;
      const lazy = lazyOf(ctx.state.workspaces);
      const rows =
        lazy && !wid
          ? lazy.itemRows(cid ? lazy.workspacesOn(cid) : undefined, type ?? undefined)
          : (wid ? (one ? [one] : []) : ctx.state.workspaces)
              .filter((w) => (!wid || w.id === wid) && (!cid || w.capacityId?.toLowerCase() === cid))
              .flatMap((w) => w.items.filter((i) => !type || i.type === type).map((i) => ({ i, w })));
      return fabricPage(ctx, rows, 'itemEntities', ({ i, w }) => ({ id: i.id, name: i.displayName, type: i.type, state: 'Active', workspaceId: w.id, ...(w.capacityId ? { capacityId: fabricId(w.capacityId) } : {}) }));
    }
    const w = memberWorkspace(ctx);
    if ('status' in w) return w;
    const type = ctx.query.get('type');
    return fabricPage(ctx, w.items.filter((i) => !type || i.type === type), 'value', item);
  },
  Capacities_ListCapacities: (ctx) =>
    fabricPage(ctx, ctx.state.capacities, 'value', (c) => ({ id: fabricId(c.id), displayName: c.displayName, sku: c.sku, region: c.region, state: fabricCapacityState(c.state) })),
  Capacities_GetCapacity: (ctx) => {
    const c = ctx.state.capacities.find((x) => x.id.toLowerCase() === ctx.pathParams.capacityId?.toLowerCase());
    if (!c) return fabricError(404, 'CapacityNotFound', 'The requested capacity was not found.');
    return ok({ id: fabricId(c.id), displayName: c.displayName, sku: c.sku, region: c.region, state: fabricCapacityState(c.state) });
  },
  JobScheduler_ListItemJobInstances: (ctx) => {
    const w = memberWorkspace(ctx);
    if ('status' in w) return w;
    const i = itemIn(w, ctx.pathParams.itemId);
    if (!i) return fabricError(404, 'ItemNotFound', 'The requested item was not found.');
    return fabricPage(ctx, i.jobs, 'value', (j) => ({ ...j, itemId: i.id, rootActivityId: j.id }));
  },
  JobScheduler_GetItemJobInstance: (ctx) => {
    const w = memberWorkspace(ctx);
    if ('status' in w) return w;
    const i = itemIn(w, ctx.pathParams.itemId);
    const j = i?.jobs.find((x) => x.id.toLowerCase() === ctx.pathParams.jobInstanceId?.toLowerCase());
    if (!i || !j) return fabricError(404, 'ItemNotFound', 'The requested job instance was not found.');
    return ok({ ...j, itemId: i.id, rootActivityId: j.id });
  },
  JobScheduler_ListItemSchedules: (ctx) => {
    const w = memberWorkspace(ctx);
    if ('status' in w) return w;
    const i = itemIn(w, ctx.pathParams.itemId);
    if (!i) return fabricError(404, 'ItemNotFound', 'The requested item was not found.');
    if (i.schedules) {
      const jobType = ctx.pathParams.jobType?.toLowerCase();
      return fabricPage(ctx, i.schedules.filter((x) => x.jobType.toLowerCase() === jobType), 'value', (x) => ({
        id: x.id,
        enabled: x.enabled,
        createdDateTime: '2025-01-15T10:00:00Z',
        configuration: { type: 'Cron', startDateTime: '2025-01-15T00:00:00', endDateTime: '2030-01-01T00:00:00', localTimeZoneId: 'E. South America Standard Time', interval: 60 },
        owner: { id: '00000000-0000-4000-8000-00000000a11c', type: 'ServicePrincipal' },
      }));
    }
    const schedules = i.jobs.length === 0 ? [] : [
      {
        id: `${i.id.slice(0, 24)}5c4ed01e0000`,
        enabled: true,
        createdDateTime: '2025-01-15T10:00:00Z',
        configuration: { type: 'Daily', startDateTime: '2025-01-15T02:00:00', endDateTime: '2030-01-01T00:00:00', localTimeZoneId: 'E. South America Standard Time', times: ['02:00'] },
        owner: { id: '00000000-0000-4000-8000-00000000a11c', type: 'ServicePrincipal' },
      },
    ];
    return fabricPage(ctx, schedules);
  },
  Gateways_ListGateways: (ctx) => fabricPage(ctx, ctx.state.gateways.filter((g) => g.principalIsAdmin), 'value', gateway),
  Gateways_GetGateway: (ctx) => {
    const g = visibleGateway(ctx);
    return 'status' in g ? g : ok(gateway(g));
  },
  Gateways_ListGatewayMembers: (ctx) => {
    const g = visibleGateway(ctx);
    if ('status' in g) return g;
    // Paged like every Fabric list (continuationToken/continuationUri) when the page size is smaller than the list.
    return fabricPage(ctx, g.members, 'value', (m) => ({ id: m.id, displayName: m.displayName, publicKey: PUBLIC_KEY, version: m.version, enabled: m.enabled }));
  },
  Gateways_CheckGatewayStatus: (ctx) => {
    const g = visibleGateway(ctx);
    return 'status' in g ? g : statusReply(ctx, gatewayStatus(g));
  },
  Gateways_CheckGatewayMemberStatus: (ctx) => {
    const g = visibleGateway(ctx);
    if ('status' in g) return g;
    const m = g.members.find((x) => x.id.toLowerCase() === ctx.pathParams.gatewayMemberId?.toLowerCase());
    if (!m) return fabricError(404, 'EntityNotFound', 'The requested gateway member was not found.');
    const online = m.online && m.enabled && g.online;
    return statusReply(ctx, {
      status: online ? 'Online' : 'Offline',
      gatewayVersion: m.version,
      gatewayUpgradeState: g.upgradeRequired ? 'UpgradeRequired' : 'UpToDate',
      ...(online ? {} : { errorDetails: [{ errorCode: 'GatewayMemberNotReachable', message: `Member ${m.displayName} did not answer the status check.` }] }),
    });
  },
  Connections_ListConnections: (ctx) =>
    fabricPage(ctx, ctx.state.connections, 'value', connectionView),
  Connections_GetConnection: (ctx) => {
    const c = ctx.state.connections.find((x) => x.id.toLowerCase() === ctx.pathParams.connectionId?.toLowerCase());
    if (!c) return fabricError(404, 'EntityNotFound', 'The requested connection was not found.');
    return ok(connectionView(c));
  },
  Connections_TestConnection: (ctx) => {
    const c = ctx.state.connections.find((x) => x.id.toLowerCase() === ctx.pathParams.connectionId?.toLowerCase());
    if (!c) return fabricError(404, 'EntityNotFound', 'The requested connection was not found.');
    return statusReply(ctx, connectionStatus(ctx.state, c), ctx.state.settings.longRunningConnectionTests === true);
  },
  Items_ListMirroredDatabases: (ctx) => {
    const w = memberWorkspace(ctx);
    if ('status' in w) return w;
    return fabricPage(ctx, w.items.filter((i) => i.type === 'MirroredDatabase'), 'value', item);
  },
  Mirroring_GetMirroringStatus: (ctx) => {
    const w = memberWorkspace(ctx);
    if ('status' in w) return w;
    const i = itemIn(w, ctx.pathParams.mirroredDatabaseId);
    if (!i?.mirroring) return fabricError(404, 'ItemNotFound', 'The requested mirrored database was not found.');
    const { status, errorCode } = i.mirroring;
    return ok({ status, ...(errorCode ? { error: { errorCode, message: `Mirroring of ${i.displayName} failed.` } } : {}) });
  },
  Mirroring_GetTablesMirroringStatus: (ctx) => {
    const w = memberWorkspace(ctx);
    if ('status' in w) return w;
    const i = itemIn(w, ctx.pathParams.mirroredDatabaseId);
    if (!i?.mirroring) return fabricError(404, 'ItemNotFound', 'The requested mirrored database was not found.');
    return fabricPage(ctx, i.mirroring.tables, 'data', (t) => ({
      sourceObjectType: 'Table',
      sourceSchemaName: t.sourceSchemaName,
      sourceTableName: t.sourceTableName,
      status: t.status,
      metrics: {
        processedBytes: t.processedBytes,
        processedRows: t.processedRows,
        lastSyncDateTime: t.lastSyncDateTime,
        ...(t.lastSyncLatencyInSeconds !== undefined ? { lastSyncLatencyInSeconds: t.lastSyncLatencyInSeconds } : {}),
      },
      ...(t.errorCode ? { error: { errorCode: t.errorCode, message: `Table ${t.sourceTableName} failed to replicate.` } } : {}),
    }));
  },
  Items_ListSemanticModels: (ctx) => {
    const w = memberWorkspace(ctx);
    if ('status' in w) return w;
    return fabricPage(ctx, w.items.filter((i) => i.type === 'SemanticModel'), 'value', item);
  },
};

/**
 * Changes the simulated tenant's state — the same operations in process (`sim.control`) and over
 * HTTP (`POST /_sim/{operation}` with the arguments as a JSON object).
 */
import { setWorkspaceRole, type WorkspaceRole } from './fabric-items.js';
import { disturbEvents, LOAD_STAGES, pushStage, recordTransition, type LoadStage } from './capacity-load.js';
import { failureReason, jobTypeOf } from './jobs.js';
import { itemById, workspaceById } from './lazy-tenant.js';
import { TOKEN_REFUSALS, type TokenRefusalKind } from './token-refusals.js';
import type { Limits } from './limits.js';
import { refreshException } from './refresh-errors.js';
import { API_FAMILIES, METRICS_APP_VERSIONS, type ApiFamily, type MetricsAppVersion, type SimCapacityState, type SimItem, type SimState } from './types.js';

export class SimControlError extends Error {}

export interface Faults {
  /** Targets (family or path prefix) answered with a valid-looking JSON body of `bytes`. */
  huge: Map<string, number>;
  /** Path prefixes answered with a body that is not JSON. */
  garbage: Set<string>;
}

const WEEK_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const REFRESH_STATUSES = ['Completed', 'Failed', 'Unknown', 'Disabled'] as const;
/** The service keeps about this many refreshes per semantic model. */
export const REFRESH_HISTORY_LENGTH = 60;

const CAPACITY_STATES: SimCapacityState[] = ['Active', 'Suspended', 'Paused', 'Inactive', 'ProvisionFailed', 'Provisioning'];

export interface SimControl {
  gatewayOffline(a: { gatewayId: string; offline?: boolean }): void;
  memberOffline(a: { gatewayId: string; memberId: string; offline?: boolean }): void;
  gatewayUpgradeRequired(a: { gatewayId: string; on?: boolean }): void;
  capacityState(a: { capacityId: string; state: SimCapacityState }): void;
  /** The token endpoint refuses the app the way Entra ID does for `kind` (TOKEN_REFUSALS; default `invalid_client`). */
  refuseTokens(a: { on: boolean; kind?: TokenRefusalKind }): void;
  /** Tenant settings forbid the principal the read-only admin APIs (Power BI 401, Fabric 403). */
  adminApisForbidden(a: { on: boolean }): void;
  workspaceMembership(a: { workspaceId: string; member: boolean }): void;
  /** Cost Management read is missing at a scope ('subscriptions/{id}[/resourceGroups/{rg}]' or '*'). */
  costScopeForbidden(a: { scope: string; on: boolean }): void;
  /** ARM read (Reader / Monitoring Reader) is missing at a scope ('subscriptions/{id}[/resourceGroups/{rg}]' or '*'): capacity listings and metrics answer 403. */
  armReadForbidden(a: { scope: string; on: boolean }): void;
  /** Changes a capacity's SKU: `A1`…`A8` or `EM1`…`EM3` make it a Power BI Embedded capacity (`Microsoft.PowerBIDedicated` in ARM, Azure Monitor metrics). */
  capacitySku(a: { capacityId: string; sku: string }): void;
  /** The next `count` Azure Monitor metrics requests answer 529, the metrics back-end's throttling (not ARM's 429). */
  metricsThrottled(a: { count: number }): void;
  /** The next `count` requests of the family answer 429 with Retry-After (a storm). */
  throttle(a: { family: ApiFamily; count: number; retryAfterSeconds?: number }): void;
  /** Answers to a family or path prefix become a `bytes`-long JSON body (null to stop). */
  hugeResponse(a: { target: string; bytes: number | null }): void;
  /** Answers under a path prefix are not JSON. */
  garbageResponse(a: { path: string; on: boolean }): void;
  /** Fabric gateway status checks answer 202 and a long-running operation. */
  longRunningStatusChecks(a: { on: boolean; fail?: boolean }): void;
  /**
   * Adds a refresh at the top of a semantic model's history (kept to the newest 60, like the
   * service). `finish: true` instead finishes the newest running (`Unknown`) refresh with `status`.
   */
  refreshResult(a: { datasetId: string; status: 'Completed' | 'Failed' | 'Unknown' | 'Disabled'; errorCode?: string; finish?: boolean }): void;
  /** Adds a job instance at the top of an item's runs. */
  jobResult(a: { itemId: string; status: 'NotStarted' | 'InProgress' | 'Completed' | 'Failed' | 'Cancelled' | 'Deduped'; errorCode?: string }): void;
  /** Ends the newest NotStarted/InProgress instance of an item with this result. */
  finishJob(a: { itemId: string; status: 'Completed' | 'Failed' | 'Cancelled'; errorCode?: string }): void;
  /** Gives an item one schedule of its job type, enabled or not (`enabled: null` removes its schedules). */
  jobSchedule(a: { itemId: string; enabled: boolean | null }): void;
  /**
   * Sets a mirrored database's status, or one table's. `errorCode`: a failed table's code
   * (default SourceTableNotAccessible); without a table, the database's own mirroring error
   * (null clears it).
   */
  mirroringStatus(a: {
    itemId: string;
    status?: NonNullable<SimItem['mirroring']>['status'];
    table?: string;
    tableStatus?: NonNullable<SimItem['mirroring']>['tables'][number]['status'];
    errorCode?: string | null;
  }): void;
  /** Sets a mirrored table's replication lag (`lastSyncLatencyInSeconds`; null: the platform does not report it). */
  mirroringLag(a: { itemId: string; table: string; seconds: number | null }): void;
  /** A gateway data source (or a cloud connection, by its id) answers its checks as unreachable. */
  datasourceReachable(a: { datasourceId: string; reachable: boolean }): void;
  /** A gateway data source's or cloud connection's stored credentials expire (checks answer the credential error code) or are renewed. */
  datasourceCredentials(a: { datasourceId: string; expired?: boolean }): void;
  /** Fabric connection tests answer 202 and a long-running operation. */
  longRunningConnectionTests(a: { on: boolean }): void;
  /** The platform no longer lists a gateway data source or connection (it was deleted). */
  removeDatasource(a: { datasourceId: string }): void;
  /** Enabled refresh schedules run by themselves as the simulator's clock passes their slots. */
  scheduledRefreshes(a: { on: boolean }): void;
  /** Replaces a semantic model's refresh schedule (fields left out keep their value). */
  refreshSchedule(a: { datasetId: string; days?: string[]; times?: string[]; enabled?: boolean; localTimeZoneId?: string }): void;
  /** The next `count` (default 1) scheduled slots of a model never start. */
  skipScheduledRefresh(a: { datasetId: string; count?: number }): void;
  /** The next scheduled run of a model completes `minutes` after its slot. */
  lateScheduledRefresh(a: { datasetId: string; minutes: number }): void;
  /** Sets a mirrored table's `lastSyncDateTime` (ISO; default now). */
  mirroredTableSync(a: { itemId: string; table: string; lastSyncDateTime?: string }): void;
  /**
   * From the current 30-second window on, the capacity's load puts it in `stage`: `high` (about
   * 90 % of its CU), `interactiveDelay` (the next 10 minutes over 100 %), `interactiveRejection`
   * (the next hour), `backgroundRejection` (the next 24 hours) — its carry-forward set to match
   * and held — or back to `normal`, where the carry-forward burns down (`clearCarryForward`:
   * at once). `heavyItemId`: the item that uses most of the CU (default: the first on it).
   */
  capacityLoad(a: { capacityId: string; stage: LoadStage; heavyItemId?: string; clearCarryForward?: boolean }): void;
  /** The next `drop` windows' events of a capacity are lost; the next `duplicate` windows' delivered twice. */
  capacityEvents(a: { capacityId: string; drop?: number; duplicate?: number }): void;
  /** The service principal may not read the Eventhouse's database (queries answer 403). */
  eventhouseForbidden(a: { on: boolean }): void;
  /** The Capacity Metrics app's model takes the names of this app version (METRICS_APP_VERSIONS; `v99` is unknown to every monitor). */
  metricsAppVersion(a: { version: MetricsAppVersion }): void;
  /** executeQueries on the app's model answers 401 (no Build permission, or the tenant setting off). */
  metricsAppForbidden(a: { on: boolean }): void;
  /** The service principal's role on a workspace it is a member of (Contributor by default; Viewer may not create items). */
  workspaceRole(a: { workspaceId: string; role: WorkspaceRole }): void;
  /** Back to the generated state; limits, storms and faults cleared. */
  reset(): void;
}

export function createControl(deps: { state: () => SimState; limits: Limits; faults: Faults; reset: () => void; now: () => number; newId: () => string }): SimControl {
  const s = () => deps.state();
  const gateway = (id: string) => {
    const g = s().gateways.find((x) => x.id.toLowerCase() === String(id).toLowerCase());
    if (!g) throw new SimControlError(`no gateway ${id}`);
    return g;
  };
  const item = (id: string) => {
    const i = itemById(s(), id, { forWrite: true });
    if (i) return i;
    throw new SimControlError(`no item ${id}`);
  };
  const mirroredTable = (i: SimItem, table: string) => {
    if (!i.mirroring) throw new SimControlError(`${i.id} is not a mirrored database`);
    const t = i.mirroring.tables.find((x) => x.sourceTableName === table);
    if (!t) throw new SimControlError(`no table ${table}`);
    return t;
  };
  const model = (id: string) => {
    const i = item(id);
    if (i.type !== 'SemanticModel') throw new SimControlError(`${id} is not a semantic model`);
    return i;
  };
  const capacity = (id: string) => {
    const c = s().capacities.find((x) => x.id.toLowerCase() === String(id).toLowerCase() || x.armName === id);
    if (!c) throw new SimControlError(`no capacity ${id}`);
    return c;
  };
  const bool = (v: unknown, dflt: boolean) => (v === undefined ? dflt : v === true);
  /** A gateway data source, or else a cloud connection, by id. */
  const dataSource = (id: string): { reachable?: boolean; credentialsExpired?: boolean } => {
    const key = String(id).toLowerCase();
    const d = s().gateways.flatMap((g) => g.datasources).find((x) => x.id.toLowerCase() === key) ?? s().connections.find((c) => c.gatewayId === null && c.id.toLowerCase() === key);
    if (!d) throw new SimControlError(`no data source ${id}`);
    return d;
  };
  return {
    gatewayOffline({ gatewayId, offline }) {
      gateway(gatewayId).online = !bool(offline, true);
    },
    memberOffline({ gatewayId, memberId, offline }) {
      const m = gateway(gatewayId).members.find((x) => x.id.toLowerCase() === String(memberId).toLowerCase());
      if (!m) throw new SimControlError(`no member ${memberId} in gateway ${gatewayId}`);
      m.online = !bool(offline, true);
    },
    gatewayUpgradeRequired({ gatewayId, on }) {
      gateway(gatewayId).upgradeRequired = bool(on, true);
    },
    capacityState({ capacityId, state }) {
      if (!CAPACITY_STATES.includes(state)) throw new SimControlError(`state must be one of ${CAPACITY_STATES.join(', ')}`);
      const c = capacity(capacityId);
      recordTransition(s(), c, deps.now(), c.state === 'Active', state === 'Active');
      c.state = state;
    },
    capacityLoad({ capacityId, stage, heavyItemId, clearCarryForward }) {
      if (!LOAD_STAGES.includes(stage)) throw new SimControlError(`stage must be one of ${LOAD_STAGES.join(', ')}`);
      if (heavyItemId !== undefined) item(heavyItemId);
      pushStage(s(), capacity(capacityId), deps.now(), stage, heavyItemId ?? null, clearCarryForward === true);
    },
    capacityEvents({ capacityId, drop, duplicate }) {
      for (const n of [drop, duplicate]) if (n !== undefined && (!Number.isInteger(n) || n < 0 || n > 10_000)) throw new SimControlError('drop and duplicate must be whole numbers of windows (0–10000)');
      disturbEvents(s(), capacity(capacityId), deps.now(), drop ?? 0, duplicate ?? 0);
    },
    eventhouseForbidden({ on }) {
      const eh = s().eventhouse;
      if (!eh) throw new SimControlError('the tenant has no Eventhouse');
      eh.forbidden = on === true;
    },
    metricsAppVersion({ version }) {
      const app = s().metricsApp;
      if (!app) throw new SimControlError('the tenant has no Capacity Metrics app');
      if (!METRICS_APP_VERSIONS.includes(version)) throw new SimControlError(`version must be one of ${METRICS_APP_VERSIONS.join(', ')}`);
      app.version = version;
    },
    metricsAppForbidden({ on }) {
      const app = s().metricsApp;
      if (!app) throw new SimControlError('the tenant has no Capacity Metrics app');
      app.forbidden = on === true;
    },
    workspaceRole({ workspaceId, role }) {
      if (!['Admin', 'Member', 'Contributor', 'Viewer'].includes(role)) throw new SimControlError('role must be Admin, Member, Contributor or Viewer');
      if (!s().workspaces.some((x) => x.id.toLowerCase() === String(workspaceId).toLowerCase())) throw new SimControlError(`no workspace ${workspaceId}`);
      setWorkspaceRole(s(), workspaceId, role);
    },
    refuseTokens({ on, kind }) {
      if (kind !== undefined && !Object.hasOwn(TOKEN_REFUSALS, kind)) throw new SimControlError(`kind must be one of ${Object.keys(TOKEN_REFUSALS).join(', ')}`);
      s().settings.refuseTokens = on ? (kind ?? 'invalid_client') : null;
    },
    adminApisForbidden({ on }) {
      s().settings.adminApisForbidden = on === true;
    },
    workspaceMembership({ workspaceId, member }) {
      const w = workspaceById(s(), workspaceId, { forWrite: true });
      if (!w) throw new SimControlError(`no workspace ${workspaceId}`);
      w.member = member === true;
    },
    costScopeForbidden({ scope, on }) {
      if (typeof scope !== 'string' || scope === '') throw new SimControlError('scope is required');
      const norm = scope.replace(/^\/+|\/+$/g, '').toLowerCase();
      const list = s().settings.costScopesForbidden.filter((x) => x !== norm);
      if (on) list.push(norm);
      s().settings.costScopesForbidden = list;
    },
    armReadForbidden({ scope, on }) {
      if (typeof scope !== 'string' || scope === '') throw new SimControlError('scope is required');
      const norm = scope.replace(/^\/+|\/+$/g, '').toLowerCase();
      const list = (s().settings.armReadForbidden ?? []).filter((x) => x !== norm);
      if (on) list.push(norm);
      s().settings.armReadForbidden = list;
    },
    capacitySku({ capacityId, sku }) {
      if (typeof sku !== 'string' || !/^(F|P|A|EM)\d{1,4}$/i.test(sku)) throw new SimControlError('sku must look like F64, P1, A2 or EM1');
      capacity(capacityId).sku = sku.toUpperCase();
    },
    metricsThrottled({ count }) {
      if (!Number.isInteger(count) || count < 0) throw new SimControlError('count must be a non-negative integer');
      s().settings.metricsThrottled = count;
    },
    throttle({ family, count, retryAfterSeconds }) {
      if (!API_FAMILIES.includes(family)) throw new SimControlError(`family must be one of ${API_FAMILIES.join(', ')}`);
      if (!Number.isInteger(count) || count < 0) throw new SimControlError('count must be a non-negative integer');
      deps.limits.storm(family, count, retryAfterSeconds ?? 1);
    },
    hugeResponse({ target, bytes }) {
      if (typeof target !== 'string' || target === '') throw new SimControlError('target is required');
      if (bytes === null || bytes === undefined) deps.faults.huge.delete(target);
      else if (!Number.isInteger(bytes) || bytes < 0) throw new SimControlError('bytes must be a non-negative integer');
      else deps.faults.huge.set(target, bytes);
    },
    garbageResponse({ path, on }) {
      if (typeof path !== 'string' || path === '') throw new SimControlError('path is required');
      if (on) deps.faults.garbage.add(path);
      else deps.faults.garbage.delete(path);
    },
    longRunningStatusChecks({ on, fail }) {
      s().settings.longRunningStatusChecks = on === true;
      s().settings.longRunningFails = on === true && fail === true;
    },
    refreshResult({ datasetId, status, errorCode, finish }) {
      const i = item(datasetId);
      if (i.type !== 'SemanticModel') throw new SimControlError(`${datasetId} is not a semantic model`);
      if (!REFRESH_STATUSES.includes(status)) throw new SimControlError(`status must be one of ${REFRESH_STATUSES.join(', ')}`);
      const at = new Date(deps.now()).toISOString();
      const failure = status === 'Failed' ? { serviceExceptionJson: refreshException(errorCode ?? 'ModelRefreshFailed_CredentialsNotSpecified') } : {};
      if (finish === true) {
        if (status === 'Unknown') throw new SimControlError('a refresh finishes as Completed, Failed or Disabled');
        const running = i.refreshes.find((r) => r.status === 'Unknown');
        if (!running) throw new SimControlError(`${datasetId} has no running refresh`);
        Object.assign(running, { status, endTime: at, ...failure });
        return;
      }
      i.refreshes.unshift({
        requestId: deps.newId(),
        refreshType: 'ViaApi',
        startTime: at,
        ...(status === 'Unknown' ? {} : { endTime: at }),
        status,
        ...failure,
      });
      i.refreshes.splice(REFRESH_HISTORY_LENGTH);
    },
    jobResult({ itemId, status, errorCode }) {
      const i = item(itemId);
      const start = new Date(deps.now()).toISOString();
      i.jobs.unshift({
        id: deps.newId(),
        jobType: jobTypeOf(i.type),
        invokeType: 'Manual',
        status,
        startTimeUtc: start,
        ...(status === 'Completed' || status === 'Failed' || status === 'Cancelled' ? { endTimeUtc: start } : {}),
        ...(status === 'Failed' ? { failureReason: failureReason(errorCode) } : {}),
      });
      i.jobs.splice(100);
    },
    finishJob({ itemId, status, errorCode }) {
      if (status !== 'Completed' && status !== 'Failed' && status !== 'Cancelled') throw new SimControlError('status must be Completed, Failed or Cancelled');
      const j = item(itemId).jobs.find((x) => x.status === 'NotStarted' || x.status === 'InProgress');
      if (!j) throw new SimControlError(`${itemId} has no running job instance`);
      j.status = status;
      j.endTimeUtc = new Date(deps.now()).toISOString();
      if (status === 'Failed') j.failureReason = failureReason(errorCode);
    },
    jobSchedule({ itemId, enabled }) {
      const i = item(itemId);
      if (enabled === null) i.schedules = [];
      else i.schedules = [{ id: deps.newId(), jobType: jobTypeOf(i.type), enabled: enabled === true }];
    },
    mirroringStatus({ itemId, status, table, tableStatus, errorCode }) {
      const i = item(itemId);
      if (!i.mirroring) throw new SimControlError(`${itemId} is not a mirrored database`);
      if (status) i.mirroring.status = status;
      if (table !== undefined) {
        const t = mirroredTable(i, table);
        if (tableStatus) {
          t.status = tableStatus;
          if (tableStatus === 'Failed') t.errorCode = errorCode ?? 'SourceTableNotAccessible';
          else delete t.errorCode;
        }
      } else if (errorCode !== undefined) {
        if (errorCode === null) delete i.mirroring.errorCode;
        else i.mirroring.errorCode = String(errorCode);
      }
    },
    mirroringLag({ itemId, table, seconds }) {
      const t = mirroredTable(item(itemId), table);
      if (seconds === null) delete t.lastSyncLatencyInSeconds;
      else if (!Number.isInteger(seconds) || seconds < 0) throw new SimControlError('seconds must be a non-negative integer or null');
      else t.lastSyncLatencyInSeconds = seconds;
    },
    datasourceReachable({ datasourceId, reachable }) {
      dataSource(datasourceId).reachable = reachable === true;
    },
    datasourceCredentials({ datasourceId, expired }) {
      dataSource(datasourceId).credentialsExpired = bool(expired, true);
    },
    longRunningConnectionTests({ on }) {
      s().settings.longRunningConnectionTests = on === true;
    },
    removeDatasource({ datasourceId }) {
      const id = String(datasourceId).toLowerCase();
      const before = s().connections.length + s().gateways.reduce((n, g) => n + g.datasources.length, 0);
      for (const g of s().gateways) g.datasources = g.datasources.filter((d) => d.id.toLowerCase() !== id);
      s().connections = s().connections.filter((c) => c.id.toLowerCase() !== id);
      for (const w of s().workspaces) for (const i of w.items) if (i.gatewayDatasourceId?.toLowerCase() === id) delete i.gatewayDatasourceId;
      if (s().connections.length + s().gateways.reduce((n, g) => n + g.datasources.length, 0) === before) throw new SimControlError(`no data source ${datasourceId}`);
    },
    scheduledRefreshes({ on }) {
      s().settings.scheduledRefreshes = on === true;
      // Runs start from now on: slots passed while it was off never ran.
      for (const w of s().workspaces) for (const i of w.items) if (i.type === 'SemanticModel') i.scheduleRunUntil = deps.now();
    },
    refreshSchedule({ datasetId, days, times, enabled, localTimeZoneId }) {
      const i = model(datasetId);
      const was = i.refreshSchedule ?? { days: [], times: [], enabled: false, localTimeZoneId: 'UTC' };
      if (days !== undefined && (!Array.isArray(days) || days.some((d) => !WEEK_DAYS.includes(d)))) throw new SimControlError(`days must be a list of ${WEEK_DAYS.join(', ')}`);
      if (times !== undefined && (!Array.isArray(times) || times.some((t) => typeof t !== 'string' || !/^([01]\d|2[0-3]):[0-5]\d$/.test(t)))) throw new SimControlError('times must be a list of HH:MM');
      i.refreshSchedule = { days: days ?? was.days, times: times ?? was.times, enabled: enabled === undefined ? was.enabled : enabled === true, localTimeZoneId: localTimeZoneId ?? was.localTimeZoneId };
    },
    skipScheduledRefresh({ datasetId, count }) {
      if (count !== undefined && (!Number.isInteger(count) || count < 0)) throw new SimControlError('count must be a non-negative integer');
      model(datasetId).skipSlots = count ?? 1;
    },
    lateScheduledRefresh({ datasetId, minutes }) {
      if (!Number.isInteger(minutes) || minutes < 0) throw new SimControlError('minutes must be a non-negative integer');
      model(datasetId).lateMinutes = minutes;
    },
    mirroredTableSync({ itemId, table, lastSyncDateTime }) {
      const i = item(itemId);
      const t = i.mirroring?.tables.find((x) => x.sourceTableName === table);
      if (!t) throw new SimControlError(`no mirrored table ${table} in ${itemId}`);
      const at = lastSyncDateTime === undefined ? deps.now() : Date.parse(lastSyncDateTime);
      if (!Number.isFinite(at)) throw new SimControlError('lastSyncDateTime must be an ISO date-time');
      t.lastSyncDateTime = new Date(at).toISOString();
    },
    reset() {
      deps.reset();
    },
  };
}

/** Operation names the HTTP control API accepts. */
export const CONTROL_OPERATIONS = [
  'gatewayOffline',
  'memberOffline',
  'gatewayUpgradeRequired',
  'capacityState',
  'refuseTokens',
  'adminApisForbidden',
  'workspaceMembership',
  'costScopeForbidden',
  'armReadForbidden',
  'capacitySku',
  'metricsThrottled',
  'throttle',
  'hugeResponse',
  'garbageResponse',
  'longRunningStatusChecks',
  'refreshResult',
  'jobResult',
  'finishJob',
  'jobSchedule',
  'mirroringStatus',
  'mirroringLag',
  'datasourceReachable',
  'datasourceCredentials',
  'longRunningConnectionTests',
  'removeDatasource',
  'scheduledRefreshes',
  'refreshSchedule',
  'skipScheduledRefresh',
  'lateScheduledRefresh',
  'mirroredTableSync',
  'capacityLoad',
  'capacityEvents',
  'eventhouseForbidden',
  'metricsAppVersion',
  'metricsAppForbidden',
  'workspaceRole',
  'reset',
] as const satisfies ReadonlyArray<keyof SimControl>;

/**
 * Changes the simulated tenant's state — the same operations in process (`sim.control`) and over
 * HTTP (`POST /_sim/{operation}` with the arguments as a JSON object).
 */
import type { Limits } from './limits.js';
import { refreshException } from './refresh-errors.js';
import { API_FAMILIES, type ApiFamily, type SimCapacityState, type SimItem, type SimState } from './types.js';

export class SimControlError extends Error {}

export interface Faults {
  /** Targets (family or path prefix) answered with a valid-looking JSON body of `bytes`. */
  huge: Map<string, number>;
  /** Path prefixes answered with a body that is not JSON. */
  garbage: Set<string>;
}

const REFRESH_STATUSES = ['Completed', 'Failed', 'Unknown', 'Disabled'] as const;
/** The service keeps about this many refreshes per semantic model. */
export const REFRESH_HISTORY_LENGTH = 60;

const CAPACITY_STATES: SimCapacityState[] = ['Active', 'Suspended', 'Paused', 'Inactive', 'ProvisionFailed', 'Provisioning'];

export interface SimControl {
  gatewayOffline(a: { gatewayId: string; offline?: boolean }): void;
  memberOffline(a: { gatewayId: string; memberId: string; offline?: boolean }): void;
  gatewayUpgradeRequired(a: { gatewayId: string; on?: boolean }): void;
  capacityState(a: { capacityId: string; state: SimCapacityState }): void;
  /** The token endpoint refuses the app (`invalid_client`: 401, `unauthorized`: 400 unauthorized_client). */
  refuseTokens(a: { on: boolean; kind?: 'invalid_client' | 'unauthorized' }): void;
  /** Tenant settings forbid the principal the read-only admin APIs (Power BI 401, Fabric 403). */
  adminApisForbidden(a: { on: boolean }): void;
  workspaceMembership(a: { workspaceId: string; member: boolean }): void;
  /** Cost Management read is missing at a scope ('subscriptions/{id}[/resourceGroups/{rg}]' or '*'). */
  costScopeForbidden(a: { scope: string; on: boolean }): void;
  /** The next `count` requests of the family answer 429 with Retry-After (a storm). */
  throttle(a: { family: ApiFamily; count: number; retryAfterSeconds?: number }): void;
  /** Answers to a family or path prefix become a `bytes`-long JSON body (null to stop). */
  hugeResponse(a: { target: string; bytes: number | null }): void;
  /** Answers under a path prefix are not JSON. */
  garbageResponse(a: { path: string; on: boolean }): void;
  /** Fabric gateway status checks answer 202 and a long-running operation. */
  longRunningStatusChecks(a: { on: boolean }): void;
  /**
   * Adds a refresh at the top of a semantic model's history (kept to the newest 60, like the
   * service). `finish: true` instead finishes the newest running (`Unknown`) refresh with `status`.
   */
  refreshResult(a: { datasetId: string; status: 'Completed' | 'Failed' | 'Unknown' | 'Disabled'; errorCode?: string; finish?: boolean }): void;
  /** Adds a job instance at the top of an item's runs. */
  jobResult(a: { itemId: string; status: 'NotStarted' | 'InProgress' | 'Completed' | 'Failed' | 'Cancelled' | 'Deduped'; errorCode?: string }): void;
  /** Sets a mirrored database's status, or one table's. */
  mirroringStatus(a: { itemId: string; status?: NonNullable<SimItem['mirroring']>['status']; table?: string; tableStatus?: NonNullable<SimItem['mirroring']>['tables'][number]['status'] }): void;
  datasourceReachable(a: { datasourceId: string; reachable: boolean }): void;
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
    for (const w of s().workspaces) {
      const i = w.items.find((x) => x.id.toLowerCase() === String(id).toLowerCase());
      if (i) return i;
    }
    throw new SimControlError(`no item ${id}`);
  };
  const bool = (v: unknown, dflt: boolean) => (v === undefined ? dflt : v === true);
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
      const c = s().capacities.find((x) => x.id.toLowerCase() === String(capacityId).toLowerCase() || x.armName === capacityId);
      if (!c) throw new SimControlError(`no capacity ${capacityId}`);
      c.state = state;
    },
    refuseTokens({ on, kind }) {
      if (kind !== undefined && kind !== 'invalid_client' && kind !== 'unauthorized') throw new SimControlError('kind must be invalid_client or unauthorized');
      s().settings.refuseTokens = on ? (kind ?? 'invalid_client') : null;
    },
    adminApisForbidden({ on }) {
      s().settings.adminApisForbidden = on === true;
    },
    workspaceMembership({ workspaceId, member }) {
      const w = s().workspaces.find((x) => x.id.toLowerCase() === String(workspaceId).toLowerCase());
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
    longRunningStatusChecks({ on }) {
      s().settings.longRunningStatusChecks = on === true;
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
        jobType: i.type === 'DataPipeline' ? 'Pipeline' : 'RunNotebook',
        invokeType: 'Manual',
        status,
        startTimeUtc: start,
        ...(status === 'Completed' || status === 'Failed' || status === 'Cancelled' ? { endTimeUtc: start } : {}),
        ...(status === 'Failed' ? { failureReason: { errorCode: errorCode ?? 'JobInstanceStatusFailed', message: 'The job failed.' } } : {}),
      });
      i.jobs.splice(100);
    },
    mirroringStatus({ itemId, status, table, tableStatus }) {
      const i = item(itemId);
      if (!i.mirroring) throw new SimControlError(`${itemId} is not a mirrored database`);
      if (status) i.mirroring.status = status;
      if (table !== undefined) {
        const t = i.mirroring.tables.find((x) => x.sourceTableName === table);
        if (!t) throw new SimControlError(`no table ${table}`);
        if (tableStatus) {
          t.status = tableStatus;
          if (tableStatus === 'Failed') t.errorCode = 'SourceTableNotAccessible';
          else delete t.errorCode;
        }
      }
    },
    datasourceReachable({ datasourceId, reachable }) {
      const d = s().gateways.flatMap((g) => g.datasources).find((x) => x.id.toLowerCase() === String(datasourceId).toLowerCase());
      if (!d) throw new SimControlError(`no data source ${datasourceId}`);
      d.reachable = reachable === true;
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
  'throttle',
  'hugeResponse',
  'garbageResponse',
  'longRunningStatusChecks',
  'refreshResult',
  'jobResult',
  'mirroringStatus',
  'datasourceReachable',
  'reset',
] as const satisfies ReadonlyArray<keyof SimControl>;

/**
 * The simulator's controls as callers see them: one operation per change of the tenant, the same
 * in process (`sim.control`) and over HTTP (`POST /_sim/{operation}`, CONTROL_OPERATIONS).
 */
import type { LoadStage } from './capacity-load.js';
import type { PoisonKind } from './eventhouse-faults.js';
import type { WorkspaceRole } from './fabric-items.js';
import type { TokenRefusalKind } from './token-refusals.js';
import type { ApiFamily, MetricsAppVersion, SimCapacityState, SimItem } from './types.js';

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
  /** Answers under a path prefix become 200 with `body`, JSON of a shape the API does not describe (null to stop). */
  oddResponse(a: { path: string; body: unknown }): void;
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
  /**
   * One Summary event of the capacity's last ended window lands in the Eventhouse now, poisoned:
   * `malformed` (its `data` is not JSON), `negative` (negative CU and percentages, −2,500 %, carry-forward
   * −9,000 budgets) or `huge` (capacityUnitMs 1e308).
   */
  eventhouseInject(a: { capacityId: string; kind: PoisonKind }): void;
  /** The next `count` queries (default 1) fail as Kusto does: `semantic` (400, SEM0100), `partial` (200 with HasErrors and OneApiErrors); null clears. */
  eventhouseFault(a: { kind: 'semantic' | 'partial' | null; count?: number }): void;
  /** The capacity's rows ingested in the next `windows` windows become visible to queries `lateMs` after their ingestion time. */
  eventhouseLateRows(a: { capacityId: string; windows: number; lateMs: number }): void;
  /** One Azure Monitor series publishes its minutes `lateMs` later than usual (the other on time); null metric clears. */
  metricSeriesLate(a: { metric: 'cpu_metric' | 'overload_metric' | null; lateMs?: number }): void;
  /** Every published point of one Azure Monitor series answers `value` (e.g. −5 or 1e308); null metric clears. */
  metricValue(a: { metric: 'cpu_metric' | 'overload_metric' | null; value?: number }): void;
  /** The Capacity Metrics app's model takes the names of this app version (METRICS_APP_VERSIONS; `v99` is unknown to every monitor). */
  metricsAppVersion(a: { version: MetricsAppVersion }): void;
  /** executeQueries on the app's model answers 401 (no Build permission, or the tenant setting off). */
  metricsAppForbidden(a: { on: boolean }): void;
  /** The service principal's role on a workspace it is a member of (Contributor by default; Viewer may not create items). */
  workspaceRole(a: { workspaceId: string; role: WorkspaceRole }): void;
  /**
   * Adds a record to the activity log: built from `activity`, `at` (ISO, default now), `fields`
   * (merged over the record's own, e.g. DatasetId, GatewayId) and `userId`; or `record` served as
   * given (a malformed one). `lateMinutes`: served only that long after `at`.
   */
  activityEvent(a: { activity?: string; at?: string; fields?: Record<string, unknown>; lateMinutes?: number; id?: string; record?: unknown; userId?: string }): void;
  /** Back to the generated state; limits, storms and faults cleared. */
  reset(): void;
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
  'oddResponse',
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
  'eventhouseInject',
  'eventhouseFault',
  'eventhouseLateRows',
  'metricSeriesLate',
  'metricValue',
  'metricsAppVersion',
  'metricsAppForbidden',
  'workspaceRole',
  'activityEvent',
  'reset',
] as const satisfies ReadonlyArray<keyof SimControl>;

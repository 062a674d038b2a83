/** Plain-data shapes of the tenant simulator: its options, its generated state, what it records. */
import type { TokenRefusalKind } from './token-refusals.js';
import type { EventhouseFault, SimCapacityLoad } from './load-types.js';

/** API families, as the monitoring core budgets them. */
export type ApiFamily = 'token' | 'powerbi' | 'powerbi-admin' | 'fabric' | 'fabric-admin' | 'arm' | 'cost' | 'kusto';
export const API_FAMILIES: readonly ApiFamily[] = ['token', 'powerbi', 'powerbi-admin', 'fabric', 'fabric-admin', 'arm', 'cost', 'kusto'];

export interface SimSizes {
  capacities?: number;
  workspaces?: number;
  gateways?: number;
  membersPerGateway?: number;
  costDays?: number;
  /** Fabric cloud connections (ShareableCloud, no gateway); default 0. */
  cloudConnections?: number;
  /** Tables of each generated mirrored database (default 3). */
  mirroredTables?: number;
  /**
   * Extra items that run (pipelines, notebooks, Spark job definitions, dataflows, copy jobs) per
   * workspace, with schedules and job instances; default 0 (the seeds of the other sizes are unchanged).
   */
  runnableItems?: number;
  /**
   * Semantic models per workspace (default 1, the one every workspace has). More are added after
   * the generated tenant from a random stream of their own, so the rest stays as generated.
   */
  modelsPerWorkspace?: number;
  /** Data pipelines per workspace added the same way (default 0), beside the generated second item. */
  pipelinesPerWorkspace?: number;
}

export interface TenantSimOptions {
  /** 0 = any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Host name in `origin` and in the links the simulator writes (nextLink, continuationUri, Location); default `host`. */
  advertisedHost?: string;
  /** PEM certificate and key the HTTPS server presents. */
  tls: { cert: string | Buffer; key: string | Buffer };
  tenantId?: string;
  clientId?: string;
  clientSecret?: string;
  /** SHA-1 or SHA-256 thumbprint (hex) of the certificate whose client assertions are accepted. */
  certificateThumbprint?: string;
  /** The certificate (PEM) whose key signs accepted client assertions. */
  certificatePem?: string;
  sizes?: SimSizes;
  /**
   * Generate the workspaces and their items lazily (src/tenant-sim/lazy-tenant.ts): derived from
   * their index when read, kept only once changed. For enterprise sizes (ENTERPRISE_SIZES); the
   * generated tenant differs from the eager one of the same sizes.
   */
  lazy?: boolean;
  /** Same seed, same tenant (ids, names, histories). Default 1. */
  seed?: number;
  /** Check every request against the committed vendor contracts; violations are recorded and answered 400. */
  strict?: boolean;
  /** Change state by itself every `everySeconds` (a gateway or member goes offline or back, a capacity is suspended or resumed). */
  chaos?: { everySeconds: number; onChange?: (change: string) => void } | false;
  /** Lifetime of issued access tokens; default 3599. */
  tokenLifetimeSeconds?: number;
  /** Items per page of Fabric lists (continuationToken); default 100. */
  fabricPageSize?: number;
  /** Items per page of the Fabric admin lists (workspaces, items); default 10,000 like the service. */
  fabricAdminPageSize?: number;
  /** Rows per page of Cost Management answers (nextLink); default 1000. */
  costPageRows?: number;
  /** The clock (tests); default Date.now. */
  now?: () => number;
}

/** Canonical capacity state; each API shows it in its own vocabulary. */
export type SimCapacityState = 'Active' | 'Suspended' | 'Paused' | 'Inactive' | 'ProvisionFailed' | 'Provisioning';

export interface SimCapacity {
  id: string;
  displayName: string;
  sku: string;
  region: string;
  state: SimCapacityState;
  admins: string[];
  /** ARM resource name and place. */
  armName: string;
  subscriptionId: string;
  resourceGroup: string;
}

export interface SimRefresh {
  requestId: string;
  refreshType: 'Scheduled' | 'OnDemand' | 'ViaApi';
  startTime: string;
  endTime?: string;
  /** Unknown = still running. */
  status: 'Completed' | 'Failed' | 'Unknown' | 'Disabled';
  serviceExceptionJson?: string;
  /** A scheduled run still going (status Unknown): when it completes (ISO). */
  completesAt?: string;
}

/** A semantic model's refresh schedule, as `GET …/refreshSchedule` answers it. */
export interface SimRefreshSchedule {
  days: string[];
  /** Local times `HH:MM` in `localTimeZoneId`. */
  times: string[];
  enabled: boolean;
  /** A Windows time-zone id, e.g. 'E. South America Standard Time'. */
  localTimeZoneId: string;
}

export interface SimJobInstance {
  id: string;
  jobType: string;
  invokeType: 'Scheduled' | 'Manual';
  status: 'NotStarted' | 'InProgress' | 'Completed' | 'Failed' | 'Cancelled' | 'Deduped';
  startTimeUtc: string;
  endTimeUtc?: string;
  failureReason?: { errorCode: string; message: string };
}

export interface SimMirroredTable {
  sourceSchemaName: string;
  sourceTableName: string;
  status: 'Initialized' | 'Snapshotting' | 'Replicating' | 'Reseeding' | 'Stopped' | 'Failed';
  processedRows: number;
  processedBytes: number;
  lastSyncDateTime: string;
  /** Seconds between the source's commit and the mirror's, as the platform reports it; absent when the source does not tell. */
  lastSyncLatencyInSeconds?: number;
  errorCode?: string;
}

/** A job schedule of an item (`…/jobs/{jobType}/schedules`). */
export interface SimJobSchedule {
  id: string;
  jobType: string;
  enabled: boolean;
}

export interface SimItem {
  id: string;
  type: 'SemanticModel' | 'DataPipeline' | 'MirroredDatabase' | 'Notebook' | 'SparkJobDefinition' | 'Dataflow' | 'CopyJob';
  displayName: string;
  workspaceId: string;
  /** Semantic models: refresh history, newest first. */
  refreshes: SimRefresh[];
  /** Items that run: job instances, newest first. */
  jobs: SimJobInstance[];
  /** Job schedules; when absent, an item with runs has one enabled daily schedule (the first sizes' behaviour). */
  schedules?: SimJobSchedule[];
  /** Mirrored databases. */
  mirroring?: {
    status: 'Initializing' | 'Initialized' | 'Starting' | 'Running' | 'Paused' | 'Stopping' | 'Stopped';
    tables: SimMirroredTable[];
    /** The database's mirroring failed: getMirroringStatus answers this error code beside its status. */
    errorCode?: string;
  };
  /** Gateway data source the semantic model is bound to, if any. */
  gatewayDatasourceId?: string;
  /** Semantic models: the refresh schedule (absent: the service's default answer). */
  refreshSchedule?: SimRefreshSchedule;
  /** Scheduled runs are materialized up to this instant (epoch ms). */
  scheduleRunUntil?: number;
  /** The next this many scheduled slots never start. */
  skipSlots?: number;
  /** The next scheduled run completes this many minutes after its slot. */
  lateMinutes?: number;
  /** The next scheduled run fails at its slot with this error code (failScheduledRefresh). */
  failNextSlot?: string;
  /** The schedule runs by itself even with the tenant's `scheduledRefreshes` off. */ runsSchedule?: boolean;
}

export interface SimWorkspace {
  id: string;
  name: string;
  capacityId: string | null;
  /** Whether the service principal is a member (non-admin APIs see only these). */
  member: boolean;
  items: SimItem[];
}

export interface SimGatewayMember {
  id: string;
  displayName: string;
  version: string;
  enabled: boolean;
  online: boolean;
}

export interface SimDatasource {
  id: string;
  gatewayId: string;
  datasourceName: string;
  datasourceType: string;
  connectionDetails: string;
  credentialType: 'Basic' | 'Windows' | 'Anonymous' | 'OAuth2' | 'Key' | 'SAS';
  /** False: the status check answers the data source's error. */
  reachable: boolean;
  /** The stored credentials expired or were revoked: checks answer the platform's credential error. */
  credentialsExpired?: boolean;
}

export interface SimGateway {
  id: string;
  displayName: string;
  version: string;
  online: boolean;
  upgradeRequired: boolean;
  /** Whether the principal may see the gateway in non-admin calls. */
  principalIsAdmin: boolean;
  members: SimGatewayMember[];
  datasources: SimDatasource[];
}

export interface SimConnection {
  id: string;
  displayName: string;
  gatewayId: string | null;
  connectivityType: 'ShareableCloud' | 'OnPremisesGateway';
  type: string;
  path: string;
  credentialType: 'Basic' | 'Windows' | 'Anonymous' | 'OAuth2' | 'Key';
  /**
   * Cloud connections only (a gateway connection answers for its gateway data source of the same
   * id): false = its test fails as unreachable; absent = reachable.
   */
  reachable?: boolean;
  /** Cloud connections only: the stored credentials expired. */
  credentialsExpired?: boolean;
}

export interface SimCostRow {
  /** YYYY-MM-DD */
  date: string;
  resourceId: string;
  resourceType: string;
  meter: string;
  meterCategory: string;
  meterSubCategory: string;
  serviceName: string;
  actual: number;
  amortized: number;
}

export interface SimSettings {
  /** Tenant setting: service principals may not use the read-only admin APIs. */
  adminApisForbidden: boolean;
  /** The token endpoint refuses the application (see TOKEN_REFUSALS in entra.ts). */
  refuseTokens: null | TokenRefusalKind;
  /** Scopes (lower case, no leading slash) where the principal lacks Cost Management read; '*' = all. */
  costScopesForbidden: string[];
  /** Scopes (lower case, no leading slash) where the principal lacks ARM read (no Reader / Monitoring Reader); '*' = all. */
  armReadForbidden?: string[];
  /** The next this many Azure Monitor metrics requests answer 529 (the metrics back-end throttling). */
  metricsThrottled?: number;
  /** One Azure Monitor series publishes its minutes this much later than the other (src/tenant-sim/eventhouse-faults.ts). */
  metricLate?: { metric: 'cpu_metric' | 'overload_metric'; ms: number } | null;
  /** Every published point of one Azure Monitor series answers this value (a poisoned series). */
  metricValue?: { metric: 'cpu_metric' | 'overload_metric'; value: number } | null;
  subscriptionId: string;
  resourceGroup: string;
  currency: string;
  /** Fabric gateway status checks answer 202 (long-running) instead of 200. */
  longRunningStatusChecks: boolean;
  /** Long-running status checks end `Failed` (LongRunningOperationStatus) instead of `Succeeded`. */
  longRunningFails: boolean;
  /** Fabric connection tests (POST …/testConnection) answer 202 (long-running) instead of 200. */
  longRunningConnectionTests?: boolean;
  /** Enabled refresh schedules run by themselves as time passes (src/tenant-sim/schedule.ts). */
  scheduledRefreshes?: boolean;
}

export interface SimState {
  tenantId: string;
  capacities: SimCapacity[];
  workspaces: SimWorkspace[];
  gateways: SimGateway[];
  connections: SimConnection[];
  costs: SimCostRow[];
  settings: SimSettings;
  /** The Eventhouse whose table an Eventstream fills with the capacities' events (src/tenant-sim/kusto.ts). */
  eventhouse?: { database: string; table: string; forbidden?: boolean; fault?: EventhouseFault | null };
  /** Each capacity's load model and the events computed from it (src/tenant-sim/capacity-load.ts). */
  loads?: Record<string, SimCapacityLoad>;
  /** The Capacity Metrics app's semantic model, answering executeQueries (src/tenant-sim/metrics-app.ts). */
  metricsApp?: SimMetricsApp;
  /** The activity log (activity-log.ts): when each record happened (ms), from when it is served (late events), the record as served. */
  activity?: { at: number; visibleAt: number; seq: number; record: unknown }[];
}

/** App versions whose model names the simulator serves; `v99` is one no monitor knows (every name changed). */
export const METRICS_APP_VERSIONS = ['v37', 'v40', 'v44', 'v47', 'v53', 'v65', 'v99'] as const;
export type MetricsAppVersion = (typeof METRICS_APP_VERSIONS)[number];

export interface SimMetricsApp {
  workspaceId: string;
  datasetId: string;
  version: MetricsAppVersion;
  /** The principal lacks Build on the model or the tenant setting is off: queries answer 401. */
  forbidden?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  family: ApiFamily | 'control' | 'unknown';
  /** Matched vendor operation, when the contracts know it. */
  operationId?: string;
  at: number;
  status: number;
  /** Answered 429 (a storm, a documented cap, or the ARM read bucket). */
  throttled: boolean;
  /** Why it was throttled: 'storm', 'cap:<name>' or 'arm-bucket'. */
  throttleReason?: string;
}

export interface CallFilter {
  family?: ApiFamily;
  method?: string;
  /** Path prefix or pattern. */
  path?: string | RegExp;
  operationId?: string;
  throttled?: boolean;
  status?: number;
  since?: number;
}

/** A Power BI scanner scan (scanner.ts). */
export interface SimScan {
  id: string;
  createdAt: number;
  workspaceIds: string[];
  polls: number;
  lineage: boolean;
  datasourceDetails: boolean;
  /** The scan ends Failed instead of Succeeded. */
  fails: boolean;
}

/** What the scanner remembers between requests (per simulator). */
export interface ScannerBook {
  scans: Map<string, SimScan>;
  /** Workspaces the service leaves out of scan results. */
  omitted: Set<string>;
  /** The next this many scans fail. */
  failNext: number;
  /** Workspace id (lower case) → when it last changed (epoch ms); absent: when the simulator started. */
  modifiedAt: Map<string, number>;
  startedAt: number;
}

// The capacity load's shapes live in load-types.ts; they are part of this module's surface.
export type * from './load-types.js';

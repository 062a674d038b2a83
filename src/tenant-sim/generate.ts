/**
 * Generates a tenant deterministically from a seed: same seed and sizes, same ids, names,
 * histories and costs. Dates are relative to `now` rounded down to the day, so a test that pins
 * the clock gets identical state too.
 */
import { createHash } from 'node:crypto';
import { addRunnableItems } from './jobs.js';
import { refreshException } from './refresh-errors.js';
import type { MetricsAppVersion, SimCapacity, SimConnection, SimCostRow, SimGateway, SimItem, SimMetricsApp, SimSizes, SimState, SimWorkspace } from './types.js';

export const DEFAULT_SIZES: Required<SimSizes> = { capacities: 3, workspaces: 20, gateways: 4, membersPerGateway: 2, costDays: 90, cloudConnections: 0, mirroredTables: 3, runnableItems: 0, modelsPerWorkspace: 1, pipelinesPerWorkspace: 0 };

/** mulberry32: small, fast, good enough for test data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function guidFrom(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const SKUS = ['F2', 'F4', 'F8', 'F16', 'F32', 'F64', 'F128'];
const SKU_CU: Record<string, number> = { F2: 2, F4: 4, F8: 8, F16: 16, F32: 32, F64: 64, F128: 128 };
const REGIONS = ['Brazil South', 'East US', 'West Europe', 'Brazil South', 'North Europe'];
const DATASOURCE_TYPES: Array<[string, string]> = [
  ['Sql', '{"server":"sql-erp.corp.local","database":"erp"}'],
  ['Oracle', '{"server":"ora-fin.corp.local:1521/FIN"}'],
  ['File', '{"path":"\\\\\\\\files.corp.local\\\\exports"}'],
  ['SharePointList', '{"url":"https://corp.sharepoint.com/sites/ops"}'],
];
/** Error codes of generated failed refreshes (picked by position, so the random sequence is unchanged). */
const GENERATED_REFRESH_ERRORS = ['ModelRefreshFailed_CredentialsNotSpecified', 'DM_GWPipeline_Client_GatewayUnreachable', 'Timeout', 'ModelRefresh_ShortMessage_ProcessingError'];
/** Price of one capacity unit hour, in the billing currency (simulated). */
const CU_HOUR_PRICE = 0.95;
export const OVERAGE_METER = 'Fabric Capacity Overage Capacity Usage CU';

function dayString(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function generateTenant(opts: { seed: number; sizes: Required<SimSizes>; tenantId: string; now: number }): SimState {
  const rand = seededRandom(opts.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const today = Math.floor(opts.now / 86_400_000) * 86_400_000;
  const subscriptionId = guidFrom(rand);
  const resourceGroup = 'rg-analytics';

  // Steps draw from the one random stream in this order; reordering them changes every id.
  const rng: Rng = { rand, pick };
  const capacities = capacitiesStep(opts.sizes, rng, subscriptionId, resourceGroup);
  const gateways = gatewaysStep(opts.sizes, rng);

  const workspaces = workspacesStep(opts.sizes, rng, capacities, gateways, today, opts.now);

  // Their own random sequence: the items above stay what they were for every seed.
  const runnableRand = seededRandom((opts.seed ^ 0x10b5) >>> 0);
  addRunnableItems(workspaces, opts.sizes.runnableItems, { rand: runnableRand, guid: () => guidFrom(runnableRand) }, opts.now);
  addBulkItems(workspaces, gateways, opts.sizes, opts.seed, today);

  const connections = connectionsStep(gateways, opts.seed, opts.sizes.cloudConnections ?? 0);
  const costs = costsStep(opts.sizes.costDays, capacities, rng, today, subscriptionId, resourceGroup);

  return {
    tenantId: opts.tenantId,
    capacities,
    workspaces,
    gateways,
    connections,
    costs,
    eventhouse: { database: 'CapacityMonitoring', table: 'CapacityEvents' },
    loads: {},
    metricsApp: metricsAppOf(opts.tenantId),
    settings: {
      adminApisForbidden: false,
      refuseTokens: null,
      costScopesForbidden: [],
      subscriptionId,
      resourceGroup,
      currency: 'BRL',
      longRunningStatusChecks: false,
      longRunningFails: false,
      scheduledRefreshes: false,
    },
  };
}

const CLOUD_CONNECTION_TYPES: Array<[string, string, SimConnection['credentialType']]> = [
  ['AzureSqlDatabase', 'sql-vendas.database.windows.net;vendas', 'OAuth2'],
  ['SharePoint', 'https://corp.sharepoint.com/sites/financeiro', 'OAuth2'],
  ['AzureBlobs', 'https://stcorpdados.blob.core.windows.net', 'Key'],
  ['Web', 'https://api.parceiro.example/v2', 'Basic'],
];

/**
 * Cloud connections (no gateway). Drawn from their own random sequence so that adding them
 * leaves every other generated id unchanged.
 */
function cloudConnections(seed: number, count: number): SimConnection[] {
  const rand = seededRandom(seed ^ 0x5eed_c0de);
  return Array.from({ length: count }, (_, i) => {
    const [type, path, credentialType] = CLOUD_CONNECTION_TYPES[i % CLOUD_CONNECTION_TYPES.length]!;
    return { id: guidFrom(rand), displayName: `cloud-${type.toLowerCase()}-${i + 1}`, gatewayId: null, connectivityType: 'ShareableCloud' as const, type, path, credentialType };
  });
}

/**
 * The large tenants of the benchmarks (20,000 semantic models, 5,000 pipelines): extra models
 * and pipelines per workspace, appended after the generated items and drawn from a random stream
 * of their own, so a tenant generated with the default sizes is unchanged.
 */
function addBulkItems(workspaces: SimWorkspace[], gateways: SimGateway[], sizes: Required<SimSizes>, seed: number, today: number): void {
  const extraModels = Math.max(0, sizes.modelsPerWorkspace - 1);
  const pipelines = Math.max(0, sizes.pipelinesPerWorkspace);
  if (extraModels === 0 && pipelines === 0) return;
  const rand = seededRandom(seed ^ 0x3c7a11);
  let modelNo = 0;
  let pipelineNo = 0;
  for (const ws of workspaces) {
    for (let m = 0; m < extraModels; m++) {
      modelNo += 1;
      const model: SimItem = {
        id: guidFrom(rand),
        type: 'SemanticModel',
        displayName: `Model ${modelNo}`,
        workspaceId: ws.id,
        refreshes: Array.from({ length: 3 }, (_, r) => {
          const start = today - (r + 1) * 86_400_000 + 6 * 3_600_000;
          return {
            requestId: guidFrom(rand),
            refreshType: 'Scheduled' as const,
            startTime: new Date(start).toISOString(),
            endTime: new Date(start + 300_000).toISOString(),
            status: 'Completed' as const,
          };
        }),
        jobs: [],
      };
      const ds = gateways.length > 0 && rand() < 0.5 ? gateways[Math.floor(rand() * gateways.length)]!.datasources[0] : undefined;
      if (ds) model.gatewayDatasourceId = ds.id;
      ws.items.push(model);
    }
    for (let p = 0; p < pipelines; p++) {
      pipelineNo += 1;
      ws.items.push({
        id: guidFrom(rand),
        type: 'DataPipeline',
        displayName: `Pipeline ${pipelineNo}`,
        workspaceId: ws.id,
        refreshes: [],
        jobs: Array.from({ length: 3 }, (_, j) => {
          const start = today - (j + 1) * 86_400_000 + 2 * 3_600_000;
          return {
            id: guidFrom(rand),
            jobType: 'Pipeline',
            invokeType: 'Scheduled' as const,
            status: 'Completed' as const,
            startTimeUtc: new Date(start).toISOString(),
            endTimeUtc: new Date(start + 120_000).toISOString(),
          };
        }),
      });
    }
  }
}

/**
 * The Capacity Metrics app installed in its own workspace. Its IDs and app version follow from the
 * tenant ID (not the seeded random source, so adding it changed no other generated value); the
 * control API's `metricsAppVersion` sets another version.
 */
function metricsAppOf(tenantId: string): SimMetricsApp {
  const id = (label: string) => {
    const h = createHash('sha256').update(`${tenantId}/${label}`).digest('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };
  const versions: MetricsAppVersion[] = ['v37', 'v47', 'v53', 'v65'];
  const version = versions[Number.parseInt(id('version').slice(0, 2), 16) % versions.length]!;
  return { workspaceId: id('metrics-app-workspace'), datasetId: id('metrics-app-model'), version };
}

/** The tenant's one seeded random stream and a picker over it, shared by the generation steps. */
interface Rng { rand: () => number; pick: <T>(list: readonly T[]) => T }

/** Capacities: one guid, SKU and region each, in capacity order. */
function capacitiesStep(sizes: Required<SimSizes>, rng: Rng, subscriptionId: string, resourceGroup: string): SimCapacity[] {
  return Array.from({ length: sizes.capacities }, (_, i) => {
    const n = String(i + 1).padStart(3, '0');
    return {
      id: guidFrom(rng.rand).toUpperCase(),
      displayName: `Capacity ${n}`,
      sku: rng.pick(SKUS),
      region: rng.pick(REGIONS),
      state: 'Active',
      admins: [`admin${n}@contoso.example`],
      armName: `fabriccap${n}`,
      subscriptionId,
      resourceGroup,
    };
  });
}

/** Gateways with their members and two datasources each, in gateway order. */
function gatewaysStep(sizes: Required<SimSizes>, rng: Rng): SimGateway[] {
  return Array.from({ length: sizes.gateways }, (_, g) => {
    const id = guidFrom(rng.rand);
    const version = rng.pick(['3000.250.5', '3000.246.4', '3000.242.8']);
    return {
      id,
      displayName: `Gateway ${String(g + 1).padStart(3, '0')}`,
      version,
      online: true,
      upgradeRequired: false,
      principalIsAdmin: true,
      members: Array.from({ length: sizes.membersPerGateway }, (_, m) => ({
        id: guidFrom(rng.rand),
        displayName: `gw${g + 1}-node${m + 1}`,
        version,
        enabled: true,
        online: true,
      })),
      datasources: Array.from({ length: 2 }, (_, d) => {
        const [datasourceType, connectionDetails] = rng.pick(DATASOURCE_TYPES);
        return {
          id: guidFrom(rng.rand),
          gatewayId: id,
          datasourceName: `ds-${g + 1}-${d + 1}`,
          datasourceType,
          connectionDetails,
          credentialType: rng.pick(['Basic', 'Windows', 'OAuth2'] as const),
          reachable: true,
        };
      }),
    };
  });
}

/** Workspaces, each with its semantic model and a second item, in workspace order. */
function workspacesStep(sizes: Required<SimSizes>, rng: Rng, capacities: SimCapacity[], gateways: SimGateway[], today: number, now: number): SimWorkspace[] {
  const { rand } = rng;
  return Array.from({ length: sizes.workspaces }, (_, w) => {
    const id = guidFrom(rand);
    const capacity = capacities.length > 0 && rand() < 0.9 ? capacities[w % capacities.length]! : null;
    const model = workspaceModel(w, id, rng, gateways, today, now);
    const second = workspaceSecondItem(w, id, rng, sizes.mirroredTables, today);
    return { id, name: `Workspace ${String(w + 1).padStart(4, '0')}`, capacityId: capacity?.id ?? null, member: true, items: [model, second] };
  });
}

/** A workspace's semantic model: three days of scheduled refreshes, a schedule, maybe a gateway data source. */
function workspaceModel(w: number, workspaceId: string, rng: Rng, gateways: SimGateway[], today: number, now: number): SimItem {
  const { rand, pick } = rng;
  const model: SimItem = {
    id: guidFrom(rand),
    type: 'SemanticModel',
    displayName: `Sales model ${w + 1}`,
    workspaceId,
    refreshes: Array.from({ length: 3 }, (_, r) => {
      const start = today - (r + 1) * 86_400_000 + 6 * 3_600_000;
      const failed = rand() < 0.05;
      return {
        requestId: guidFrom(rand),
        refreshType: 'Scheduled' as const,
        startTime: new Date(start).toISOString(),
        endTime: new Date(start + 300_000).toISOString(),
        status: failed ? ('Failed' as const) : ('Completed' as const),
        ...(failed ? { serviceExceptionJson: refreshException(GENERATED_REFRESH_ERRORS[(w + r) % GENERATED_REFRESH_ERRORS.length]!) } : {}),
      };
    }),
    jobs: [],
    // Derived from the index, not the random stream, so other generated data keeps its seed.
    refreshSchedule: {
      days: w % 3 === 2 ? ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] : ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
      times: w % 2 === 0 ? ['06:00'] : ['06:00', '18:00'],
      enabled: w % 5 !== 4,
      localTimeZoneId: w % 4 === 3 ? 'UTC' : 'E. South America Standard Time',
    },
    scheduleRunUntil: now,
  };
  const ds = gateways.length > 0 && rand() < 0.5 ? pick(gateways).datasources[0] : undefined;
  if (ds) model.gatewayDatasourceId = ds.id;
  return model;
}

/** A workspace's second item: a pipeline or notebook with three days of runs, or a mirrored database. */
function workspaceSecondItem(w: number, workspaceId: string, rng: Rng, mirroredTables: number, today: number): SimItem {
  const { rand, pick } = rng;
  const kind = pick(['DataPipeline', 'MirroredDatabase', 'Notebook'] as const);
  const second: SimItem = { id: guidFrom(rand), type: kind, displayName: `${kind} ${w + 1}`, workspaceId, refreshes: [], jobs: [] };
  if (kind === 'MirroredDatabase') {
    second.mirroring = {
      status: 'Running',
      tables: Array.from({ length: mirroredTables }, (_, t) => ({
        sourceSchemaName: 'dbo',
        sourceTableName: `table_${t + 1}`,
        status: 'Replicating' as const,
        processedRows: Math.floor(rand() * 1_000_000),
        processedBytes: Math.floor(rand() * 100_000_000),
        lastSyncDateTime: new Date(today - 600_000).toISOString(),
        // A healthy replication lag; not drawn from `rand`, so the rest of the tenant stays as it was.
        lastSyncLatencyInSeconds: 15 + 5 * (t % 6),
      })),
    };
  } else {
    second.jobs = Array.from({ length: 3 }, (_, j) => {
      const start = today - (j + 1) * 86_400_000 + 2 * 3_600_000;
      return {
        id: guidFrom(rand),
        jobType: kind === 'DataPipeline' ? 'Pipeline' : 'RunNotebook',
        invokeType: 'Scheduled' as const,
        status: 'Completed' as const,
        startTimeUtc: new Date(start).toISOString(),
        endTimeUtc: new Date(start + 120_000).toISOString(),
      };
    });
  }
  return second;
}

/** A connection per gateway data source, then the cloud connections (their own random sequence). */
function connectionsStep(gateways: SimGateway[], seed: number, cloudCount: number): SimConnection[] {
  const connections: SimConnection[] = gateways.flatMap((g) =>
    g.datasources.map((d) => ({
      id: d.id,
      displayName: d.datasourceName,
      gatewayId: g.id,
      connectivityType: 'OnPremisesGateway' as const,
      type: d.datasourceType,
      path: d.connectionDetails,
      credentialType: d.credentialType === 'SAS' ? ('Key' as const) : d.credentialType,
    })),
  );
  connections.push(...cloudConnections(seed, cloudCount));
  return connections;
}

/** Daily cost rows per capacity (usage, and an overage on about one day in ten), oldest day first. */
function costsStep(costDays: number, capacities: SimCapacity[], rng: Rng, today: number, subscriptionId: string, resourceGroup: string): SimCostRow[] {
  const { rand } = rng;
  const costs: SimCostRow[] = [];
  for (let d = costDays; d >= 1; d--) {
    const date = dayString(today - d * 86_400_000);
    for (const c of capacities) {
      const cu = SKU_CU[c.sku] ?? 2;
      const base = Math.round(cu * 24 * CU_HOUR_PRICE * 100) / 100;
      const resourceId = `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Fabric/capacities/${c.armName}`;
      const common = { date, resourceId, resourceType: 'microsoft.fabric/capacities', meterCategory: 'Microsoft Fabric', meterSubCategory: 'Fabric Capacity', serviceName: 'Microsoft Fabric' };
      // Reserved capacity: amortized cost spreads the reservation; actual cost is zero on most days.
      costs.push({ ...common, meter: 'Fabric Capacity Usage CU', actual: base, amortized: Math.round(base * 0.6 * 100) / 100 });
      if (rand() < 0.1) {
        const overage = Math.round(rand() * cu * 2 * CU_HOUR_PRICE * 100) / 100;
        costs.push({ ...common, meter: OVERAGE_METER, actual: overage, amortized: overage });
      }
    }
  }
  return costs;
}

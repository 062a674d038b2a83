/**
 * /metrics gauges of the monitoring core, read from the database at scrape time (so any
 * instance reports every collector, whoever ran it): per (org, tenant, collector) the last run,
 * last success, next run, duration, calls, throttled calls, whether the last run failed and
 * whether it runs now; per (tenant directory, API family) the calls of the last hour against
 * the hourly cap we keep; per tenant connection and budget key (family, or an endpoint the platform
 * caps per tenant) the calls of the last hour and the cap Vigia allows itself there (its share,
 * lowered after a 429); per rotating collector the last full rotation and its hot/cold counts.
 */
import { Gauge } from 'prom-client';
import type { AppContext } from '../context.js';
import { registry } from '../metrics.js';
import { HOURLY_CAPS, callsInLastHour, type ApiFamily } from './platform/budget.js';
import { readAllRotations } from './engine/rotation-status.js';
import { budgetViewOf, readBudgetUseOf } from './platform/budget-view.js';
import { readAllScanProgress } from './sources/scanner/scan-catalog.js';

type Source = Pick<AppContext, 'db' | 'clock'>;
let source: Source | null = null;

const LABELS = ['org', 'tenant', 'collector'] as const;

/**
 * prom-client collects every metric of a scrape concurrently: each gauge's collect awaits the
 * same single read, so they all report one consistent snapshot.
 */
let pending: Promise<void> | null = null;
function refreshOnce(): Promise<void> {
  pending ??= collectAll().finally(() => {
    pending = null;
  });
  return pending;
}

function gauge(name: string, help: string, labelNames: readonly string[] = LABELS): Gauge<string> {
  return (
    (registry.getSingleMetric(name) as Gauge<string> | undefined) ??
    new Gauge({ name, help, labelNames, registers: [registry], collect: refreshOnce })
  );
}

const seconds = (d: Date | null) => (d ? new Date(d).getTime() / 1000 : 0);

let gauges: Record<string, Gauge<string>> | null = null;

function ensureGauges(): Record<string, Gauge<string>> {
  if (gauges) return gauges;
  gauges = {
    lastRun: gauge('vigia_collector_last_run_timestamp_seconds', 'When the collector last ran (0: never)'),
    lastSuccess: gauge('vigia_collector_last_success_timestamp_seconds', 'When the collector last ran without error (0: never)'),
    nextRun: gauge('vigia_collector_next_run_timestamp_seconds', 'When the collector runs next'),
    duration: gauge('vigia_collector_last_duration_seconds', 'Duration of the last run'),
    calls: gauge('vigia_collector_last_calls', 'Vendor API calls of the last run'),
    throttled: gauge('vigia_collector_last_throttled_calls', 'Calls of the last run answered 429'),
    polled: gauge('vigia_collector_last_polled_resources', 'Resources the last run read (collectors that read resources one by one)'),
    deferred: gauge('vigia_collector_last_deferred_resources', 'Due resources the last run left for a later run'),
    failed: gauge('vigia_collector_last_run_failed', '1 when the last run ended with an error'),
    running: gauge('vigia_collector_running', '1 while an instance holds the lease of the collector'),
    apiCalls: gauge('vigia_tenant_api_calls_last_hour', 'Vendor API calls of the last 60 minutes per tenant directory and API family', ['directory', 'family']),
    apiCap: gauge('vigia_tenant_api_hourly_cap', 'Hourly cap Vigia keeps per API family', ['family']),
    budgetCalls: gauge('vigia_tenant_api_budget_calls_last_hour', 'Calls of the last 60 minutes per tenant connection against each cap Vigia keeps (endpoint empty: the family)', ['org', 'tenant', 'family', 'endpoint']),
    budgetCap: gauge('vigia_tenant_api_budget_cap', 'Calls per hour Vigia allows itself per tenant connection: its share of an endpoint the platform caps per tenant (lowered for an hour after a 429), or its own family ceiling', ['org', 'tenant', 'family', 'endpoint']),
    rotationSeconds: gauge('vigia_collector_rotation_seconds', 'Seconds the last full rotation through the resources that take turns lasted (collectors that rotate, once one completed)'),
    rotationResources: gauge('vigia_collector_rotation_resources', 'Resources of the last run of a rotating collector: polled every run (hot) or taking turns (cold)', [...LABELS, 'kind']),
    scanWorkspaces: gauge('vigia_scan_workspaces', 'Admin metadata scanning: workspaces known (listed), described by a scan, and queued for one', ['org', 'tenant', 'kind']),
    scanLastIncremental: gauge('vigia_scan_last_incremental_timestamp_seconds', 'Admin metadata scanning: when the modified workspaces were last listed (0: never)', ['org', 'tenant']),
    scanLastFull: gauge('vigia_scan_last_full_timestamp_seconds', 'Admin metadata scanning: when the last completed full scan began (0: none yet)', ['org', 'tenant']),
  };
  return gauges;
}

async function collectAll(): Promise<void> {
  const g = ensureGauges();
  if (!source) return;
  const now = source.clock.now();
  const { rows } = await source.db.query<{
    org_id: string;
    tenant_ref: string;
    collector: string;
    enabled: boolean;
    next_run_at: Date;
    running: boolean;
    last_run_at: Date | null;
    last_success_at: Date | null;
    last_duration_ms: number | null;
    last_calls: number | null;
    last_throttled_calls: number | null;
    last_error: string | null;
    last_polled: number | null;
    last_deferred: number | null;
  }>(
    `SELECT org_id, tenant_ref, collector, enabled, next_run_at, coalesce(locked_until > now(), false) AS running, last_run_at, last_success_at, last_duration_ms,
            last_calls, last_throttled_calls, last_error, last_polled, last_deferred
       FROM collector_schedules WHERE enabled OR last_run_at IS NOT NULL`,
  );
  for (const k of ['lastRun', 'lastSuccess', 'nextRun', 'duration', 'calls', 'throttled', 'polled', 'deferred', 'failed', 'running', 'apiCalls', 'apiCap', 'budgetCalls', 'budgetCap', 'rotationSeconds', 'rotationResources', 'scanWorkspaces', 'scanLastIncremental', 'scanLastFull']) g[k]!.reset();
  for (const r of rows) {
    const l = { org: r.org_id, tenant: r.tenant_ref, collector: r.collector };
    g.lastRun!.set(l, seconds(r.last_run_at));
    g.lastSuccess!.set(l, seconds(r.last_success_at));
    if (r.enabled) g.nextRun!.set(l, seconds(r.next_run_at));
    g.duration!.set(l, (r.last_duration_ms ?? 0) / 1000);
    g.calls!.set(l, r.last_calls ?? 0);
    g.throttled!.set(l, r.last_throttled_calls ?? 0);
    if (r.last_polled !== null) g.polled!.set(l, r.last_polled);
    if (r.last_deferred !== null) g.deferred!.set(l, r.last_deferred);
    g.failed!.set(l, r.last_error ? 1 : 0);
    g.running!.set(l, r.running ? 1 : 0); // leases are kept on the database's clock
  }
  for (const c of await callsInLastHour(source.db, now)) g.apiCalls!.set({ directory: c.directoryId, family: c.family }, c.calls);
  for (const [family, cap] of Object.entries(HOURLY_CAPS) as [ApiFamily, number][]) g.apiCap!.set({ family }, cap);
  const { rows: tenants } = await source.db.query<{ id: string; org_id: string; tenant_id: string; cap_share_percent: number }>('SELECT id, org_id, tenant_id, cap_share_percent FROM tenants');
  const uses = await readBudgetUseOf(source.db, tenants.map((t) => t.tenant_id), now);
  for (const t of tenants) {
    for (const b of budgetViewOf(uses.get(t.tenant_id) ?? [], t.cap_share_percent)) {
      const l = { org: t.org_id, tenant: t.id, family: b.family, endpoint: b.endpoint ?? '' };
      g.budgetCalls!.set(l, b.callsLastHour);
      g.budgetCap!.set(l, b.cap);
    }
  }
  for (const r of await readAllRotations(source.db)) {
    const l = { org: r.orgId, tenant: r.tenantRef, collector: r.collector };
    if (r.lastFullRotationSeconds !== null) g.rotationSeconds!.set(l, r.lastFullRotationSeconds);
    g.rotationResources!.set({ ...l, kind: 'hot' }, r.hot);
    g.rotationResources!.set({ ...l, kind: 'cold' }, r.cold);
  }
  for (const p of await readAllScanProgress(source.db)) {
    const l = { org: p.orgId, tenant: p.tenantRef };
    g.scanWorkspaces!.set({ ...l, kind: 'known' }, p.known);
    g.scanWorkspaces!.set({ ...l, kind: 'described' }, p.described);
    g.scanWorkspaces!.set({ ...l, kind: 'queued' }, p.queued);
    g.scanLastIncremental!.set(l, p.lastIncrementalScanAt ? Date.parse(p.lastIncrementalScanAt) / 1000 : 0);
    g.scanLastFull!.set(l, p.lastFullScanAt ? Date.parse(p.lastFullScanAt) / 1000 : 0);
  }
}

/** Makes /metrics report the monitoring core from this context's database. */
export function registerMonitoringMetrics(ctx: Source): void {
  source = ctx;
  ensureGauges();
}

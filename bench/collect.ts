/**
 * `npm run bench -- collect`: the monitoring core against simulated tenants (issues 17 and 18).
 *
 * - Tenants: issue 17's (60 capacities, 5,000 workspaces, 500 gateways × 4 members) and issue 18's
 *   large one (20,000 semantic models, 5,000 pipelines: 1,000 workspaces × 20 models + 5 pipelines).
 * - Per collector of DEFAULT_COLLECTORS (whatever this build has): one full run, then a second
 *   (steady state): wall time, CPU (process.cpuUsage of this process — which also serves the
 *   simulator's TLS answers, so it is an upper bound of Vigia's own), vendor calls per API family
 *   (the shared budget's own records), and those calls projected to an hour at the collector's
 *   default interval against HOURLY_CAPS and the simulator's documented per-endpoint caps.
 * - Memory (RSS, heap used) after each of ten passes of every collector.
 * - Detection latency: a state change in the simulator → the signed delivery received at a local
 *   HTTPS receiver, p50/p99 over N trials per scenario (LATENCY_SCENARIOS: collector, break, fix —
 *   add a row for another collector), against the goal "interval + 5 s", measured with the real
 *   service workers (scheduler polling every second, dispatcher) on a tenant of the simulator's
 *   default size with the collectors at `--latency-interval` seconds.
 *
 * The budget caps are raised for the bench's runs (ten passes in a few minutes would otherwise
 * spend an hour's budget); what a run would spend per hour is computed, not enforced, here.
 *
 * - Issue 27's enterprise tenant (50,000 workspaces, 200,000 models, 20,000 pipelines, 2,000
 *   gateways × 3 members, 200 capacities), generated lazily by the simulator; its memory passes
 *   are left out here (the simulated-clock part measures its RSS).
 * - bench/collect-virtual.ts: every tenant at the default intervals on a simulated clock with the
 *   budgets enforced (picture, rotation, detection, rows), and the load collector on both engines.
 *
 * Flags (after `--`): --scale=F (multiplies every tenant size, e.g. 0.1 for a quick run),
 * --runs=N (memory passes, 10), --trials=N (latency trials per scenario, 10),
 * --latency-interval=S (5), --only=issue17,issue18,enterprise,latency,virtual,utilization (a comma
 * list), --virtual-hours=H (3), --virtual-trials=N (5), --virtual-step=S (10), --instance-heap-mib=M (the instance process's
 * --max-old-space-size; none by default), --virtual-scenarios=gateway,refreshes,capacity (the detection scenarios run; all by default), --no-write. With BENCH_COLLECTOR_MEMORY=1 in the
 * environment the instance process runs one collector at a time and logs each run's memory
 * (`[mem] <collector> … rss … heapPeak …`) on stderr: a diagnostic, not the measured set-up. Needs PostgreSQL
 * (VIGIA_BENCH_PG_URL or VIGIA_TEST_PG_URL; default postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
// @ts-expect-error plain ESM script without types
import { makeTestCerts } from '../scripts/make-test-certs.mjs';
import { loadConfig, type Config } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { createDestination } from '../src/delivery/destination-service.js';
import { HOURLY_CAPS, type ApiFamily } from '../src/monitoring/platform/budget.js';
import { COLLECTOR_DEFAULTS, type CollectorName } from '../src/monitoring/connection/collector-names.js';
import { DEFAULT_COLLECTORS } from '../src/monitoring/registry.js';
import { CollectorScheduler } from '../src/monitoring/scheduler.js';
import { createTenant } from '../src/monitoring/tenants.js';
import { createOrg } from '../src/orgs/orgs.js';
import { openContext, startService } from '../src/service.js';
import { DOCUMENTED_CAPS, ENTERPRISE_SIZES, startTenantSimulator, type SimSizes, type TenantSim } from '../src/tenant-sim/index.js';
import { measureUtilization, measureVirtual, pgliteConfig, renderVirtual, type UtilizationResult, type VirtualResult } from './collect-virtual.js';
import { createScratchDatabase, machine, percentile } from './kit.js';
import { writeResultsSection } from './results-file.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function flag(name: string): string | undefined {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`) || a === `--${name}`);
  if (!hit) return undefined;
  return hit.includes('=') ? hit.slice(hit.indexOf('=') + 1) : 'true';
}
const num = (name: string, dflt: number) => (flag(name) === undefined ? dflt : Number(flag(name)));

const SCALE = num('scale', 1);
const RUNS = num('runs', 10);
const TRIALS = num('trials', 10);
const LATENCY_INTERVAL = num('latency-interval', 5);
const ONLY = flag('only');
const only = (key: string) => !ONLY || ONLY.split(',').includes(key);
const VIRTUAL_HOURS = num('virtual-hours', 3);
const VIRTUAL_TRIALS = num('virtual-trials', 5);
const VIRTUAL_STEP = num('virtual-step', 10);
const FAMILIES = Object.keys(HOURLY_CAPS) as ApiFamily[];

const scaled = (s: SimSizes & { capacities: number; workspaces: number; gateways: number }): SimSizes => ({
  ...s,
  capacities: Math.max(1, Math.round(s.capacities * SCALE)),
  workspaces: Math.max(1, Math.round(s.workspaces * SCALE)),
  gateways: Math.max(1, Math.round(s.gateways * SCALE)),
});

const TENANTS: Array<{ key: string; label: string; sizes: SimSizes; lazy?: boolean }> = [
  { key: 'issue17', label: "issue 17's tenant", sizes: scaled({ capacities: 60, workspaces: 5000, gateways: 500, membersPerGateway: 4, costDays: 90 }) },
  {
    key: 'issue18',
    label: "issue 18's large tenant",
    sizes: scaled({ capacities: 20, workspaces: 1000, gateways: 20, membersPerGateway: 2, costDays: 90, modelsPerWorkspace: 20, pipelinesPerWorkspace: 5 }),
  },
  { key: 'enterprise', label: "issue 27's enterprise tenant (lazy)", sizes: scaled({ ...ENTERPRISE_SIZES }), lazy: true },
];

/** Raised for the bench (see the header): no run of it stops on a spent budget. */
const BENCH_CAPS = Object.fromEntries(FAMILIES.map((f) => [f, 1_000_000])) as Record<ApiFamily, number>;

interface LatencyScenario {
  collector: CollectorName;
  what: string;
  /** The notificationKind whose alert.opened delivery ends a trial. */
  kind: string;
  /** The resource of trial `i` (a different one each trial where the tenant has enough). */
  target(sim: TenantSim, i: number): { id: string; name: string };
  break(sim: TenantSim, id: string): void;
  fix(sim: TenantSim, id: string): void;
  /**
   * The tenant connection's mode (default admin). Refreshes are measured in member mode: in admin
   * mode the refreshables list keeps to its share of the 200/h cap (a page every ~45 s whatever
   * the interval), which at the bench's 5 s interval would measure that spacing, not detection.
   */
  mode?: 'admin' | 'member';
  /**
   * The collector's interval in this scenario (default --latency-interval). A collector whose run
   * budget is a share of an hourly cap spread over its runs polls only a few resources per run at
   * 5 s; the refreshes row runs at 30 s, where the default tenant's models all fit in one run.
   */
  intervalSeconds?: number;
}

/** Detection-latency scenarios: one row per (collector, break, fix). */
export const LATENCY_SCENARIOS: LatencyScenario[] = [
  {
    collector: 'gateway',
    what: 'gateway goes offline',
    kind: 'GatewayOffline',
    target: (sim, i) => {
      const g = sim.state.gateways[i % sim.state.gateways.length]!;
      return { id: g.id, name: g.displayName };
    },
    break: (sim, id) => sim.control.gatewayOffline({ gatewayId: id, offline: true }),
    fix: (sim, id) => sim.control.gatewayOffline({ gatewayId: id, offline: false }),
  },
  {
    collector: 'capacity',
    what: 'capacity is suspended',
    kind: 'CapacityNotActive',
    target: (sim, i) => {
      const c = sim.state.capacities[i % sim.state.capacities.length]!;
      return { id: c.id, name: c.displayName };
    },
    break: (sim, id) => sim.control.capacityState({ capacityId: id, state: 'Suspended' }),
    fix: (sim, id) => sim.control.capacityState({ capacityId: id, state: 'Active' }),
  },
  {
    collector: 'refreshes',
    what: 'refresh of a scheduled semantic model fails (member mode)',
    mode: 'member',
    intervalSeconds: 30,
    kind: 'RefreshFailed',
    // Models on a capacity (the admin refreshables list shows those) and behind no gateway (no root cause to wait for).
    target: (sim, i) => {
      const models = sim.state.workspaces
        .filter((w) => w.capacityId !== null)
        .flatMap((w) => w.items.filter((m) => m.type === 'SemanticModel' && !m.gatewayDatasourceId && m.refreshSchedule?.enabled !== false));
      const m = models[i % models.length]!;
      return { id: m.id, name: m.displayName };
    },
    break: (sim, id) => sim.control.refreshResult({ datasetId: id, status: 'Failed', errorCode: 'ModelRefresh_ShortMessage_ProcessingError' }),
    fix: (sim, id) => sim.control.refreshResult({ datasetId: id, status: 'Completed' }),
  },
];

function benchConfig(url: string): Config {
  return {
    ...loadConfig({
      DATABASE_URL: url,
      VIGIA_SECRET_KEY: randomBytes(32).toString('base64'),
      VIGIA_DESTINATION_ALLOWLIST: '127.0.0.1',
      VIGIA_LOG_LEVEL: 'error',
      VIGIA_BASE_URL: 'https://vigia.example.test',
    }),
    port: 0,
    host: '127.0.0.1',
  };
}

function tls() {
  const files = makeTestCerts() as { cert: string; key: string };
  return { cert: readFileSync(files.cert), key: readFileSync(files.key) };
}

async function connect(ctx: AppContext, orgId: string, sim: TenantSim, collectors: Record<string, { enabled: boolean; intervalSeconds?: number }>, mode: 'admin' | 'member' = 'admin') {
  return createTenant(ctx, orgId, {
    name: 'bench',
    tenantId: sim.tenantId,
    clientId: sim.clientId,
    credentials: { clientSecret: sim.clientSecret },
    mode,
    costScopes: [`/subscriptions/${sim.state.settings.subscriptionId}`],
    endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
    collectors,
  });
}

/** Calls per family the simulator received since a point of its request log (each one took a unit of the budget). */
function callsByFamily(sim: TenantSim, firstRequest: number): Record<ApiFamily, number> {
  const out = Object.fromEntries(FAMILIES.map((f) => [f, 0])) as Record<ApiFamily, number>;
  for (const r of sim.requests.slice(firstRequest)) out[r.family as ApiFamily]++;
  return out;
}

interface RunMeasure {
  collector: string;
  run: number;
  wallMs: number;
  cpuMs: number;
  calls: Record<ApiFamily, number>;
  documented: Record<string, number>;
  error: string | null;
}

async function runOnce(ctx: AppContext, sim: TenantSim, tenantRef: string, collectorName: string, run: number): Promise<RunMeasure> {
  const collector = DEFAULT_COLLECTORS.find((c) => c.name === collectorName)!;
  const scheduler = new CollectorScheduler(ctx, { collectors: [collector], caps: BENCH_CAPS, pollMs: 3_600_000, runTimeLimitMs: 20 * 60_000 });
  await ctx.db.query('UPDATE collector_schedules SET next_run_at = $2 WHERE tenant_ref = $1 AND collector = $3', [tenantRef, new Date(), collectorName]);
  const firstRequest = sim.requests.length;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await scheduler.pass();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  await scheduler.stop();
  const { rows } = await ctx.db.query<{ last_error: string | null }>('SELECT last_error FROM collector_schedules WHERE tenant_ref = $1 AND collector = $2', [tenantRef, collectorName]);
  const documented: Record<string, number> = {};
  for (const r of sim.requests.slice(firstRequest)) {
    const cap = DOCUMENTED_CAPS.find((c) => c.pattern.test(r.path.split('?')[0]!));
    if (cap) documented[cap.name] = (documented[cap.name] ?? 0) + 1;
  }
  return { collector: collectorName, run, wallMs, cpuMs: (used.user + used.system) / 1000, calls: callsByFamily(sim, firstRequest), documented, error: rows[0]?.last_error ?? null };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mib = (b: number) => `${fmt(b / 2 ** 20, 1)} MiB`;

interface TenantResult {
  label: string;
  sizes: SimSizes;
  runs: RunMeasure[];
  memory: Array<{ rss: number; heapUsed: number }>;
  memoryBaseline: { rss: number; heapUsed: number };
}

async function measureTenant(ctx: AppContext, spec: (typeof TENANTS)[number]): Promise<TenantResult> {
  process.stdout.write(`collect bench: ${spec.label} ${JSON.stringify(spec.sizes)}\n`);
  const sim = await startTenantSimulator({ port: 0, tls: tls(), sizes: spec.sizes, seed: 17, lazy: spec.lazy });
  try {
    const org = await createOrg(ctx, { name: `bench ${spec.key}` });
    const names = DEFAULT_COLLECTORS.map((c) => c.name);
    const tenant = await connect(ctx, org.id, sim, Object.fromEntries(names.map((n) => [n, { enabled: true }])));
    // The runs below are the only ones: no schedule is due unless a run makes it so.
    await ctx.db.query("UPDATE collector_schedules SET next_run_at = now() + interval '1 day' WHERE tenant_ref = $1", [tenant.id]);
    const runs: RunMeasure[] = [];
    for (const name of names) {
      for (const run of [1, 2]) {
        const m = await runOnce(ctx, sim, tenant.id, name, run);
        runs.push(m);
        process.stdout.write(`  ${name} run ${run}: ${fmt(m.wallMs)} ms wall, ${fmt(m.cpuMs)} ms CPU, ${FAMILIES.filter((f) => m.calls[f]).map((f) => `${f} ${m.calls[f]}`).join(', ')}${m.error ? `, error: ${m.error}` : ''}\n`);
      }
    }
    const gc = (globalThis as { gc?: () => void }).gc;
    sim.requests.length = 0;
    gc?.();
    const memoryBaseline = { rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed };
    const memory: TenantResult['memory'] = [];
    const all = new CollectorScheduler(ctx, { caps: BENCH_CAPS, pollMs: 3_600_000, runTimeLimitMs: 20 * 60_000, maxConcurrent: names.length });
    // The enterprise tenant's memory is read on the simulated clock (its passes here would spend hours' budgets in one go).
    for (let i = 0; i < (spec.lazy ? 0 : RUNS); i++) {
      // The simulator (same process) logs every request it answers: drop its log, so the figures are Vigia's.
      sim.requests.length = 0;
      await ctx.db.query('UPDATE collector_schedules SET next_run_at = $2 WHERE tenant_ref = $1 AND enabled', [tenant.id, new Date()]);
      await all.pass();
      gc?.();
      const m = process.memoryUsage();
      memory.push({ rss: m.rss, heapUsed: m.heapUsed });
      process.stdout.write(`  pass ${i + 1}/${RUNS}: rss ${mib(m.rss)}, heap ${mib(m.heapUsed)}\n`);
    }
    await all.stop();
    await ctx.db.query('UPDATE collector_schedules SET enabled = false WHERE tenant_ref = $1', [tenant.id]);
    return { label: spec.label, sizes: spec.sizes, runs, memory, memoryBaseline };
  } finally {
    await sim.stop();
  }
}

interface Delivery {
  at: number;
  event: string;
  sourceId: string;
}

async function startReceiver(): Promise<{ server: Server; port: number; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  const server = createServer(tls(), (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; alert: { sourceId: string } };
        deliveries.push({ at, event: body.event, sourceId: body.alert.sourceId.toLowerCase() });
      } catch {
        // not a delivery
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  return { server, port: typeof addr === 'object' && addr ? addr.port : 0, deliveries };
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

interface LatencyResult {
  scenario: LatencyScenario;
  latenciesMs: number[];
  missed: number;
}

async function measureLatency(config: Config): Promise<LatencyResult[]> {
  process.stdout.write(`collect bench: detection latency, ${TRIALS} trials per scenario, collectors every ${LATENCY_INTERVAL} s\n`);
  const sim = await startTenantSimulator({ port: 0, tls: tls(), seed: 18, sizes: { gateways: Math.max(4, TRIALS), capacities: Math.max(3, TRIALS) } });
  const receiver = await startReceiver();
  const service = await startService(config, { http: false, onAdminToken: () => undefined });
  try {
    const ctx = service.ctx;
    const names = DEFAULT_COLLECTORS.map((c) => c.name);
    // One organization and tenant connection per mode, each running only its scenarios' collectors.
    for (const mode of ['admin', 'member'] as const) {
      const used = new Set(LATENCY_SCENARIOS.filter((s) => (s.mode ?? 'admin') === mode).map((s) => s.collector));
      if (used.size === 0) continue;
      const org = await createOrg(ctx, { name: `bench latency (${mode})` });
      await createDestination(ctx, org.id, { name: 'bench receiver', kind: 'webhook', url: `https://127.0.0.1:${receiver.port}/` });
      const interval = (n: string) => LATENCY_SCENARIOS.find((s) => s.collector === n)?.intervalSeconds ?? LATENCY_INTERVAL;
      await connect(ctx, org.id, sim, Object.fromEntries(names.map((n) => [n, used.has(n) ? { enabled: true, intervalSeconds: interval(n) } : { enabled: false }])), mode);
    }
    // The first runs record the healthy state.
    const longest = Math.max(...LATENCY_SCENARIOS.map((s) => s.intervalSeconds ?? LATENCY_INTERVAL));
    await new Promise((r) => setTimeout(r, (longest + 3) * 1000));
    const results: LatencyResult[] = [];
    for (const scenario of LATENCY_SCENARIOS) {
      if (!names.includes(scenario.collector)) continue;
      const latenciesMs: number[] = [];
      let missed = 0;
      const every = scenario.intervalSeconds ?? LATENCY_INTERVAL;
      for (let i = 0; i < TRIALS; i++) {
        const target = scenario.target(sim, i);
        const id = target.id.toLowerCase();
        // A uniformly random moment within the collector's interval.
        await new Promise((r) => setTimeout(r, Math.random() * every * 1000));
        const t0 = Date.now();
        scenario.break(sim, target.id);
        const opened = await waitFor(() => receiver.deliveries.find((d) => d.at >= t0 && d.sourceId === id && d.event === 'alert.opened'), (every + 60) * 1000);
        if (opened) latenciesMs.push(opened.at - t0);
        else missed += 1;
        const t1 = Date.now();
        scenario.fix(sim, target.id);
        await waitFor(() => receiver.deliveries.find((d) => d.at >= t1 && d.sourceId === id && d.event === 'alert.recovered'), (every + 60) * 1000);
        process.stdout.write(`  ${scenario.collector} trial ${i + 1}: ${opened ? `${fmt(opened.at - t0)} ms` : 'missed'}\n`);
      }
      results.push({ scenario, latenciesMs, missed });
    }
    return results;
  } finally {
    await service.stop();
    await new Promise<void>((r) => receiver.server.close(() => r()));
    await sim.stop();
  }
}

function renderTenant(t: TenantResult): string[] {
  const lines = [`**${t.label}**`, '', `Sizes: ${JSON.stringify(t.sizes)}.`, ''];
  lines.push('| Collector | Run | Wall | CPU | Calls per family | Default interval | Per hour at that interval (cap) | Documented endpoint caps, per hour | Error |', '|---|---|---|---|---|---|---|---|---|');
  for (const m of t.runs) {
    const interval = COLLECTOR_DEFAULTS[m.collector as CollectorName];
    const perHour = 3600 / interval;
    const fams = FAMILIES.filter((f) => m.calls[f] > 0);
    const hourly = fams.map((f) => {
      const h = m.calls[f] * perHour;
      return `${f} ${fmt(h)} (${fmt(HOURLY_CAPS[f])})${h > HOURLY_CAPS[f] ? ' **over**' : ''}`;
    });
    const documented = Object.entries(m.documented).map(([name, n]) => {
      const cap = DOCUMENTED_CAPS.find((c) => c.name === name)!.perHour;
      const h = n * perHour;
      return `${name} ${fmt(h)} (${cap})${h > cap ? ' **over**' : ''}`;
    });
    lines.push(
      `| ${m.collector} | ${m.run === 1 ? 'first' : 'second'} | ${fmt(m.wallMs)} ms | ${fmt(m.cpuMs)} ms | ${fams.map((f) => `${f} ${m.calls[f]}`).join(', ') || '—'} | ${interval} s | ${hourly.join(', ') || '—'} | ${documented.join(', ') || '—'} | ${m.error ?? ''} |`,
    );
  }
  if (t.memory.length === 0) return [...lines, '', 'Memory passes left out for this tenant (see the simulated-clock table below).', ''];
  const rss = t.memory.map((m) => m.rss);
  const heap = t.memory.map((m) => m.heapUsed);
  lines.push(
    '',
    `Memory over ${t.memory.length} passes of every collector (after the runs above; ${(globalThis as { gc?: unknown }).gc ? 'after a forced GC' : 'no forced GC'}):` +
      ` before ${mib(t.memoryBaseline.rss)} RSS / ${mib(t.memoryBaseline.heapUsed)} heap; passes RSS ${t.memory.map((m) => fmt(m.rss / 2 ** 20)).join(', ')} MiB;` +
      ` heap ${t.memory.map((m) => fmt(m.heapUsed / 2 ** 20)).join(', ')} MiB` +
      ` (RSS min ${mib(Math.min(...rss))}, max ${mib(Math.max(...rss))}; heap last − first ${mib(heap.at(-1)! - heap[0]!)}).`,
    '',
  );
  return lines;
}

function renderLatency(results: LatencyResult[]): string[] {
  const lines = [
    '**Detection latency**',
    '',
    `State change in the simulator → signed delivery received by a local HTTPS receiver; the real service workers (scheduler polling every second, dispatcher); collectors every ${LATENCY_INTERVAL} s unless the row says otherwise, on a tenant of the simulator's default size; the change at a uniformly random moment of the interval; ${TRIALS} trials per scenario. Goal: p99 ≤ the collector's interval + 5 s.`,
    '',
    '| Collector | Break | Fix | Interval | Trials | p50 | p99 | max | Goal (interval + 5 s) met |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const every = r.scenario.intervalSeconds ?? LATENCY_INTERVAL;
    const goal = every + 5;
    const p99 = r.latenciesMs.length ? percentile(r.latenciesMs, 99) : Number.NaN;
    lines.push(
      `| ${r.scenario.collector} | ${r.scenario.what} | back to normal | ${every} s | ${r.latenciesMs.length}${r.missed ? ` (+${r.missed} missed)` : ''} | ${r.latenciesMs.length ? `${fmt(percentile(r.latenciesMs, 50) / 1000, 2)} s` : '—'} | ${r.latenciesMs.length ? `${fmt(p99 / 1000, 2)} s` : '—'} | ${r.latenciesMs.length ? `${fmt(Math.max(...r.latenciesMs) / 1000, 2)} s` : '—'} | ${r.missed === 0 && p99 <= goal * 1000 ? 'yes' : 'no'} |`,
    );
  }
  lines.push('');
  return lines;
}

export async function runCollectBench(): Promise<void> {
  const started = new Date();
  const load0 = loadavg()[0]!;
  const database = await createScratchDatabase();
  const config = benchConfig(database.url);
  const ctx = await openContext(config);
  const tenants: TenantResult[] = [];
  let latency: LatencyResult[] = [];
  const virtual: VirtualResult[] = [];
  const utilization: UtilizationResult[] = [];
  const virtualOpts = { hours: VIRTUAL_HOURS, trials: VIRTUAL_TRIALS, stepSeconds: VIRTUAL_STEP, instanceHeapMiB: flag('instance-heap-mib') === undefined ? undefined : num('instance-heap-mib', 0), scenarios: flag('virtual-scenarios')?.split(','), tls: tls(), log: (l: string) => process.stdout.write(`${l}\n`) };
  try {
    // `--only=<tenant>,virtual,no-runs`: the simulated-clock part alone.
    for (const spec of TENANTS) if (only(spec.key) && !ONLY?.split(',').includes('no-runs')) tenants.push(await measureTenant(ctx, spec));
    if (only('latency')) latency = await measureLatency(config);
    if (only('utilization')) {
      utilization.push(await measureUtilization(config, 'PostgreSQL', { ...virtualOpts, hours: 2, capacities: 10 }));
      const lite = pgliteConfig(config);
      try {
        utilization.push(await measureUtilization(lite.config, 'PGlite', { ...virtualOpts, hours: 2, capacities: 10 }));
      } finally {
        lite.drop();
      }
    }
    // `--only=virtual` alone: every tenant; with tenant keys beside it: those.
    const keyed = TENANTS.some((t) => ONLY?.split(',').includes(t.key));
    if (only('virtual')) for (const spec of TENANTS) if (!keyed || only(spec.key)) virtual.push(await measureVirtual(config, spec, virtualOpts));
  } finally {
    await ctx.db.close();
    await database.drop();
  }
  const argv = process.argv.slice(2).filter((a) => a.startsWith('--') && a !== '--');
  const section = [
    '## Monitoring collectors',
    '',
    `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}, PostgreSQL on the same machine;` +
      ` 1-minute load average ${fmt(load0, 2)} before and ${fmt(loadavg()[0]!, 2)} after. Command: \`npm run bench -- collect${argv.length ? ` ${argv.join(' ')}` : ''}\`.`,
    `Collectors measured (DEFAULT_COLLECTORS of this build): ${DEFAULT_COLLECTORS.map((c) => c.name).join(', ')}. The simulator runs in the same process (not strict),`,
    'so CPU includes its TLS and JSON work; calls are the budget records of the run (token calls included). Hourly budgets were raised for the bench;',
    'the per-hour figures are the run\'s calls × runs per hour at the default interval, set against the caps Vigia keeps (HOURLY_CAPS) and the',
    "documented per-endpoint caps the simulator enforces. A first run of `costs` reads 90 days (3 windows × 2 queries per scope); later runs read from 3 days back.",
    'Each measured run uses a fresh scheduler, so it asks for its tokens again (one per audience); a running instance keeps them for their ~1 h',
    'lifetime, so the `token` figures per hour overstate what a service spends.',
    '',
    ...tenants.flatMap(renderTenant),
    ...(latency.length ? renderLatency(latency) : []),
    ...(virtual.length || utilization.length ? renderVirtual(virtual, utilization, virtualOpts) : []),
  ].join('\n');
  process.stdout.write(`\n${section}\n`);
  if (flag('no-write') === undefined) writeResultsSection(path.join(ROOT, 'bench', 'RESULTS.md'), 'Monitoring collectors', section);
}

/**
 * The collect bench at each collector's default interval on a simulated clock (issue 27's
 * "Measured", issue 26 item 7): one instance runs every collector with Vigia's own hourly budgets
 * (HOURLY_CAPS, enforced) against a simulator whose clock is the instance's clock. Between passes
 * the clock moves by the real time the pass took plus a step, so hours of collector schedules
 * pass in minutes while every run still does its real work (HTTPS calls, database writes).
 * The instance runs in a process of its own (bench/instance-process.ts), set to the bench's
 * clock before each pass, so its memory is measured apart from the simulator and the bench's
 * bookkeeping (request log, checks), which stay in this process with a context of their own on
 * the same database.
 *
 * Per tenant: calls per simulated hour of every family and documented endpoint cap (and 429s),
 * and per span (phase 1, each detection scenario, the whole run) with the same ÷ its simulated
 * hours, so a run shorter than an hour still sets its calls against the caps — the refreshes
 * collector's due reads (`…/refreshes?$top=1`) and refreshables pages apart;
 * the time to the first full picture (inventory, schedules, lineage), the full gateway rotation,
 * detection of a gateway offline behind a failing scheduled refresh, of a failing scheduled
 * refresh and of a capacity leaving the active state (time to the incident row), RSS over ten
 * rounds (each process apart), rows and bytes the tenant left in the database. And the load collector (`utilization`)
 * on both engines: calls per run, time from a window crossing 100 % to the incident, rows and
 * bytes per capacity per day.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ManualClock } from '../src/clock.js';
import type { Config } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { HOURLY_CAPS, type ApiFamily } from '../src/monitoring/platform/budget.js';
import { COLLECTOR_DEFAULTS, type CollectorName } from '../src/monitoring/connection/collector-names.js';
import { runBudget } from '../src/monitoring/platform/run-budget.js';
import { DEFAULT_COLLECTORS } from '../src/monitoring/registry.js';
import { DUE_SHARE } from '../src/monitoring/sources/refreshes/refresh-hot.js';
import { POWERBI_SHARE } from '../src/monitoring/sources/refreshes/refreshes.js';
import { CollectorScheduler } from '../src/monitoring/scheduler.js';
import { createTenant } from '../src/monitoring/tenants.js';
import { createOrg } from '../src/orgs/orgs.js';
import { openContext } from '../src/service.js';
import { DOCUMENTED_CAPS, lazyOf, startTenantSimulator, type SimItem, type SimSizes, type TenantSim } from '../src/tenant-sim/index.js';
import { InstanceProcess, type MemorySample, memorySample } from './instance-process.js';
import { percentile } from './kit.js';

const FAMILIES = Object.keys(HOURLY_CAPS) as ApiFamily[];
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const dur = (s: number | null) => (s === null ? '—' : s < 120 ? `${fmt(s)} s` : s < 7200 ? `${fmt(s / 60, 1)} min` : `${fmt(s / 3600, 2)} h`);

export interface VirtualTenant {
  key: string;
  label: string;
  sizes: SimSizes;
  lazy?: boolean;
}

export interface VirtualOptions {
  /** Simulated hours of the first phase (picture, calls, rotation). */
  hours: number;
  /** Detection trials per scenario. */
  trials: number;
  /** Simulated seconds between passes. */
  stepSeconds: number;
  /** V8's old-space limit of the instance process (`--max-old-space-size`), as an operator sets it; none when absent. */
  instanceHeapMiB?: number;
  /** Only the detection scenarios of these collectors (all when absent). */
  scenarios?: string[];
  tls: { cert: Buffer; key: string | Buffer };
  log: (line: string) => void;
}

interface Detection {
  what: string;
  collector: CollectorName;
  latencies: number[];
  missed: number;
}

/** Calls the simulator answered in a span of the run (throttled ones included). */
interface SpanCalls {
  /** Per family, as Vigia's budget counts them (the scanner's operations under their own families). */
  calls: Record<string, number>;
  /** Per documented endpoint cap (DOCUMENTED_CAPS). */
  documented: Record<string, number>;
  throttled: number;
  /** The refreshes collector's reads of due models' latest refresh (`GET …/datasets/{id}/refreshes?$top=1`, Power BI family). */
  dueReads: number;
  /** Its admin refreshables pages (documented cap 200/h). */
  refreshablesPages: number;
}

/** A span of the run (simulated seconds from the connection) and the calls in it. */
interface Span {
  what: string;
  from: number;
  to: number;
  counts: SpanCalls;
}

export interface VirtualResult {
  label: string;
  sizes: SimSizes;
  hours: SpanCalls[];
  /** Phase 1, each detection scenario of phase 2, the whole run: their calls, to be set against the caps per hour whatever their length. */
  spans: Span[];
  picture: { inventory: number | null; schedules: number | null; lineage: number | null; schedulesRead: number; models: number; lineageRows: number; bound: number; lineageWithGateway: number };
  rotation: { first: number | null; covered: number; gateways: number };
  detection: Detection[];
  /** Memory of the instance's process and, apart, of the bench's process (simulator and bookkeeping), at simulated times. */
  memory: Array<{ at: number; phase: 1 | 2; instance: MemorySample; simulator: MemorySample }>;
  /** Simulated seconds between memory samples. */
  memoryEvery: number;
  /** Both processes once the instance opened its context and scheduler, before its first pass. */
  memoryBefore: { instance: MemorySample; simulator: MemorySample };
  /** Peak RSS over the whole run (process.resourceUsage().maxRSS) of each process. */
  peakRss: { instance: number; simulator: number };
  errors: Array<{ collector: string; error: string }>;
  rows: number;
  bytes: number;
  realSeconds: number;
  simulatedSeconds: number;
}

/**
 * The simulator files the scanner's operations under `powerbi-admin` (their URL family); Vigia
 * budgets each under a family of its own (budget.ts ScannerFamily), so the hour table counts
 * them there, beside the admin family's other calls, as the budget does.
 */
const SCANNER_PATHS: Array<[RegExp, ApiFamily]> = [
  [/\/admin\/workspaces\/getInfo$/i, 'scanner-info'],
  [/\/admin\/workspaces\/scanStatus\//i, 'scanner-status'],
  [/\/admin\/workspaces\/scanResult\//i, 'scanner-result'],
  [/\/admin\/workspaces\/modified$/i, 'scanner-modified'],
];

function familyAsVigiaCounts(family: string, path: string): string {
  if (family !== 'powerbi-admin') return family;
  return SCANNER_PATHS.find(([pattern]) => pattern.test(path))?.[1] ?? family;
}

const DUE_READ = /\/datasets\/[^/]+\/refreshes$/i;
const REFRESHABLES = DOCUMENTED_CAPS.find((c) => c.name === 'powerbi-admin-refreshables')!;

/** The calls of the request log made in [from, to) (simulated epoch ms). */
function callsIn(requests: TenantSim['requests'], from: number, to: number): SpanCalls {
  const out: SpanCalls = { calls: {}, documented: {}, throttled: 0, dueReads: 0, refreshablesPages: 0 };
  for (const r of requests) {
    if (r.at < from || r.at >= to || r.family === 'control') continue;
    const family = familyAsVigiaCounts(r.family, r.path);
    out.calls[family] = (out.calls[family] ?? 0) + 1;
    if (r.throttled) out.throttled++;
    const cap = DOCUMENTED_CAPS.find((c) => c.pattern.test(r.path));
    if (cap) out.documented[cap.name] = (out.documented[cap.name] ?? 0) + 1;
    if (r.family === 'powerbi' && r.query.$top === '1' && DUE_READ.test(r.path)) out.dueReads++;
    if (cap === REFRESHABLES) out.refreshablesPages++;
  }
  return out;
}

/** Where the next tenant's simulated clock starts (see measureVirtual). */
let nextVirtualStart = 0;

/** Every model of the tenant (a lazy tenant: generated workspace by workspace, nothing kept). */
function* models(sim: TenantSim): Generator<{ item: SimItem; capacityId: string | null }> {
  const ws = sim.state.workspaces;
  for (let k = 0; k < ws.length; k++) {
    const w = ws[k]!;
    for (const item of w.items) if (item.type === 'SemanticModel') yield { item, capacityId: w.capacityId };
  }
}

class VirtualRun {
  readonly clock: ManualClock;
  readonly start: number;
  /** One scheduler pass at simulated time `now`; resolves with its real time in ms. */
  pass!: (now: number) => Promise<number>;
  realMs = 0;

  constructor(start: number) {
    this.clock = new ManualClock(start);
    this.start = start;
  }

  /** Passes of a scheduler in this process, on this run's clock. */
  inProcess(scheduler: CollectorScheduler): void {
    this.pass = async () => {
      const t = performance.now();
      await scheduler.pass();
      return performance.now() - t;
    };
  }

  elapsed(): number {
    return (this.clock.now().getTime() - this.start) / 1000;
  }

  /** One pass of every due collector; the clock moves by the pass's real time, then by `seconds`. */
  async step(seconds: number): Promise<void> {
    const took = await this.pass(this.clock.now().getTime());
    this.realMs += took;
    this.clock.advance(Math.round(took) + seconds * 1000);
  }
}

async function openAlert(ctx: AppContext, orgId: string, sourceId: string, kind: string): Promise<boolean> {
  const { rows } = await ctx.db.query('SELECT 1 FROM alerts WHERE org_id = $1 AND lower(source_id) = lower($2) AND notification_kind = $3 AND status = $4 LIMIT 1', [orgId, sourceId, kind, 'open']);
  return rows.length > 0;
}

/** Rows and bytes (pg_column_size of the rows; indexes not counted) of every table keyed by this tenant or its organization. */
async function footprint(ctx: AppContext, tenantRef: string, orgId: string): Promise<{ rows: number; bytes: number }> {
  const { rows: cols } = await ctx.db.query<{ table_name: string; column_name: string }>(
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name IN ('tenant_ref', 'org_id') ORDER BY table_name, column_name DESC",
  );
  const byTable = new Map<string, string>();
  for (const c of cols) if (!byTable.has(c.table_name)) byTable.set(c.table_name, c.column_name);
  let rows = 0;
  let bytes = 0;
  for (const [table, column] of byTable) {
    const { rows: r } = await ctx.db.query<{ n: string; b: string | null }>(`SELECT count(*)::text AS n, sum(pg_column_size(t.*))::text AS b FROM ${table} t WHERE ${column} = $1`, [column === 'tenant_ref' ? tenantRef : orgId]);
    rows += Number(r[0]!.n);
    bytes += Number(r[0]!.b ?? 0);
  }
  return { rows, bytes };
}

export async function measureVirtual(config: Config, spec: VirtualTenant, opts: VirtualOptions): Promise<VirtualResult> {
  const realStart = performance.now();
  // A day ahead: the simulator's tenant (same seed, same directory id) was just measured on the
  // real clock in this database, and its calls fill the budget's buckets of this hour. Every
  // tenant of the run has that same directory id too, so each starts a day after the previous
  // one's simulated end: no tenant's hour counts another's calls against the budget.
  const run = new VirtualRun(Math.max(Date.now() + 86_400_000, nextVirtualStart));
  // The bench's context: organization, tenant connection and the checks below. The collectors run in the instance's process.
  const ctx = await openContext(config, { clock: run.clock });
  opts.log(`collect bench (simulated clock): ${spec.label} ${JSON.stringify(spec.sizes)}${spec.lazy ? ' (lazy)' : ''}`);
  // msal keeps a token by the real clock: a token that outlives the simulated hours keeps the simulator from refusing it as expired.
  const sim = await startTenantSimulator({ port: 0, tls: opts.tls, sizes: spec.sizes, seed: 17, lazy: spec.lazy, now: () => run.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
  let instance: InstanceProcess | undefined;
  try {
    const org = await createOrg(ctx, { name: `bench virtual ${spec.key}` });
    const names = DEFAULT_COLLECTORS.map((c) => c.name);
    const tenant = await createTenant(ctx, org.id, {
      name: 'bench',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      costScopes: [`/subscriptions/${sim.state.settings.subscriptionId}`],
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
      collectors: Object.fromEntries(names.map((n) => [n, { enabled: true }])),
    });
    // Opened once the tenant connection exists, so its first pass sees it; every pass runs at this run's `now`.
    const inst = await InstanceProcess.open(config, run.clock.now().getTime(), { pollMs: 3_600_000, runTimeLimitMs: 30 * 60_000, maxConcurrent: names.length }, opts.instanceHeapMiB ? [`--max-old-space-size=${opts.instanceHeapMiB}`] : []);
    instance = inst;
    // The instance's RSS right after each pass (no GC): a new high is logged with the calls of that pass, to tell what drove it.
    let passRss = 0;
    let passRssHigh = 0;
    run.pass = async (now) => {
      const r = await inst.pass(now);
      passRss = r.rssAfter;
      return r.tookMs;
    };
    const logPassHigh = (firstRequest: number) => {
      if (passRss <= passRssHigh) return;
      passRssHigh = passRss;
      const paths = new Map<string, number>();
      for (let k = firstRequest; k < sim.requests.length; k++) {
        const p = sim.requests[k]!.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '{id}').split('?')[0]!;
        paths.set(p, (paths.get(p) ?? 0) + 1);
      }
      const top = [...paths].sort((a, b) => b[1] - a[1]).slice(0, 6);
      opts.log(`  instance RSS after the pass at ${dur(run.elapsed())}: ${fmt(passRss / 2 ** 20)} MiB (new high, no GC); its calls: ${top.map(([p, n]) => `${p} ×${n}`).join(', ') || 'none'}`);
    };
    const memoryBefore = { instance: await inst.memory(), simulator: await memorySample() };
    opts.log(`  instance process ${inst.pid} (bench process ${process.pid}); memory after a forced GC, a 1 s settle and a second GC: ${(globalThis as { gc?: unknown }).gc ? 'yes' : 'no (run without --expose-gc)'}; before the first pass: instance RSS ${fmt(memoryBefore.instance.rss / 2 ** 20)} MiB, bench process RSS ${fmt(memoryBefore.simulator.rss / 2 ** 20)} MiB`);

    // What a full picture is: every model's schedule read, lineage of every model, gateway-bound ones with their gateway.
    let modelCount = 0;
    let bound = 0;
    for (const { item } of models(sim)) {
      modelCount++;
      if (item.gatewayDatasourceId) bound++;
    }
    const gatewayIds = new Set(sim.state.gateways.map((g) => g.id.toLowerCase()));
    const picture: VirtualResult['picture'] = { inventory: null, schedules: null, lineage: null, schedulesRead: 0, models: modelCount, lineageRows: 0, bound, lineageWithGateway: 0 };
    const covered = new Map<string, number>();
    let scanned = 0;
    const trackRotation = () => {
      for (; scanned < sim.requests.length; scanned++) {
        const m = /^\/v1\/gateways\/([^/]+)\/members$/i.exec(sim.requests[scanned]!.path);
        if (m && !covered.has(m[1]!.toLowerCase())) covered.set(m[1]!.toLowerCase(), (sim.requests[scanned]!.at - run.start) / 1000);
      }
    };
    const checkPicture = async () => {
      const t = run.elapsed();
      if (picture.inventory === null) {
        const { rows } = await ctx.db.query<{ ok: boolean }>("SELECT last_success_at IS NOT NULL AS ok FROM collector_schedules WHERE tenant_ref = $1 AND collector = 'inventory'", [tenant.id]);
        if (rows[0]?.ok) picture.inventory = t;
      }
      const { rows: s } = await ctx.db.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM collector_state WHERE tenant_ref = $1 AND collector = 'freshness' AND key LIKE 'model:%' AND value->>'scheduleReadAt' IS NOT NULL",
        [tenant.id],
      );
      picture.schedulesRead = Number(s[0]!.n);
      if (picture.schedules === null && modelCount > 0 && picture.schedulesRead >= modelCount) picture.schedules = t;
      const { rows: l } = await ctx.db.query<{ n: string; g: string }>(
        "SELECT count(*)::text AS n, count(*) FILTER (WHERE cardinality(gateway_ids) > 0)::text AS g FROM monitored_lineage WHERE tenant_ref = $1 AND item_type = 'SemanticModel'",
        [tenant.id],
      );
      picture.lineageRows = Number(l[0]!.n);
      picture.lineageWithGateway = Number(l[0]!.g);
      if (picture.lineage === null && picture.lineageRows >= modelCount && picture.lineageWithGateway >= bound) picture.lineage = t;
    };

    // Memory of both processes every 15 simulated minutes, or more often so that phase 1 alone gives ten samples; on through phase 2.
    const memory: VirtualResult['memory'] = [];
    const memoryEvery = Math.min(15 * 60, (opts.hours * 3600) / 10);
    let nextMemory = memoryEvery;
    const sampleMemory = async (phase: 1 | 2) => {
      if (run.elapsed() < nextMemory) return;
      nextMemory += memoryEvery;
      const sample = { at: run.elapsed(), phase, instance: await inst.memory(), simulator: await memorySample() };
      memory.push(sample);
      opts.log(`  memory at ${dur(sample.at)} simulated: instance RSS ${fmt(sample.instance.rss / 2 ** 20)} MiB (heap ${fmt(sample.instance.heapUsed / 2 ** 20)} MiB), bench process (simulator + bookkeeping) RSS ${fmt(sample.simulator.rss / 2 ** 20)} MiB (heap ${fmt(sample.simulator.heapUsed / 2 ** 20)} MiB)`);
    };

    // The detection trials' targets (phase 2).
    const pick = <T>(list: T[], i: number) => list[i % list.length]!;
    const scheduledPlain: string[] = [];
    const behindGateway: Array<{ model: string; gateway: string }> = [];
    const usedGateways = new Set<string>();
    const owner = new Map(sim.state.gateways.flatMap((g) => g.datasources.map((d) => [d.id, g.id] as const)));
    for (const { item, capacityId } of models(sim)) {
      if (capacityId === null || item.refreshSchedule?.enabled !== true) continue;
      if (!item.gatewayDatasourceId && scheduledPlain.length < opts.trials) scheduledPlain.push(item.id);
      const g = item.gatewayDatasourceId ? owner.get(item.gatewayDatasourceId) : undefined;
      if (g && !usedGateways.has(g) && behindGateway.length < opts.trials) {
        usedGateways.add(g);
        behindGateway.push({ model: item.id, gateway: g });
      }
      if (scheduledPlain.length >= opts.trials && behindGateway.length >= opts.trials) break;
    }
    // A failing scheduled refresh (issue 38 item 5): before the first pass each trial model gets a
    // schedule of its own minute (UTC, every day) 20 + 12·i minutes after phase 1 — the scanner's
    // first scan learns it — and the run of that slot fails at once. Latency is from the slot.
    const dueAt: number[] = [];
    const arrangeSlots = () => {
      const base = run.clock.now().getTime() + opts.hours * 3_600_000 + 20 * 60_000;
      for (let i = 0; i < opts.trials; i++) {
        const at = Math.ceil((base + i * 12 * 60_000) / 60_000) * 60_000;
        const id = pick(scheduledPlain, i);
        const hhmm = new Date(at).toISOString().slice(11, 16);
        sim.control.refreshSchedule({ datasetId: id, days: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'], times: [hhmm], enabled: true, localTimeZoneId: 'UTC' });
        sim.control.failScheduledRefresh({ datasetId: id, errorCode: 'ModelRefresh_ShortMessage_ProcessingError' });
        dueAt.push(at);
      }
    };
    arrangeSlots();

    // Phase 1: the first hours at default intervals.
    let nextCheck = 0;
    while (run.elapsed() < opts.hours * 3600) {
      const firstRequest = sim.requests.length;
      await run.step(opts.stepSeconds);
      logPassHigh(firstRequest);
      trackRotation();
      if (run.elapsed() >= nextCheck) {
        await checkPicture();
        nextCheck = run.elapsed() + 300;
        opts.log(`  ${dur(run.elapsed())} simulated (${fmt(run.realMs / 1000)} s real): ${sim.requests.length} calls, schedules ${picture.schedulesRead}/${modelCount}, lineage ${picture.lineageRows}/${modelCount} (${picture.lineageWithGateway}/${bound} with gateway), members listed ${covered.size}/${gatewayIds.size}`);
      }
      await sampleMemory(1);
    }
    await checkPicture();
    const hours: VirtualResult['hours'] = [];
    for (let h = 0; h < Math.floor(opts.hours); h++) hours.push(callsIn(sim.requests, run.start + h * 3_600_000, run.start + (h + 1) * 3_600_000));
    // Spans shorter than an hour are counted too (the hour table stays empty for them), and projected to an hour when rendered.
    const spanOf = (what: string, from: number, to: number): Span => ({ what, from, to, counts: callsIn(sim.requests, run.start + from * 1000, run.start + to * 1000) });
    const spans: Span[] = [spanOf('phase 1', 0, run.elapsed())];
    const firstRotation = covered.size >= gatewayIds.size ? Math.max(...covered.values()) : null;

    // Phase 2: detection, the change at a uniformly random moment of the collector's interval
    // (a schedule's failure: at its slot, arranged before phase 1).
    const scenarios: Array<{ what: string; collector: CollectorName; kind: string; target: (i: number) => string; break: (i: number) => void; fix: (i: number) => void; at?: (i: number) => number }> = [
      {
        what: 'gateway goes offline behind a failing scheduled refresh',
        collector: 'gateway',
        kind: 'GatewayOffline',
        target: (i) => pick(behindGateway, i).gateway,
        break: (i) => {
          const t = pick(behindGateway, i);
          sim.control.gatewayOffline({ gatewayId: t.gateway, offline: true });
          sim.control.refreshResult({ datasetId: t.model, status: 'Failed', errorCode: 'DM_GWPipeline_Client_GatewayUnreachable' });
        },
        fix: (i) => {
          const t = pick(behindGateway, i);
          sim.control.gatewayOffline({ gatewayId: t.gateway, offline: false });
          sim.control.refreshResult({ datasetId: t.model, status: 'Completed' });
        },
      },
      {
        what: 'scheduled refresh fails',
        collector: 'refreshes',
        kind: 'RefreshFailed',
        target: (i) => pick(scheduledPlain, i),
        at: (i) => dueAt[i]!,
        break: () => {},
        fix: (i) => sim.control.refreshResult({ datasetId: pick(scheduledPlain, i), status: 'Completed' }),
      },
      {
        what: 'capacity leaves the active state',
        collector: 'capacity',
        kind: 'CapacityNotActive',
        target: (i) => pick(sim.state.capacities, i).id,
        break: (i) => sim.control.capacityState({ capacityId: pick(sim.state.capacities, i).id, state: 'Suspended' }),
        fix: (i) => sim.control.capacityState({ capacityId: pick(sim.state.capacities, i).id, state: 'Active' }),
      },
    ];
    const detection: Detection[] = [];
    for (const sc of scenarios.filter((x) => !opts.scenarios || opts.scenarios.includes(x.collector))) {
      const interval = COLLECTOR_DEFAULTS[sc.collector];
      const d: Detection = { what: sc.what, collector: sc.collector, latencies: [], missed: 0 };
      const spanFrom = run.elapsed();
      for (let i = 0; i < opts.trials; i++) {
        const wait = Math.random() * interval;
        // A change due at a set time (a schedule's slot) is waited for; the others come at a random moment.
        const until = sc.at ? (sc.at(i) - run.start) / 1000 : run.elapsed() + wait;
        while (run.elapsed() < until) {
          await run.step(Math.min(opts.stepSeconds, Math.max(1, until - run.elapsed())));
          await sampleMemory(2);
        }
        const t0 = sc.at ? sc.at(i) : run.clock.now().getTime();
        sc.break(i);
        const limit = t0 + (interval + 1800) * 1000;
        let found: number | null = null;
        while (run.clock.now().getTime() < limit) {
          await run.step(opts.stepSeconds);
          await sampleMemory(2);
          if (await openAlert(ctx, org.id, sc.target(i), sc.kind)) {
            // Found after this pass: the pass's end, before the step that followed it.
            found = run.clock.now().getTime() - opts.stepSeconds * 1000 - t0;
            break;
          }
        }
        if (found === null) d.missed++;
        else d.latencies.push(found / 1000);
        sc.fix(i);
        opts.log(`  ${sc.collector} trial ${i + 1}: ${found === null ? 'missed' : `${fmt(found / 1000)} s`}`);
      }
      detection.push(d);
      spans.push(spanOf(`phase 2: ${sc.what}`, spanFrom, run.elapsed()));
    }
    trackRotation();
    spans.push(spanOf('whole run', 0, run.elapsed()));
    for (const s of spans) opts.log(`  calls in ${s.what} (${dur(s.to - s.from)} simulated): ${spanCells(s).join('; ')}`);

    const { rows: errs } = await ctx.db.query<{ collector: string; last_error: string | null }>('SELECT collector, last_error FROM collector_schedules WHERE tenant_ref = $1 ORDER BY collector', [tenant.id]);
    const fp = await footprint(ctx, tenant.id, org.id);
    const peakRss = { instance: (await inst.memory()).peakRss, simulator: (await memorySample()).peakRss };
    await inst.stop();
    await ctx.db.query('UPDATE collector_schedules SET enabled = false WHERE tenant_ref = $1', [tenant.id]);
    const lazy = lazyOf(sim.state.workspaces);
    if (lazy) opts.log(`  lazy tenant: ${lazy.pinned.size} workspaces materialized by control changes`);
    nextVirtualStart = run.clock.now().getTime() + 86_400_000;
    return {
      label: spec.label,
      sizes: spec.sizes,
      hours,
      spans,
      picture,
      rotation: { first: firstRotation, covered: covered.size, gateways: gatewayIds.size },
      detection,
      memory,
      memoryEvery,
      memoryBefore,
      peakRss,
      errors: errs.filter((e) => e.last_error).map((e) => ({ collector: e.collector, error: e.last_error! })),
      rows: fp.rows,
      bytes: fp.bytes,
      realSeconds: (performance.now() - realStart) / 1000,
      simulatedSeconds: run.elapsed(),
    };
  } finally {
    await instance?.kill();
    await sim.stop();
    await ctx.db.close();
  }
}

export interface UtilizationResult {
  engine: string;
  capacities: number;
  hours: number;
  kustoCallsPerRun: number;
  runs: number;
  latencies: number[];
  fromWindowEnd: number[];
  missed: number;
  rowsPerCapacityDay: number;
  hourlyRowsPerCapacityDay: number;
  bytesPerCapacityDay: number;
}

/**
 * The load collector alone (issue 26 item 7) on one engine: the simulator's capacity events read
 * from its Eventhouse every 30 s for `hours`, then `trials` pushes into interactive delay.
 */
export async function measureUtilization(config: Config, engine: string, opts: VirtualOptions & { capacities: number }): Promise<UtilizationResult> {
  const run = new VirtualRun(Date.now());
  const ctx = await openContext(config, { clock: run.clock });
  const sim = await startTenantSimulator({ port: 0, tls: opts.tls, sizes: { capacities: opts.capacities, workspaces: 20 }, seed: 26, now: () => run.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
  try {
    const org = await createOrg(ctx, { name: `bench utilization ${engine}` });
    const tenant = await createTenant(ctx, org.id, {
      name: 'bench utilization',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
      collectors: Object.fromEntries(DEFAULT_COLLECTORS.map((c) => [c.name, { enabled: c.name === 'utilization' }])),
      utilization: { eventhouse: { queryUri: sim.origin, database: sim.state.eventhouse!.database, table: sim.state.eventhouse!.table } },
    } as Parameters<typeof createTenant>[2]);
    const utilization = DEFAULT_COLLECTORS.find((c) => c.name === 'utilization')!;
    // In this process, with the simulator: this part measures calls, latency and rows, not memory.
    const scheduler = new CollectorScheduler(ctx, { collectors: [utilization], pollMs: 3_600_000, runTimeLimitMs: 10 * 60_000 });
    run.inProcess(scheduler);
    const interval = COLLECTOR_DEFAULTS.utilization;
    const firstCall = sim.requests.length;
    let runs = 0;
    while (run.elapsed() < opts.hours * 3600) {
      await run.step(interval);
      runs++;
    }
    const kusto = sim.requests.slice(firstCall).filter((r) => r.family === 'kusto').length;
    // Per day from the span the rows cover (the simulator keeps an hour of history before the connection).
    const count = async (table: string, column: string, unitMs: number) => {
      const { rows } = await ctx.db.query<{ n: string; b: string | null; span: string | null }>(
        `SELECT count(*)::text AS n, sum(pg_column_size(t.*))::text AS b, (extract(epoch FROM max(${column}) - min(${column})) * 1000)::text AS span FROM ${table} t WHERE tenant_ref = $1`,
        [tenant.id],
      );
      const n = Number(rows[0]!.n);
      const days = (Number(rows[0]!.span ?? 0) + unitMs) / 86_400_000;
      return { perDay: n / opts.capacities / days, bytesPerRow: n ? Number(rows[0]!.b ?? 0) / n : 0 };
    };
    const raw = await count('capacity_utilization', 'window_start', 30_000);
    const hourly = await count('capacity_utilization_hourly', 'hour', 3_600_000);

    const latencies: number[] = [];
    const fromWindowEnd: number[] = [];
    let missed = 0;
    for (let i = 0; i < opts.trials; i++) {
      const c = sim.state.capacities[i % sim.state.capacities.length]!;
      const until = run.elapsed() + Math.random() * interval;
      while (run.elapsed() < until) await run.step(Math.min(5, Math.max(1, until - run.elapsed())));
      const t0 = run.clock.now().getTime();
      sim.control.capacityLoad({ capacityId: c.id, stage: 'interactiveDelay' });
      let found: number | null = null;
      while (run.clock.now().getTime() < t0 + 30 * 60_000) {
        await run.step(5);
        if (await openAlert(ctx, org.id, c.id, 'CapacityThrottled')) {
          found = run.clock.now().getTime() - 5_000;
          break;
        }
      }
      if (found === null) missed++;
      else {
        latencies.push((found - t0) / 1000);
        // The first window over 100 % is the one the push lands in; the platform publishes it at its end.
        fromWindowEnd.push((found - (Math.floor(t0 / 30_000) + 1) * 30_000) / 1000);
      }
      sim.control.capacityLoad({ capacityId: c.id, stage: 'normal', clearCarryForward: true });
      opts.log(`  utilization (${engine}) trial ${i + 1}: ${found === null ? 'missed' : `${fmt((found - t0) / 1000)} s`}`);
    }
    await scheduler.stop();
    return {
      engine,
      capacities: opts.capacities,
      hours: opts.hours,
      kustoCallsPerRun: kusto / runs,
      runs,
      latencies,
      fromWindowEnd,
      missed,
      rowsPerCapacityDay: raw.perDay,
      hourlyRowsPerCapacityDay: hourly.perDay,
      bytesPerCapacityDay: raw.perDay * raw.bytesPerRow + hourly.perDay * hourly.bytesPerRow,
    };
  } finally {
    await sim.stop();
    await ctx.db.close();
  }
}

/** A PGlite configuration in a fresh temporary data directory (removed by `drop`). */
export function pgliteConfig(base: Config): { config: Config; drop(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigia-bench-pglite-'));
  return { config: { ...base, databaseUrl: undefined, databaseReadUrl: undefined, dataDir: dir } as Config, drop: () => rmSync(dir, { recursive: true, force: true }) };
}

const p99 = (xs: number[]) => (xs.length ? percentile(xs, 99) : Number.NaN);

/** The due reads' bound: DUE_SHARE of the refreshes run's Power BI budget, over the runs of an hour at the default interval. */
const DUE_READS_PER_HOUR = Math.floor(runBudget(HOURLY_CAPS.powerbi, POWERBI_SHARE, COLLECTOR_DEFAULTS.refreshes) * DUE_SHARE) * (3600 / COLLECTOR_DEFAULTS.refreshes);

/** A span's cells: per family, per documented cap, due reads, refreshables pages (each `n → per hour (cap)`), 429 answers. */
function spanCells(s: Span): [string, string, string, string, string] {
  const hours = (s.to - s.from) / 3600;
  const perHour = (n: number, cap: number) => {
    const h = hours > 0 ? n / hours : Number.NaN;
    // Over: the rate, for a span of an hour or more; the count itself, for a shorter one, whose rate can pass a cap its
    // count stays under (a first backfill) — said apart.
    const over = hours >= 1 ? h > cap : n > cap;
    return `${fmt(n)} → ${fmt(h)}/h (${fmt(cap)})${over ? ' **over**' : h > cap ? ' (rate over, count within)' : ''}`;
  };
  const c = s.counts;
  return [
    FAMILIES.filter((f) => c.calls[f]).map((f) => `${f} ${perHour(c.calls[f]!, HOURLY_CAPS[f])}`).join(', ') || '—',
    Object.entries(c.documented).map(([name, n]) => `${name} ${perHour(n, DOCUMENTED_CAPS.find((d) => d.name === name)!.perHour)}`).join(', ') || '—',
    perHour(c.dueReads, DUE_READS_PER_HOUR),
    perHour(c.refreshablesPages, REFRESHABLES.perHour),
    fmt(c.throttled),
  ];
}

export function renderVirtual(results: VirtualResult[], util: UtilizationResult[], opts: VirtualOptions): string[] {
  const lines = [
    '**At the default intervals, on a simulated clock**',
    '',
    `One instance, every collector at its default interval in admin mode with Vigia's own hourly budgets enforced (HOURLY_CAPS); the simulator's clock is the instance's;`,
    `the instance runs in a process of its own (bench/virtual-instance.ts: its context and collector scheduler, nothing else), its clock set to the bench's before every pass${opts.instanceHeapMiB ? `, started with --max-old-space-size=${opts.instanceHeapMiB} (V8's old-space limit, as docs/monitoring.md advises)` : ''};`,
    "the simulator and the bench's bookkeeping (request log, picture and detection checks, with a context of their own on the same database) run in the bench's process;",
    `between passes the clock moves by the pass's real time plus ${opts.stepSeconds} s. Phase 1: ${opts.hours} simulated hours from the connection; phase 2: ${opts.trials} detection trials per scenario,`,
    'each change at a uniformly random moment of its collector\'s interval, detected when the incident row is open (the dispatcher\'s delivery, ~1 s in the real-clock table, is not included).',
    'Calls are what the simulator answered (throttled ones included); tokens live 30 days here (msal caches by the real clock), so the token family is not representative.',
    '',
  ];
  for (const r of results) {
    lines.push(`*${r.label}* — ${JSON.stringify(r.sizes)}; ${dur(r.simulatedSeconds)} simulated in ${fmt(r.realSeconds)} s real.`, '');
    lines.push(`| Hour | ${FAMILIES.map((f) => `${f} (cap ${fmt(HOURLY_CAPS[f])})`).join(' | ')} | Documented endpoint caps | 429 answers |`);
    lines.push(`|---|${FAMILIES.map(() => '---|').join('')}---|---|`);
    r.hours.forEach((h, i) => {
      const fam = FAMILIES.map((f) => {
        const n = h.calls[f] ?? 0;
        return `${fmt(n)}${n > HOURLY_CAPS[f] ? ' **over**' : ''}`;
      });
      const doc = Object.entries(h.documented).map(([name, n]) => {
        const cap = DOCUMENTED_CAPS.find((c) => c.name === name)!.perHour;
        return `${name} ${fmt(n)} (${cap})${n > cap ? ' **over**' : ''}`;
      });
      lines.push(`| ${i + 1} | ${fam.join(' | ')} | ${doc.join(', ') || '—'} | ${fmt(h.throttled)} |`);
    });
    lines.push(
      '',
      `Calls per span of the run (the hour table above has a row per full simulated hour of phase 1 only), each \`n → per hour (cap)\`: the span's calls and the same ÷ its simulated hours, against HOURLY_CAPS and the documented endpoint caps.` +
        ` Due reads: the refreshes collector's \`GET …/datasets/{id}/refreshes?$top=1\` of models whose schedule fell due (Power BI family, inside its count), against their bound (${fmt(DUE_SHARE * 100)} % of the run's Power BI budget: ${fmt(DUE_READS_PER_HOUR)} an hour at ${COLLECTOR_DEFAULTS.refreshes} s);` +
        ' refreshables pages: the admin list (powerbi-admin family), against its documented cap. A span that begins with the first scan or ends right after a slot is not a steady hour: read the projection as a rate, not a peak.',
      '',
      '| Span | Simulated | Calls per family | Documented endpoint caps | Due reads (`…/refreshes?$top=1`) | Refreshables pages | 429 answers |',
      '|---|---|---|---|---|---|---|',
      ...r.spans.map((s) => `| ${s.what} | ${dur(s.to - s.from)} | ${spanCells(s).join(' | ')} |`),
    );
    const pic = r.picture;
    const mb = (b: number) => fmt(b / 2 ** 20);
    const range = (xs: number[]) => (xs.length ? `${mb(Math.min(...xs))}–${mb(Math.max(...xs))} MiB` : '—');
    const phase1 = r.memory.filter((m) => m.phase === 1);
    lines.push(
      '',
      `- First full picture: inventory ${dur(pic.inventory)}; schedules of all ${fmt(pic.models)} models ${pic.schedules === null ? `not within ${opts.hours} h (${fmt(pic.schedulesRead)} read)` : dur(pic.schedules)};` +
        ` lineage ${pic.lineage === null ? `not within ${opts.hours} h (${fmt(pic.lineageRows)} models placed, ${fmt(pic.lineageWithGateway)} of ${fmt(pic.bound)} gateway-bound with their gateway)` : dur(pic.lineage)}.`,
      `- Full gateway rotation (every gateway's members listed at least once since the connection): ${r.rotation.first === null ? `not complete (${fmt(r.rotation.covered)} of ${fmt(r.rotation.gateways)} gateways)` : dur(r.rotation.first)}.`,
      `- Memory after a forced GC in each process, a 1-second settle (V8 unmaps freed pages in the background) and a second GC${(globalThis as { gc?: unknown }).gc ? '' : ' (no forced GC: --expose-gc was not given)'}, every ${dur(r.memoryEvery)} simulated (15 min, or a tenth of phase 1 when that is shorter, so that phase 1 alone gives ten samples; sampled on through phase 2).` +
        ` Instance process (Vigia alone): RSS ${range(phase1.map((m) => m.instance.rss))} over the ${phase1.length} samples of phase 1, ${range(r.memory.map((m) => m.instance.rss))} over all ${r.memory.length}; peak RSS (maxRSS, no GC) ${mb(r.peakRss.instance)} MiB.` +
        ` Bench process (simulator + bookkeeping): RSS ${range(r.memory.map((m) => m.simulator.rss))}; peak ${mb(r.peakRss.simulator)} MiB.`,
      '',
      '| Simulated time | Phase | Instance RSS | Instance heap used / committed | Instance external (array buffers) | Bench process RSS (simulator + bookkeeping) | Bench process heap used |',
      '|---|---|---|---|---|---|---|',
      `| before the first pass | — | ${mb(r.memoryBefore.instance.rss)} MiB | ${mb(r.memoryBefore.instance.heapUsed)} / ${mb(r.memoryBefore.instance.heapTotal)} MiB | ${mb(r.memoryBefore.instance.external)} (${mb(r.memoryBefore.instance.arrayBuffers)}) MiB | ${mb(r.memoryBefore.simulator.rss)} MiB | ${mb(r.memoryBefore.simulator.heapUsed)} MiB |`,
      ...r.memory.map((m) => `| ${dur(m.at)} | ${m.phase} | ${mb(m.instance.rss)} MiB | ${mb(m.instance.heapUsed)} / ${mb(m.instance.heapTotal)} MiB | ${mb(m.instance.external)} (${mb(m.instance.arrayBuffers)}) MiB | ${mb(m.simulator.rss)} MiB | ${mb(m.simulator.heapUsed)} MiB |`),
      '',
      `- Database: ${fmt(r.rows)} rows, ${fmt(r.bytes / 2 ** 20, 1)} MiB of row data (pg_column_size; indexes not counted) for this tenant and its organization after the run.`,
      `- Collectors whose last run ended in an error: ${r.errors.length ? r.errors.map((e) => `${e.collector} (“${e.error.slice(0, 140)}”)`).join('; ') : 'none'}.`,
      '',
      '| Scenario | Collector (default interval) | Trials | p50 | p99 | max | Goal: p99 ≤ interval + 60 s |',
      '|---|---|---|---|---|---|---|',
    );
    for (const d of r.detection) {
      const interval = COLLECTOR_DEFAULTS[d.collector];
      const p = p99(d.latencies);
      lines.push(
        `| ${d.what} | ${d.collector} (${interval} s) | ${d.latencies.length}${d.missed ? ` (+${d.missed} missed within interval + 30 min)` : ''} | ${d.latencies.length ? dur(percentile(d.latencies, 50)) : '—'} | ${d.latencies.length ? dur(p) : '—'} | ${d.latencies.length ? dur(Math.max(...d.latencies)) : '—'} | ${d.missed === 0 && p <= interval + 60 ? 'yes' : '**no**'} |`,
      );
    }
    lines.push('');
  }
  if (util.length) {
    lines.push(
      '**The load collector (`utilization`)**',
      '',
      `Only \`utilization\` enabled, run in the bench's process beside the simulator (this part measures calls, latency and rows, not memory), reading the simulator's Eventhouse (capacity overview events every 30 s) at its default 30 s interval, ${util[0]!.capacities} capacities, ${util[0]!.hours} simulated hours, then ${opts.trials} pushes of one capacity into interactive delay (the 10-minute figure over 100 %), each at a random moment. Latency to the open CapacityThrottled incident, from the push and from the end of the first window over 100 % (when the platform publishes it). Rows and bytes of capacity_utilization + capacity_utilization_hourly (pg_column_size of the rows, no indexes) per capacity and day, extrapolated from the simulated hours.`,
      '',
      '| Engine | Kusto calls per run (cap 1,800/h = 15 a run) | p50 / p99 from the push | p99 from the window\'s end (goal ≤ 60 s) | Rows per capacity per day (30-s + hourly) | Bytes per capacity per day |',
      '|---|---|---|---|---|---|',
    );
    for (const u of util) {
      lines.push(
        `| ${u.engine} | ${fmt(u.kustoCallsPerRun, 2)} | ${u.latencies.length ? `${fmt(percentile(u.latencies, 50))} s / ${fmt(p99(u.latencies))} s` : '—'}${u.missed ? ` (+${u.missed} missed)` : ''} | ${u.fromWindowEnd.length ? `${fmt(p99(u.fromWindowEnd))} s` : '—'} | ${fmt(u.rowsPerCapacityDay)} + ${fmt(u.hourlyRowsPerCapacityDay)} | ${fmt(u.bytesPerCapacityDay / 1024, 1)} KiB |`,
      );
    }
    lines.push('');
  }
  return lines;
}

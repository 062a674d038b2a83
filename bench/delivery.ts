/**
 * Delivery benchmark (`npm run bench -- delivery`), all in one run on the same machine:
 *
 *   1. Vigia end to end on PostgreSQL: events committed through the real outbox (100 incidents
 *      per transaction, recordEvents; and once more with one recordEvent per event) as fast as
 *      one producer can, the real dispatcher sending signed POSTs to a local HTTPS receiver;
 *      throughput = deliveries / (first commit → last 2xx recorded).
 *   2. Latency at 100 events/s: one event per transaction, paced; event commit → receipt at the
 *      receiver, p50 / p99.
 *   3. (a) The limit: the same signed POSTs sent by undici alone (no database), 64 in flight.
 *   4. (b) A peer: the same deliveries as graphile-worker 0.16 jobs (the same 100 incidents and
 *      their 100 jobs per transaction,
 *      concurrency 64, the task signs and sends with the same undici settings).
 *
 *   5. The same drain on the embedded engine (PGlite, in memory).
 *
 * Every round runs on a fresh database; BENCH_RUNS rounds (default 3) are run one after another
 * and the median of each measure (and of each round's ratios) is reported beside every round.
 *
 * Writes its own block inside the "Delivery" section of bench/RESULTS.md, keeping the rest of the
 * section (unless BENCH_WRITE=0). Environment:
 * VIGIA_BENCH_PG_URL (admin URL; default the test server), BENCH_DELIVERIES (default 4000),
 * BENCH_LATENCY_SECONDS (15), BENCH_RUNS (3), BENCH_PGLITE=0 skips the PGlite drain.
 * The 5-minute soak with the memory curve is a separate mode: bench/delivery-soak.ts.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, request } from 'undici';
import { run as runGraphile, runMigrations as graphileMigrations, Logger as GraphileLogger } from 'graphile-worker';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { createPgDatabase } from '../src/db/pg.js';
import { createPgliteDatabase } from '../src/db/pglite.js';
import { migrate } from '../src/db/index.js';
import { createLogger } from '../src/logger.js';
import { Sealer } from '../src/secrets/sealing.js';
import { generateSigningSecret } from '../src/secrets/tokens.js';
import { newId, randomBase62 } from '../src/ids.js';
import { recordEvent, recordEvents } from '../src/alerts/events.js';
import { startDispatcher } from '../src/delivery/dispatcher.js';
import { createGuardedSend } from '../src/delivery/guarded-http.js';
import { webhookHeaders } from '../src/delivery/signing.js';
import { buildDeliveryBody } from '../src/outbox/index.js';
import { startReceiver, type TestReceiver } from '../test/helpers/receiver.js';
import { snapshotFor } from '../test/delivery/support.js';
import { writeResultsBlock } from './results-file.js';

const here = path.dirname(fileURLToPath(import.meta.url));

interface Results {
  drainPerSecond: number;
  graphileDrainPerSecond: number;
  vigiaPerSecond: number;
  perEventPerSecond: number;
  limitPerSecond: number;
  graphilePerSecond: number;
  latencyP50: number;
  latencyP99: number;
  latencyCount: number;
  graphileLatencyP50: number;
  graphileLatencyP99: number;
  /** Drain on PGlite (NaN when skipped). */
  pgliteDrainPerSecond: number;
  n: number;
}

/** In-flight requests for all three contenders. */
const CONCURRENCY = 64;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

export async function createDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `vigia_bench_d_${randomBase62(8).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** The state change both producers commit: `ids.length` incidents opened by one multi-row insert. */
export const INSERT_ALERTS_SQL = `INSERT INTO alerts (id, org_id, source_type, source_id, source_name, notification_kind, severity, title, message, status,
                            created_at, last_occurrence_at, updated_at)
  SELECT a, $2, 'Gateway', a, 'Gateway', 'GatewayOffline', 'error', 'Gateway offline', 'down', 'open', $3, $3, $3 FROM unnest($1::text[]) AS a`;

/**
 * One transaction: `size` incidents open (one insert) and their events go through the real
 * outbox code. `batch`: recordEvents, as the escalation and release passes emit (one statement
 * for all events and their deliveries); otherwise one recordEvent per incident, as signal
 * ingestion emits (one statement per event).
 */
export async function produce(ctx: AppContext, orgId: string, size: number, commits: Map<string, number>, batch = true): Promise<void> {
  const ids = Array.from({ length: size }, () => newId('alt'));
  await ctx.db.tx(async (q) => {
    const now = ctx.clock.now();
    await q.query(INSERT_ALERTS_SQL, [ids, orgId, now]);
    const inputs = ids.map((alertId) => ({ orgId, alertId, event: 'alert.opened' as const, occurredAt: now, snapshot: snapshotFor(ctx, alertId), now }));
    if (batch) await recordEvents(q, inputs);
    else for (const input of inputs) await recordEvent(q, input);
  });
  const t = Date.now(); // same clock as the receiver's receivedAt
  for (const id of ids) commits.set(id, t);
}

function alertIdOf(raw: Buffer): string {
  return (JSON.parse(raw.toString('utf8')) as { alert: { id: string } }).alert.id;
}

export async function waitUntil(fn: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<number> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return performance.timeOrigin + performance.now();
    if (Date.now() > end) throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** An organization with one webhook destination pointing at the receiver. */
export async function benchDestination(ctx: AppContext, rx: TestReceiver): Promise<{ orgId: string; destId: string }> {
  const orgId = newId('org');
  const now = new Date();
  await ctx.db.query('INSERT INTO orgs (id, name, created_at, updated_at) VALUES ($1, $2, $3, $3)', [orgId, 'Bench', now]);
  const destId = newId('dst');
  await ctx.db.query(
    `INSERT INTO destinations (id, org_id, name, kind, url, signing_secret_sealed, created_at, updated_at)
     VALUES ($1, $2, 'bench', 'webhook', $3, $4, $5, $5)`,
    [destId, orgId, `${rx.origin}/vigia`, ctx.sealer.seal(generateSigningSecret()), now],
  );
  return { orgId, destId };
}

/** The configuration every bench context uses (a huge organization cap, the receiver allowed). */
export function benchConfig(key: Buffer, databaseUrl: string) {
  return {
    ...loadConfig({ VIGIA_SECRET_KEY: key.toString('base64'), VIGIA_BASE_URL: 'https://vigia.example.test', VIGIA_ORG_CAP_PER_CYCLE: '10000000' }),
    databaseUrl,
    destinationAllowlist: ['127.0.0.1'],
  };
}

/**
 * The drain alone on the embedded engine (PGlite, in memory, one connection shared by the
 * producer, the dispatcher and the completion poll): n deliveries committed first, then sent.
 */
export async function pgliteDrain(rx: TestReceiver, n: number, sharedBuffers?: string, dataDir?: string): Promise<number> {
  const key = randomBytes(32);
  const db = await createPgliteDatabase(dataDir, undefined, { sharedBuffers });
  const ctx: AppContext = { config: benchConfig(key, ''), db, clock: systemClock, log: createLogger('warn'), sealer: new Sealer(key) };
  const send = createGuardedSend(ctx);
  try {
    await migrate(db);
    const { orgId, destId } = await benchDestination(ctx, rx);
    const commits = new Map<string, number>();
    const succeeded = async () =>
      (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1 AND status = 'succeeded'`, [destId])).rows[0]!.n;
    const anyPending = async () => (await db.query<{ p: boolean }>(`SELECT EXISTS (SELECT 1 FROM deliveries WHERE status = 'pending') AS p`)).rows[0]!.p;
    let worker = await startDispatcher(ctx, { perDestination: CONCURRENCY, maxInFlight: CONCURRENCY, send });
    await produce(ctx, orgId, 100, commits); // warm-up
    await waitUntil(async () => (await succeeded()) >= 100, 60_000, 'pglite warm-up');
    await worker.stop();
    for (let done = 0; done < n; done += 100) await produce(ctx, orgId, Math.min(100, n - done), commits);
    rx.reset();
    const d0 = performance.timeOrigin + performance.now();
    worker = await startDispatcher(ctx, { perDestination: CONCURRENCY, maxInFlight: CONCURRENCY, send });
    const dEnd = await waitUntil(async () => !(await anyPending()), 300_000, 'pglite drain');
    await worker.stop();
    const got = await succeeded();
    if (got !== n + 100) throw new Error(`bench: pglite drain: ${got} of ${n + 100} deliveries succeeded`);
    return n / ((dEnd - d0) / 1000);
  } finally {
    await send.close();
    await db.close().catch(() => undefined);
  }
}

async function vigiaRun(ctx: AppContext, rx: TestReceiver, n: number, latencySeconds: number) {
  const { orgId, destId } = await benchDestination(ctx, rx);
  // One guarded client for the whole run, like the peer's one undici Agent: the drain's fresh
  // dispatcher starts with warm keep-alive connections exactly as graphile-worker's runner does.
  const send = createGuardedSend(ctx);
  let worker = await startDispatcher(ctx, { perDestination: CONCURRENCY, maxInFlight: CONCURRENCY, send });
  const count = async () =>
    (await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1 AND status = 'succeeded'`, [destId])).rows[0]!.n;
  // The completion poll (every 10 ms) must cost the database as little as graphile-worker's
  // "jobs left" count: ask whether any delivery is still pending (the partial due index, which
  // shrinks to nothing), not count the growing succeeded history. Once nothing is pending the
  // exact succeeded count is checked.
  const anyPending = async () =>
    (await ctx.db.query<{ p: boolean }>(`SELECT EXISTS (SELECT 1 FROM deliveries WHERE status = 'pending') AS p`)).rows[0]!.p;
  const allSucceeded = async (expected: number) => {
    if (await anyPending()) return false;
    const got = await count();
    if (got !== expected) throw new Error(`bench: nothing pending but ${got} of ${expected} deliveries succeeded`);
    return true;
  };
  try {
    // Warm-up (connections, JIT), not measured.
    const warm = new Map<string, number>();
    await produce(ctx, orgId, 100, warm);
    await waitUntil(async () => (await count()) >= 100, 60_000, 'warm-up').catch(async (err) => {
      const { rows } = await ctx.db.query('SELECT status, last_error, count(*)::int AS n FROM deliveries GROUP BY 1, 2');
      throw new Error(`${(err as Error).message}: ${JSON.stringify(rows)}`);
    });

    // 1a. Drain: n events committed first (worker paused), then the time to deliver them all.
    await worker.stop();
    rx.reset();
    const commits = new Map<string, number>();
    for (let done = 0; done < n; done += 100) await produce(ctx, orgId, Math.min(100, n - done), commits);
    const d0 = performance.timeOrigin + performance.now();
    worker = await startDispatcher(ctx, { perDestination: CONCURRENCY, maxInFlight: CONCURRENCY, send });
    const dEnd = await waitUntil(() => allSucceeded(n + 100), 120_000, 'drain run');
    const drainPerSecond = n / ((dEnd - d0) / 1000);

    // 1b. Sustained end to end: one producer commits batches of 100 while the dispatcher drains.
    rx.reset();
    const t0 = performance.timeOrigin + performance.now();
    for (let done = 0; done < n; done += 100) await produce(ctx, orgId, Math.min(100, n - done), commits);
    const tEnd = await waitUntil(() => allSucceeded(2 * n + 100), 120_000, 'throughput run');
    const vigiaPerSecond = n / ((tEnd - t0) / 1000);

    // 1c. The same, one recordEvent per incident (the signal-ingestion shape: one outbox
    //     statement per event instead of one per transaction).
    rx.reset();
    const s0 = performance.timeOrigin + performance.now();
    for (let done = 0; done < n; done += 100) await produce(ctx, orgId, Math.min(100, n - done), commits, false);
    const sEnd = await waitUntil(() => allSucceeded(3 * n + 100), 120_000, 'per-event throughput run');
    const perEventPerSecond = n / ((sEnd - s0) / 1000);

    // 2. Latency at 100 events/s, one event per transaction.
    rx.reset();
    const lat = new Map<string, number>();
    const total = latencySeconds * 100;
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + i * 10;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      void produce(ctx, orgId, 1, lat);
    }
    await waitUntil(() => rx.requests.length >= total, 60_000, 'latency run');
    const latencies = rx.requests.map((r) => r.receivedAt - lat.get(alertIdOf(r.rawBody))!).filter((x) => Number.isFinite(x));
    return { drainPerSecond, vigiaPerSecond, perEventPerSecond, latencyP50: percentile(latencies, 50), latencyP99: percentile(latencies, 99), latencyCount: latencies.length };
  } finally {
    await worker.stop();
    await send.close();
  }
}

/** A signed POST exactly as the dispatcher sends it (fresh timestamp and signature). */
function signedRequest(secret: string, deliveryId: string, body: string) {
  return { method: 'POST' as const, headers: webhookHeaders({ deliveryId, event: 'alert.opened', body, secret, now: new Date() }), body };
}

function sampleBodies(ctx: AppContext, n: number): { id: string; alertId: string; body: string }[] {
  return Array.from({ length: n }, () => {
    const id = newId('dlv');
    const alertId = newId('alt');
    return { id, alertId, body: buildDeliveryBody({ deliveryId: id, event: 'alert.opened', occurredAt: new Date(), alert: snapshotFor(ctx, alertId) }) };
  });
}

async function limitRun(ctx: AppContext, rx: TestReceiver, n: number): Promise<number> {
  const secret = generateSigningSecret();
  const agent = new Agent({ connections: 32, keepAliveTimeout: 4_000 });
  const items = sampleBodies(ctx, n);
  const send = async (it: { id: string; body: string }) => {
    const res = await request(`${rx.origin}/limit`, { dispatcher: agent, ...signedRequest(secret, it.id, it.body) });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`limit: HTTP ${res.statusCode}`);
  };
  await Promise.all(items.slice(0, 100).map(send)); // warm-up
  rx.reset();
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < n) await send(items[next++]!);
    }),
  );
  const perSecond = n / ((performance.now() - t0) / 1000);
  await agent.close();
  return perSecond;
}

async function graphileRun(ctx: AppContext, rx: TestReceiver, url: string, n: number, latencySeconds: number) {
  const secret = generateSigningSecret();
  const agent = new Agent({ connections: 32, keepAliveTimeout: 4_000 });
  const logger = new GraphileLogger(() => () => undefined);
  await graphileMigrations({ connectionString: url, logger });
  const start = () =>
    runGraphile({
      connectionString: url,
      concurrency: CONCURRENCY,
      noHandleSignals: true,
      pollInterval: 1000,
      maxPoolSize: 10,
      logger,
      taskList: {
        deliver: async (payload) => {
          const p = payload as { id: string; body: string };
          const res = await request(`${rx.origin}/graphile`, { dispatcher: agent, ...signedRequest(secret, p.id, p.body) });
          await res.body.text();
          if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}`);
        },
      },
    });
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const orgId = newId('org');
  await pool.query('INSERT INTO orgs (id, name, created_at, updated_at) VALUES ($1, $2, $3, $3)', [orgId, 'Bench graphile', new Date()]);
  // The same transaction as the outbox producer's: the same incidents opened (one insert), then
  // one job per incident (one statement for all of them).
  const add = async (items: { id: string; alertId: string; body: string }[]) => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(INSERT_ALERTS_SQL, [items.map((i) => i.alertId), orgId, new Date()]);
      await c.query(`SELECT graphile_worker.add_job('deliver', p::json) FROM jsonb_array_elements($1::jsonb) AS p`, [
        JSON.stringify(items.map(({ id, body }) => ({ id, body }))),
      ]);
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  };
  const remaining = async () => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM graphile_worker._private_jobs')).rows[0]!.n;
  let runner = await start();
  try {
    await add(sampleBodies(ctx, 100)); // warm-up
    await waitUntil(async () => (await remaining()) === 0, 60_000, 'graphile warm-up');

    // Drain: jobs added first (runner stopped), then the time to run them all.
    await runner.stop();
    rx.reset();
    const backlog = sampleBodies(ctx, n);
    for (let i = 0; i < n; i += 100) await add(backlog.slice(i, i + 100));
    const d0 = performance.timeOrigin + performance.now();
    runner = await start();
    const dEnd = await waitUntil(async () => (await remaining()) === 0, 120_000, 'graphile drain');
    const drainPerSecond = n / ((dEnd - d0) / 1000);

    // Sustained: jobs added while the runner works.
    rx.reset();
    const items = sampleBodies(ctx, n);
    const t0 = performance.timeOrigin + performance.now();
    for (let i = 0; i < n; i += 100) await add(items.slice(i, i + 100));
    const tEnd = await waitUntil(async () => (await remaining()) === 0, 120_000, 'graphile throughput');
    const perSecond = n / ((tEnd - t0) / 1000);

    // Latency at 100 jobs/s, one job per transaction.
    rx.reset();
    const commits = new Map<string, number>();
    const total = latencySeconds * 100;
    const lat = sampleBodies(ctx, total);
    const begin = performance.now();
    for (let i = 0; i < total; i++) {
      const wait = begin + i * 10 - performance.now();
      if (wait > 0) await sleep(wait);
      const it = lat[i]!;
      void add([it]).then(() => commits.set(it.id, Date.now()));
    }
    await waitUntil(() => rx.requests.length >= total, 60_000, 'graphile latency');
    const latencies = rx.requests
      .map((r) => r.receivedAt - (commits.get(String(r.headers['idempotency-key'])) ?? NaN))
      .filter((x) => Number.isFinite(x));
    return { drainPerSecond, perSecond, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  } finally {
    await runner.stop();
    await pool.end();
    await agent.close();
  }
}

export function machine(): string {
  const c = cpus();
  return `${c.length} × ${c[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}`;
}

export function median(values: number[]): number {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface Round extends Results {
  at: string;
  loadBefore: number;
  loadAfter: number;
}

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)} %` : '–');
const times = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');
const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '–');

/** Per round and the median: throughputs, ratios (each round's own, then their median), latency. */
export function roundsTable(rounds: Round[]): string {
  const ratios = (r: Results) => ({
    dl: r.drainPerSecond / r.limitPerSecond,
    sl: r.vigiaPerSecond / r.limitPerSecond,
    dg: r.drainPerSecond / r.graphileDrainPerSecond,
    sg: r.vigiaPerSecond / r.graphilePerSecond,
  });
  const row = (label: string, load: string, r: Results, q: ReturnType<typeof ratios>) =>
    `| ${label} | ${load} | ${f0(r.drainPerSecond)} / ${f0(r.vigiaPerSecond)} / ${f0(r.perEventPerSecond)} | ${f0(r.limitPerSecond)} | ` +
    `${f0(r.graphileDrainPerSecond)} / ${f0(r.graphilePerSecond)} | ${pct(q.dl)} / ${pct(q.sl)} | ${times(q.dg)} / ${times(q.sg)} | ` +
    `${r.latencyP50.toFixed(0)} / ${r.latencyP99.toFixed(0)} ms | ${f0(r.pgliteDrainPerSecond)} |`;
  const med = (k: keyof Results) => median(rounds.map((r) => r[k] as number));
  const medResults = Object.fromEntries(
    (Object.keys(rounds[0]!) as (keyof Round)[]).filter((k) => typeof rounds[0]![k] === 'number').map((k) => [k, med(k as keyof Results)]),
  ) as unknown as Results;
  const rq = rounds.map(ratios);
  const medRatios = { dl: median(rq.map((q) => q.dl)), sl: median(rq.map((q) => q.sl)), dg: median(rq.map((q) => q.dg)), sg: median(rq.map((q) => q.sg)) };
  return [
    '| Round (UTC) | Load before → after | Vigia drain / sustained / per-event (/s) | Limit (/s) | graphile-worker drain / sustained (/s) | Vigia/limit drain / sustained | Vigia/graphile drain / sustained | Latency p50 / p99 at 100 ev/s | PGlite drain (/s) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rounds.map((r, i) => row(r.at, `${r.loadBefore.toFixed(1)} → ${r.loadAfter.toFixed(1)}`, r, rq[i]!)),
    row(`**median of ${rounds.length}**`, '', medResults, medRatios),
  ].join('\n');
}

/** The heading of the block this bench writes; everything else in "## Delivery" is kept. */
const GENERATED_HEADING = '### Latest run (written by `npm run bench -- delivery`)';

/**
 * Writes the latest run as its own block inside "## Delivery", replacing only the previous
 * generated block (or appending it to the section), so the hand-written history of earlier
 * rounds stays.
 */
export function writeResults(rounds: Round[], meta: { date: string; pgVersion: string; seconds: number; n: number }): void {
  const file = process.env.BENCH_RESULTS_FILE ?? path.join(here, 'RESULTS.md');
  const block = [
    GENERATED_HEADING,
    '',
    `Measured ${meta.date} on ${machine()}, ${meta.pgVersion} on the same machine.`,
    `Command: \`npm run bench -- delivery\` (bench/delivery.ts; ${rounds.length} rounds, ${meta.seconds.toFixed(0)} s). Everything ran in one process and on`,
    'one machine: producer, dispatcher, the local HTTPS receiver (Node https, TLS 1.3, test CA), PostgreSQL.',
    `${meta.n} deliveries per measure; each round on a fresh database. Targets: Vigia/limit ≥ 50 %, Vigia/graphile-worker ≥ 1.5×, p99 ≤ 50 ms.`,
    '',
    roundsTable(rounds),
    '',
  ].join('\n');
  writeResultsBlock(file, 'Delivery', GENERATED_HEADING, block);
}

/** One round on a fresh PostgreSQL database: Vigia, the limit, graphile-worker, then the PGlite drain. */
async function runRound(adminUrl: string, n: number, latencySeconds: number, say: (s: string) => void): Promise<Round & { pgVersion: string }> {
  const loadBefore = loadavg()[0]!;
  const at = new Date().toISOString().slice(11, 16);
  const database = await createDatabase(adminUrl);
  const rx = await startReceiver();
  const key = randomBytes(32);
  const db = createPgDatabase(database.url, undefined, { max: 10 });
  const ctx: AppContext = { config: benchConfig(key, database.url), db, clock: systemClock, log: createLogger('warn'), sealer: new Sealer(key) };
  try {
    await migrate(db);
    const pgVersion = (await db.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    const v = await vigiaRun(ctx, rx, n, latencySeconds);
    say(`  vigia: drain ${v.drainPerSecond.toFixed(1)}/s, sustained ${v.vigiaPerSecond.toFixed(1)}/s (one recordEvent per event: ${v.perEventPerSecond.toFixed(1)}/s), latency p50 ${v.latencyP50.toFixed(1)} ms p99 ${v.latencyP99.toFixed(1)} ms`);
    const limitPerSecond = await limitRun(ctx, rx, n);
    say(`  limit (undici alone): ${limitPerSecond.toFixed(1)}/s`);
    const g = await graphileRun(ctx, rx, database.url, n, latencySeconds);
    say(`  graphile-worker: drain ${g.drainPerSecond.toFixed(1)}/s, sustained ${g.perSecond.toFixed(1)}/s, latency p50 ${g.p50.toFixed(1)} ms p99 ${g.p99.toFixed(1)} ms`);
    const pgliteDrainPerSecond = process.env.BENCH_PGLITE === '0' ? NaN : await pgliteDrain(rx, n);
    if (Number.isFinite(pgliteDrainPerSecond)) say(`  pglite: drain ${pgliteDrainPerSecond.toFixed(1)}/s`);
    say(`  ratios (drain): vigia/limit ${(100 * v.drainPerSecond / limitPerSecond).toFixed(0)} %, vigia/graphile ${(v.drainPerSecond / g.drainPerSecond).toFixed(2)}×`);
    say(`  ratios (sustained): vigia/limit ${(100 * v.vigiaPerSecond / limitPerSecond).toFixed(0)} %, vigia/graphile ${(v.vigiaPerSecond / g.perSecond).toFixed(2)}×`);
    return {
      at,
      loadBefore,
      loadAfter: loadavg()[0]!,
      pgVersion,
      drainPerSecond: v.drainPerSecond,
      graphileDrainPerSecond: g.drainPerSecond,
      vigiaPerSecond: v.vigiaPerSecond,
      perEventPerSecond: v.perEventPerSecond,
      limitPerSecond,
      graphilePerSecond: g.perSecond,
      latencyP50: v.latencyP50,
      latencyP99: v.latencyP99,
      latencyCount: v.latencyCount,
      graphileLatencyP50: g.p50,
      graphileLatencyP99: g.p99,
      pgliteDrainPerSecond,
      n,
    };
  } finally {
    await rx.close();
    await db.close().catch(() => undefined);
    await database.drop().catch(() => undefined);
  }
}

export async function runDeliveryBench(opts: { write?: boolean; log?: (s: string) => void } = {}): Promise<Round[]> {
  const say = opts.log ?? ((s: string) => process.stdout.write(`${s}\n`));
  const n = Number(process.env.BENCH_DELIVERIES ?? 4000);
  const latencySeconds = Number(process.env.BENCH_LATENCY_SECONDS ?? 15);
  const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
  const adminUrl = process.env.VIGIA_BENCH_PG_URL ?? process.env.VIGIA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const began = Date.now();
  const rounds: Round[] = [];
  let pgVersion = '';
  for (let i = 0; i < runs; i++) {
    say(`delivery bench round ${i + 1}/${runs}: ${n} deliveries, latency ${latencySeconds} s at 100/s (load ${loadavg()[0]!.toFixed(2)})`);
    const r = await runRound(adminUrl, n, latencySeconds, say);
    pgVersion = r.pgVersion;
    rounds.push(r);
  }
  say('');
  say(roundsTable(rounds));
  if (opts.write !== false && process.env.BENCH_WRITE !== '0') {
    writeResults(rounds, {
      date: `${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC`,
      pgVersion: `PostgreSQL ${pgVersion}`,
      seconds: (Date.now() - began) / 1000,
      n,
    });
  }
  return rounds;
}

export const run = runDeliveryBench;
export default runDeliveryBench;

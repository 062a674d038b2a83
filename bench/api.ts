/**
 * Public-API benchmark (issue 5): 1,000,000 alerts in one organization on PostgreSQL, then in one
 * run: requests/s of /alerts?pageSize=100 with auth on (rate limit raised), p50/p99 of the deepest
 * page (page=1000&pageSize=500 over a 366-day window), p50 of /alerts/metrics over 366 days and
 * of /sla — beside a static route of the same framework answering the same bytes.
 *
 * Run: `npm run bench -- api` (through bench/run.ts) or standalone `node --import tsx bench/api.ts`.
 * Needs a PostgreSQL server: VIGIA_BENCH_PG_URL (admin URL; default VIGIA_TEST_PG_URL or
 * postgres://postgres@127.0.0.1:5432/test). A scratch database is created and dropped.
 * Options (env): BENCH_ALERTS (1000000), BENCH_SECONDS (10 per throughput phase),
 * BENCH_CONCURRENCY (32), BENCH_NO_WRITE=1 to skip writing bench/RESULTS.md.
 */
import { loadavg } from 'node:os';
import { createScratchDatabase, latencies, machine, percentile, throughput } from './kit.js';
import { writeResultsSection } from './results-file.js';
import { runHostileBodyBench } from './hostile-bodies.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import pg from 'pg';
import { Pool } from 'undici';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { type Database, migrate } from '../src/db/index.js';
import { createPgDatabase } from '../src/db/pg.js';
import { createLogger } from '../src/logger.js';
import { compactAlertMetrics } from '../src/alerts/metrics-rollup.js';
import { compactAlertCounts } from '../src/alerts/rollup.js';
import { Sealer } from '../src/secrets/sealing.js';
import { generateApiKey } from '../src/secrets/tokens.js';
import { randomBytes } from 'node:crypto';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface ApiBenchResult {
  alerts: number;
  loadSeconds: number;
  /** Of loadSeconds: the bulk INSERT (through the rollup triggers) and the metrics compaction with the checkpoint build. */
  insertSeconds: number;
  metricsCompactSeconds: number;
  listRps: number;
  staticRps: number;
  listRatio: number;
  deepPageP50Ms: number;
  deepPageP99Ms: number;
  metricsP50Ms: number;
  slaP50Ms: number;
  concurrency: number;
  seconds: number;
  /** 1-minute load average at the start and at the end of the measurements. */
  loadBefore: number;
  loadAfter: number;
}

const ms = (v: number) => Math.round(v * 10) / 10;

/** Where the load's time went, in seconds. */
export interface LoadTimings {
  insertSeconds: number;
  metricsCompactSeconds: number;
}

export async function load(
  db: pg.Client,
  orgId: string,
  n: number,
  nowIso: string,
  timings: LoadTimings = { insertSeconds: 0, metricsCompactSeconds: 0 },
) {
  const t0 = performance.now();
  // One INSERT … SELECT: spread over the 366 days before now, ~32 s apart, deterministic mix.
  await db.query(
    `INSERT INTO alerts (id, org_id, source_type, source_id, source_name, notification_kind, severity, title, message,
        workspace_name, capacity_name, status, acknowledged, acknowledged_at, created_at, resolved_at, failure_count,
        last_occurrence_at, silenced, correlated, updated_at)
     SELECT 'alr_' || lpad(i::text, 10, '0'), $1,
            (ARRAY['Gateway','Capacity','Dataset','FabricJob','Mirroring','DataFreshness','Connector'])[1 + i % 7],
            'src-' || i, 'Source ' || (i % 997), 'Kind' || (i % 7),
            CASE WHEN i % 10 < 8 THEN 'error' ELSE 'info' END,
            'Incident ' || i, 'Something failed on source ' || (i % 997) || ', attempt ' || i,
            'Workspace ' || (i % 50), 'cap-' || (i % 20),
            CASE WHEN i % 10 = 0 THEN 'open' ELSE 'resolved' END,
            i % 5 < 3, CASE WHEN i % 5 < 3 THEN c + (60 + i % 1800) * interval '1 second' END,
            c, CASE WHEN i % 10 <> 0 THEN c + (600 + (i * 7) % 7200) * interval '1 second' END,
            1 + i % 5, c, i % 50 = 0, i % 40 = 0, c
       FROM (SELECT i, $2::timestamptz - (i::float8 * 366 * 86400 / $3) * interval '1 second' AS c
               FROM generate_series(1, $3::int) AS i) s`,
    [orgId, nowIso, n],
  );
  timings.insertSeconds = (performance.now() - t0) / 1000;
  await db.query(
    `INSERT INTO capacities (org_id, name, sku, state, region)
     SELECT $1, 'cap-' || i, 'F64', 'Active', 'brazilsouth' FROM generate_series(0, 19) i`,
    [orgId],
  );
  // The bulk INSERT left the count rollup (migration 031) as pending deltas, one per group; a
  // running system folds them as it goes (compactAlertCounts, from list requests) and
  // autovacuum then tidies the rollup. Do both once here so the run starts in that steady state.
  await compactAlertCounts({ query: (text, params) => db.query(text, params as unknown[]) as never, exec: async (t) => void (await db.query(t)) }, orgId);
  // Folds the metrics deltas and builds the organization's prefix checkpoints (migration 071).
  // (through a transaction on this client, as the service's own Database runs it).
  const q = { query: (text: string, params?: unknown[]) => db.query(text, params as unknown[]) as never, exec: async (t: string) => void (await db.query(t)) };
  const tx = async <T>(fn: (c: typeof q) => Promise<T>): Promise<T> => {
    await db.query('BEGIN');
    try {
      const r = await fn(q);
      await db.query('COMMIT');
      return r;
    } catch (err) {
      await db.query('ROLLBACK');
      throw err;
    }
  };
  const t1 = performance.now();
  await compactAlertMetrics({ ...q, tx } as unknown as Database, orgId);
  timings.metricsCompactSeconds = (performance.now() - t1) / 1000;
  await db.query('VACUUM ANALYZE alerts');
  await db.query('VACUUM ANALYZE alert_metrics_rollup');
  await db.query('VACUUM ANALYZE alert_durations_rollup');
  await db.query('VACUUM ANALYZE alert_metrics_prefix');
  await db.query('VACUUM ANALYZE alert_durations_prefix');
  await db.query('VACUUM ANALYZE alert_metrics_checkpoints');
  await db.query('VACUUM ANALYZE alert_counts');
  await db.query('VACUUM ANALYZE alert_counts_daily');
  await db.query('VACUUM ANALYZE capacities');
}

export async function runApiBench(opts: { write?: boolean; log?: (s: string) => void } = {}): Promise<ApiBenchResult> {
  const say = opts.log ?? ((s: string) => process.stdout.write(`${s}\n`));
  const n = Number(process.env.BENCH_ALERTS ?? 1_000_000);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
  const scratch = await createScratchDatabase();
  const dbName = scratch.name;
  const url = new URL(scratch.url);
  const client = new pg.Client({ connectionString: url.toString() });
  const db = createPgDatabase(url.toString(), undefined, { max: 10 });
  const servers: Array<{ close(): Promise<unknown> }> = [];
  try {
    await client.connect();
    await migrate(db);
    const orgId = 'org_bench';
    await client.query(
      `INSERT INTO orgs (id, name, created_at, updated_at) VALUES ($1, 'Bench', now(), now())`,
      [orgId],
    );
    const { key, prefix, hash } = generateApiKey();
    await client.query(
      `INSERT INTO api_keys (id, org_id, name, prefix, key_hash, scopes, created_at)
       VALUES ('key_bench', $1, 'bench', $2, $3, $4, now())`,
      [orgId, prefix, hash, ['ReadAlerts', 'ReadMetrics', 'ReadCapacities', 'ReadWorkspaces', 'ReadCosts', 'ReadSla']],
    );
    const now = new Date();
    say(`loading ${n} alerts into ${dbName}…`);
    const t0 = performance.now();
    const timings: LoadTimings = { insertSeconds: 0, metricsCompactSeconds: 0 };
    await load(client, orgId, n, now.toISOString(), timings);
    const loadSeconds = (performance.now() - t0) / 1000;
    say(`loaded in ${loadSeconds.toFixed(1)} s (insert ${timings.insertSeconds.toFixed(1)} s, metrics compaction ${timings.metricsCompactSeconds.toFixed(1)} s)`);

    const config = {
      ...loadConfig({ VIGIA_LOG_LEVEL: 'warn', VIGIA_SECRET_KEY: randomBytes(32).toString('base64') }),
      databaseUrl: url.toString(),
      apiRateLimitPerMinute: 100_000_000,
    };
    const ctx: AppContext = { config, db, clock: systemClock, log: createLogger('warn'), sealer: new Sealer(randomBytes(32)) };
    const app = await buildApp(ctx);
    const apiAddress = await app.listen({ port: 0, host: '127.0.0.1' });
    servers.push(app);
    const headers = { 'x-api-key': key };
    const apiPool = new Pool(apiAddress, { connections: concurrency });
    servers.push(apiPool);

    // The limit: same framework, a static route answering the very bytes of the list response.
    const sample = await apiPool.request({ method: 'GET', path: '/api/public/v1/alerts?pageSize=100', headers });
    const sampleBytes = Buffer.from(await sample.body.arrayBuffer());
    if (sample.statusCode !== 200) throw new Error(`sample request failed: ${sample.statusCode}`);
    const staticApp = Fastify();
    staticApp.get('/static', async (_req, reply) =>
      reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(sampleBytes),
    );
    const staticAddress = await staticApp.listen({ port: 0, host: '127.0.0.1' });
    servers.push(staticApp);
    const staticPool = new Pool(staticAddress, { connections: concurrency });
    servers.push(staticPool);

    const loadBefore = loadavg()[0]!;
    say(`list page: ${sampleBytes.length} bytes; throughput phases of ${seconds} s at concurrency ${concurrency}`);
    await throughput(staticPool, '/static', {}, concurrency, 1); // warm-up
    const staticRps = await throughput(staticPool, '/static', {}, concurrency, seconds);
    await throughput(apiPool, '/api/public/v1/alerts?pageSize=100', headers, concurrency, 1);
    const listRps = await throughput(apiPool, '/api/public/v1/alerts?pageSize=100', headers, concurrency, seconds);

    const from = new Date(now.getTime() - 366 * 86_400_000).toISOString();
    const deep = `/api/public/v1/alerts?from=${from}&to=${now.toISOString()}&page=1000&pageSize=500`;
    const deepL = await latencies(apiPool, deep, headers, 40);
    const today = now.toISOString().slice(0, 10);
    const yearAgo = new Date(now.getTime() - 365 * 86_400_000).toISOString().slice(0, 10);
    const metricsL = await latencies(apiPool, `/api/public/v1/alerts/metrics?from=${yearAgo}&to=${today}`, headers, 10, 2);
    const slaL = await latencies(apiPool, '/api/public/v1/sla', headers, 10, 2);

    const result: ApiBenchResult = {
      alerts: n,
      loadSeconds: ms(loadSeconds),
      insertSeconds: ms(timings.insertSeconds),
      metricsCompactSeconds: ms(timings.metricsCompactSeconds),
      listRps: Math.round(listRps),
      staticRps: Math.round(staticRps),
      listRatio: Math.round((listRps / staticRps) * 1000) / 10,
      deepPageP50Ms: ms(percentile(deepL, 50)),
      deepPageP99Ms: ms(percentile(deepL, 99)),
      metricsP50Ms: ms(percentile(metricsL, 50)),
      slaP50Ms: ms(percentile(slaL, 50)),
      concurrency,
      seconds,
      loadBefore: Math.round(loadBefore * 100) / 100,
      loadAfter: Math.round(loadavg()[0]! * 100) / 100,
    };
    say(JSON.stringify(result, null, 2));
    if (opts.write !== false && process.env.BENCH_NO_WRITE !== '1') writeResults(result);
    return result;
  } finally {
    for (const s of servers.reverse()) await s.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    await client.end().catch(() => undefined);
    await scratch.drop();
  }
}

const ANALYSIS = [
  'What changed (migration 031 and src/public-api/queries): `totalCount` comes from a count rollup',
  '(`alert_counts` per organization, UTC hour, status and source type; `alert_counts_daily` per UTC',
  "day), kept by statement-level triggers on `alerts` in the writer's transaction, plus exact index",
  'counts of the two partial edge hours, in one statement; a deep page starts at the latest hour or day',
  'boundary with at most `offset` newer rows and skips only the rest (at most one day of rows); list',
  'timestamps come from SQL as text; the key lookup and both list statements are named prepared',
  'statements on PostgreSQL (planned once per connection); metrics run two scans instead of three,',
  'the median sorts with 64 MB of work_mem (they spilled to temporary files under the default 4 MB).',
  'Every answer is the same as before (tests compare totalCount and pages with the plain count(*)',
  'and OFFSET queries on the same rows, on both engines).',
  '',
  'Before these changes (same machine and command, 2026-11-22 03:40 UTC): list 248 req/s against',
  'static 16069 (1.5 %); deepest page p50 / p99 270.2 / 299.3 ms; metrics 1336.5 ms; SLA 210.8 ms.',
  '',
  'What limits the rest:',
  '',
  '- List: per request, three database round trips (key lookup, total, page; prepared, so no',
  '  planning), pg row parsing and serializing 40 KB of JSON (~1.7 ms of Node CPU per request,',
  '  load generator included), on the same 2 cores as PostgreSQL and the other test runs. The static',
  '  route does no database work at all; 40 % of it (~6,000 req/s) leaves ~0.3 ms of CPU per',
  '  request, less than the database round trips alone cost here.',
  '- Metrics over 366 days (issue 12, migrations 070 and 071): exact, from rollups kept beside the',
  '  alerts: per-day and per-month group counts and duration histograms (appended by statement',
  '  triggers) and weekly prefix checkpoints of them (written only by the compaction), so the window',
  '  is the difference of two cumulative states plus at most ~3 edge days each side: ~14,000 group',
  '  rows and ~16,000 histogram rows instead of 1,000,000 alerts sorted. What is left is hashing those',
  '  rows and sending ~9,000 histogram bins to Node. `/sla` reads one month of monthly rows and',
  '  computes the availability union in SQL, reading of the never-resolved Capacity incidents only',
  '  the earliest per capacity (partial index, migration 072). Dated write-ups: the subsections below.',
  '- Write path: the rollup triggers add one trigger call per statement (the rollup is append-only:',
  '  no row locks, no new deadlocks). A 1,000-signal ingest batch on pg (scratch database, 6 batches',
  '  per run, 4 alternating runs each way): median batch 449–762 ms per run without migration 031,',
  '  495–968 ms with it — ~10 % slower on average, within this machine\'s noise. Bulk loads pay one',
  '  aggregate per statement: this benchmark\'s load (insert, compaction, VACUUM) took 13–19 s, ~10 s before.',
];

/** Whether bench/run.ts (npm run bench) started us, rather than a standalone run of this file. */
function viaRunner(): boolean {
  return /run\.ts$/.test(process.argv[1] ?? '');
}

/** Replaces the "## Public API" section of bench/RESULTS.md (other sections are kept as they are). */
function writeResults(r: ApiBenchResult): void {
  const file = path.join(ROOT, 'bench', 'RESULTS.md');
  const section = [
    '## Public API',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}, PostgreSQL on the same machine.`,
    `Command: \`${viaRunner() ? 'npm run bench -- api' : 'node --import tsx bench/api.ts'}\`. ${r.alerts.toLocaleString('en-US')} alerts in one organization`,
    `(loaded in ${r.loadSeconds} s: one INSERT … SELECT generate_series through the rollup triggers (${r.insertSeconds} s), the rollup compactions`,
    `with the first build of the metrics checkpoints (${r.metricsCompactSeconds} s), then`,
    'VACUUM ANALYZE); load generator in process',
    `(undici Pool, ${r.concurrency} requests in flight, ${r.seconds} s per throughput phase), so server and client share the CPUs.`,
    `The machine was shared with other test runs: 1-minute load average ${r.loadBefore} before and ${r.loadAfter} after the measurements.`,
    '',
    '| Measure | Result | Target |',
    '|---|---|---|',
    `| \`/alerts?pageSize=100\` with auth (rate limit raised) | ${r.listRps} req/s | |`,
    `| static Fastify route, same bytes | ${r.staticRps} req/s | |`,
    `| list throughput / static | ${r.listRatio} % | ≥ 40 % |`,
    `| deepest page \`page=1000&pageSize=500\` (366-day window) p50 / p99 | ${r.deepPageP50Ms} / ${r.deepPageP99Ms} ms | p99 ≤ 60 ms |`,
    `| \`/alerts/metrics\` over 366 days, p50 | ${r.metricsP50Ms} ms | ≤ 100 ms |`,
    `| \`/sla\` (previous month), p50 | ${r.slaP50Ms} ms | ≤ 50 ms |`,
    '',
    ...ANALYSIS,
    '',
    '',
  ].join('\n');
  writeResultsSection(file, 'Public API', section);
}

/** `npm run bench -- api`: the main public-API benchmark, then the hostile-body flood (its own section). */
export async function run(): Promise<void> {
  await runApiBench();
  await runHostileBodyBench();
}
export default run;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runApiBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

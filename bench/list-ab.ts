/**
 * List throughput, this checkout against an earlier commit, in one run (issue 12 item 3: "≥ 2×
 * today's list req/s in the same benchmark run"). One scratch PostgreSQL database with the
 * public-API bench's 1,000,000 alerts; two servers, each its own process started as a user
 * would (`src/main.ts serve --no-worker`), one from this checkout and one from a git worktree of
 * BENCH_BASELINE_REF; the same undici load generator measures them in turns (A, B, A, B, …) and
 * reports each one's median, beside a static Fastify route answering the same bytes.
 *
 * Run: `npm run bench -- list-ab` (or `node --import tsx bench/list-ab.ts`). Env: BENCH_BASELINE_REF
 * (default f8904f7, the last commit before the key cache and the one-statement page),
 * BENCH_ALERTS (1000000), BENCH_SECONDS (10 per phase), BENCH_ROUNDS (3), BENCH_CONCURRENCY (32),
 * BENCH_NO_WRITE=1 to skip writing bench/RESULTS.md. Needs PostgreSQL (VIGIA_BENCH_PG_URL).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import pg from 'pg';
import { Pool } from 'undici';
import { migrate } from '../src/db/index.js';
import { createPgDatabase } from '../src/db/pg.js';
import { generateApiKey } from '../src/secrets/tokens.js';
import { load } from './api.js';
import { createScratchDatabase, latencies, machine, median, percentile, throughput } from './kit.js';
import { writeResultsSection } from './results-file.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LIST = '/api/public/v1/alerts?pageSize=100';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A detached worktree of `ref` beside the temp dir, sharing this checkout's node_modules. */
function baselineCheckout(ref: string): string {
  const dir = path.join(tmpdir(), `vigia-baseline-${ref}`);
  if (!existsSync(dir)) {
    execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: ROOT, stdio: 'ignore' });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  }
  return dir;
}

async function startServer(cwd: string, databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--no-worker'], {
    cwd,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      VIGIA_LOG_LEVEL: 'warn',
      VIGIA_SECRET_KEY: randomBytes(32).toString('base64'),
      VIGIA_API_RATE_LIMIT: '10000000',
      VIGIA_API_INVALID_KEY_LIMIT: '1000',
    },
  });
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (let i = 0; i < 300 && !exited; i++) {
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) return { url, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server in ${cwd} did not start`);
}

export async function runListAbBench(): Promise<void> {
  const ref = process.env.BENCH_BASELINE_REF ?? 'f8904f7';
  const n = Number(process.env.BENCH_ALERTS ?? 1_000_000);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
  const scratch = await createScratchDatabase();
  const url = new URL(scratch.url);
  const client = new pg.Client({ connectionString: url.toString() });
  const closers: Array<() => Promise<unknown> | unknown> = [];
  try {
    await client.connect();
    const db = createPgDatabase(url.toString(), undefined, { max: 2 });
    await migrate(db);
    await db.close();
    await client.query(`INSERT INTO orgs (id, name, created_at, updated_at) VALUES ('org_bench', 'Bench', now(), now())`);
    const { key, prefix, hash } = generateApiKey();
    await client.query(
      `INSERT INTO api_keys (id, org_id, name, prefix, key_hash, scopes, created_at)
       VALUES ('key_bench', 'org_bench', 'bench', $1, $2, $3, now())`,
      [prefix, hash, ['ReadAlerts']],
    );
    const now = new Date();
    process.stdout.write(`loading ${n} alerts…\n`);
    await load(client, 'org_bench', n, now.toISOString());

    const baselineDir = baselineCheckout(ref);
    const current = await startServer(ROOT, url.toString());
    closers.push(() => current.child.kill('SIGTERM'));
    const baseline = await startServer(baselineDir, url.toString());
    closers.push(() => baseline.child.kill('SIGTERM'));
    const headers = { 'x-api-key': key };
    const pools = { current: new Pool(current.url, { connections: concurrency }), baseline: new Pool(baseline.url, { connections: concurrency }) };
    closers.push(() => pools.current.close(), () => pools.baseline.close());

    // Both answer the same page (same items, same total) — the comparison is of equal work.
    const [a, b] = await Promise.all(
      [pools.current, pools.baseline].map(async (p) => (await p.request({ method: 'GET', path: LIST, headers })).body.text()),
    );
    // (nextLink pins the default window's end, `now`, which differs by the request's millisecond.)
    const same = (x: string) => {
      const { value, totalCount } = JSON.parse(x);
      return JSON.stringify({ value, totalCount });
    };
    if (same(a!) !== same(b!)) throw new Error(`the two servers answer different pages:\n${a!.slice(0, 600)}\n${b!.slice(0, 600)}`);
    const sample = Buffer.from(a!);
    const staticApp = Fastify();
    staticApp.get('/static', async (_req, reply) =>
      reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(sample),
    );
    const staticAddress = await staticApp.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => staticApp.close());
    const staticPool = new Pool(staticAddress, { connections: concurrency });
    closers.push(() => staticPool.close());

    const loadBefore = loadavg()[0]!;
    const rps = { current: [] as number[], baseline: [] as number[], static: [] as number[] };
    for (const p of [pools.current, pools.baseline, staticPool]) await throughput(p, p === staticPool ? '/static' : LIST, headers, concurrency, 1);
    for (let r = 0; r < rounds; r++) {
      rps.current.push(await throughput(pools.current, LIST, headers, concurrency, seconds));
      rps.baseline.push(await throughput(pools.baseline, LIST, headers, concurrency, seconds));
      rps.static.push(await throughput(staticPool, '/static', {}, concurrency, seconds));
      process.stdout.write(`round ${r + 1}: current ${rps.current[r]!.toFixed(0)}, baseline ${rps.baseline[r]!.toFixed(0)}, static ${rps.static[r]!.toFixed(0)} req/s\n`);
    }
    const from = new Date(now.getTime() - 366 * 86_400_000).toISOString();
    const deep = `/api/public/v1/alerts?from=${from}&to=${now.toISOString()}&page=1000&pageSize=500`;
    const deepCurrent = await latencies(pools.current, deep, headers, 100, 5);
    const deepBaseline = await latencies(pools.baseline, deep, headers, 100, 5);
    const loadAfter = loadavg()[0]!;

    const m = { current: median(rps.current), baseline: median(rps.baseline), static: median(rps.static) };
    const round1 = (v: number) => Math.round(v * 10) / 10;
    const rows = [
      `| \`${LIST}\`, this checkout | ${rps.current.map((v) => v.toFixed(0)).join(' / ')} | **${m.current.toFixed(0)} req/s** |`,
      `| same, baseline \`${ref}\` | ${rps.baseline.map((v) => v.toFixed(0)).join(' / ')} | ${m.baseline.toFixed(0)} req/s |`,
      `| static Fastify route, same bytes | ${rps.static.map((v) => v.toFixed(0)).join(' / ')} | ${m.static.toFixed(0)} req/s |`,
      `| this checkout / baseline | | **${(m.current / m.baseline).toFixed(2)} ×** (target ≥ 2 ×) |`,
      `| this checkout / static | | ${round1((m.current / m.static) * 100)} % (baseline ${round1((m.baseline / m.static) * 100)} %) |`,
      `| deepest page \`page=1000&pageSize=500\` p50 / p99, this checkout | | ${round1(percentile(deepCurrent, 50))} / ${round1(percentile(deepCurrent, 99))} ms (target p99 ≤ 20 ms) |`,
      `| same, baseline | | ${round1(percentile(deepBaseline, 50))} / ${round1(percentile(deepBaseline, 99))} ms |`,
    ];
    const section = [
      '## Public API list, this checkout against a baseline commit',
      '',
      `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}, PostgreSQL on the same machine.`,
      `Command: \`npm run bench -- list-ab\` (bench/list-ab.ts). ${n.toLocaleString('en-US')} alerts in one organization (the public-API bench's load), one`,
      'database; each server its own process (`src/main.ts serve --no-worker`), the baseline from a git worktree of the',
      `baseline commit; undici Pool, ${concurrency} requests in flight, ${seconds} s per phase, ${rounds} rounds taken in turns (this checkout,`,
      `baseline, static), median per server; the deepest page: 100 sequential requests each. 1-minute load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after.`,
      '',
      '| Measure | Rounds | Median |',
      '|---|---|---|',
      ...rows,
      '',
      'What the baseline does per list request: the key lookup, then the total and the page as two statements in',
      'parallel on two pooled connections (three round trips), pg parses every row into an object and Fastify',
      'serializes 100 items. This checkout, once the key is cached: one statement (key re-check, total, page, and the',
      'page as one JSON array text joined by PostgreSQL from the items stored with the alerts, migration 081), one',
      'text column parsed, the envelope written around it. Both servers run against the same database, migrated by',
      'this checkout (so the baseline reads rows that also hold the stored item).',
      '',
      '',
    ].join('\n');
    process.stdout.write(`${section}\n`);
    if (process.env.BENCH_NO_WRITE !== '1') writeResultsSection(path.join(ROOT, 'bench', 'RESULTS.md'), 'Public API list, this checkout against a baseline commit', section);
  } finally {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    await client.end().catch(() => undefined);
    await scratch.drop();
  }
}

export default runListAbBench;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runListAbBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

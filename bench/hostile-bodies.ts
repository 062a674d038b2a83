/**
 * Public-API benchmark, hostile bodies: the p50 of a valid GET while quiet, then while two
 * anonymous clients flood the API with huge bodies (`POST /api/public/v1/alerts` announcing
 * 3.8 MB of `[`…`]`, and `GET` with the same body), each client reconnecting as soon as the
 * server closes its connection. The public API must answer them without reading the body, so the
 * valid GET should stay under 2× its quiet p50. Also reports how many body bytes the flood
 * managed to push per request before the server closed the connection.
 *
 * Run: `npm run bench -- api` (after the main public-API benchmark) or standalone
 * `node --import tsx bench/hostile-bodies.ts`. Needs PostgreSQL as bench/api.ts does
 * (VIGIA_BENCH_PG_URL). Options (env): BENCH_HOSTILE_SAMPLES (300 per phase), BENCH_HOSTILE_ROUNDS (5),
 * BENCH_NO_WRITE=1.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { migrate } from '../src/db/index.js';
import { createPgDatabase } from '../src/db/pg.js';
import { createLogger } from '../src/logger.js';
import { Sealer } from '../src/secrets/sealing.js';
import { generateApiKey } from '../src/secrets/tokens.js';
import { createScratchDatabase, machine } from './kit.js';
import { writeResultsSection } from './results-file.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BODY_BYTES = 3_800_000;
const HOSTILE_CLIENTS = 2;

export interface HostileBodyResult {
  quietP50Ms: number;
  floodP50Ms: number;
  ratio: number;
  /** flood / quiet of every round; the reported values are those of the median round. */
  ratios: number[];
  /** The valid GET's p50 while the same flood hits a bare sink instead of Vigia, and its ratio. */
  controlP50Ms: number;
  controlRatio: number;
  /** Event-loop utilization of the server process while flooded (0–1). */
  eventLoopUtilization: number;
  samples: number;
  hostileRequests: number;
  /** Answers to hostile requests by status code. */
  hostileStatuses: Record<string, number>;
  /** Median body bytes a hostile client had handed to its socket when the server closed it. */
  bytesPushedP50: number;
  /** Median and largest number of bytes the server read from a hostile connection (headers included). */
  serverBytesReadP50: number;
  serverBytesReadMax: number;
  rssMiB: number;
  loadBefore: number;
  loadAfter: number;
}

const p50 = (xs: number[]) => (xs.length === 0 ? 0 : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
const round1 = (v: number) => Math.round(v * 10) / 10;

async function sequentialLatencies(pool: Pool, pathAndQuery: string, headers: Record<string, string>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await pool.request({ method: 'GET', path: pathAndQuery, headers });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`${pathAndQuery}: ${res.statusCode}`);
    out.push(performance.now() - t0);
  }
  return out;
}

interface FloodStats {
  requests: number;
  statuses: Record<string, number>;
  bytesPushed: number[];
}

/** One hostile request on a fresh connection: headers, then the body as fast as the socket takes it. */
function hostileRequest(port: number, method: 'POST' | 'GET', stats: FloodStats): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const open = Buffer.alloc(64 * 1024, '[');
    const close = Buffer.alloc(64 * 1024, ']');
    let pushed = 0;
    let answer = '';
    let closed = false;
    const pump = () => {
      while (!closed && pushed < BODY_BYTES) {
        const chunk = pushed < BODY_BYTES / 2 ? open : close;
        const piece = chunk.subarray(0, Math.min(chunk.length, BODY_BYTES - pushed));
        pushed += piece.length;
        if (!socket.write(piece)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    socket.on('data', (d: Buffer) => {
      if (answer.length < 64) answer += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      stats.requests += 1;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'none';
      stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
      stats.bytesPushed.push(pushed);
      resolve();
    });
    socket.write(
      `${method} /api/public/v1/alerts HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`,
    );
    pump();
  });
}

async function hostileClient(port: number, stop: { done: boolean }, stats: FloodStats): Promise<void> {
  for (let i = 0; !stop.done; i++) await hostileRequest(port, i % 2 ? 'GET' : 'POST', stats);
}

/**
 * The flood runs in a child process (this file with `--flood <port>`), as outside clients would:
 * its own CPU time is not charged to the server's event loop. It stops and reports on "stop".
 */
async function floodProcessMain(port: number): Promise<void> {
  const stop = { done: false };
  const stats: FloodStats = { requests: 0, statuses: {}, bytesPushed: [] };
  const clients = Array.from({ length: HOSTILE_CLIENTS }, () => hostileClient(port, stop, stats));
  process.on('message', async () => {
    stop.done = true;
    await Promise.all(clients);
    process.send!(stats, () => process.exit(0));
  });
  process.send!('started');
}

function startFlood(port: number): Promise<{ stop(): Promise<FloodStats> }> {
  const child = fork(fileURLToPath(import.meta.url), ['--flood', String(port)], { execArgv: ['--import', 'tsx'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', () =>
      resolve({
        stop: () =>
          new Promise<FloodStats>((done) => {
            child.once('message', (stats) => done(stats as FloodStats));
            child.send('stop');
          }),
      }),
    );
  });
}

interface Round {
  quiet: number;
  control: number;
  flood: number;
  ratio: number;
  elu: number;
}

/**
 * One round: the valid GET's p50 quiet; then while the flood hits a bare TCP sink in this process
 * that answers 405 and closes at once (the least any server can do: what that costs the valid GET
 * is the flood's own cost on this machine — the attacker's CPU, the kernel's copies); then while
 * the same flood hits Vigia.
 */
async function measureRound(pool: Pool, port: number, valid: string, headers: Record<string, string>, samples: number, stats: FloodStats): Promise<Round> {
  const quiet = p50(await sequentialLatencies(pool, valid, headers, samples));

  const sink = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    socket.destroy();
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
  const sinkFlood = await startFlood((sink.address() as net.AddressInfo).port);
  await new Promise((r) => setTimeout(r, 500));
  const control = p50(await sequentialLatencies(pool, valid, headers, samples));
  await sinkFlood.stop();
  await new Promise((r) => sink.close(() => r(undefined)));

  const flood = await startFlood(port);
  await new Promise((r) => setTimeout(r, 500)); // let the flood get going
  const elu0 = performance.eventLoopUtilization();
  const flooded = p50(await sequentialLatencies(pool, valid, headers, samples));
  const elu = performance.eventLoopUtilization(elu0).utilization;
  const got = await flood.stop();
  stats.requests += got.requests;
  for (const [k, v] of Object.entries(got.statuses)) stats.statuses[k] = (stats.statuses[k] ?? 0) + v;
  stats.bytesPushed.push(...got.bytesPushed);
  return { quiet, control, flood: flooded, ratio: flooded / quiet, elu };
}

export async function runHostileBodyBench(opts: { write?: boolean; log?: (s: string) => void } = {}): Promise<HostileBodyResult> {
  const say = opts.log ?? ((s: string) => process.stdout.write(`${s}\n`));
  const samples = Number(process.env.BENCH_HOSTILE_SAMPLES ?? 300);
  const roundsWanted = Number(process.env.BENCH_HOSTILE_ROUNDS ?? 5);
  const scratch = await createScratchDatabase();
  const url = new URL(scratch.url);
  const db = createPgDatabase(url.toString(), undefined, { max: 10 });
  const closers: Array<{ close(): Promise<unknown> }> = [];
  try {
    await migrate(db);
    await db.query(`INSERT INTO orgs (id, name, created_at, updated_at) VALUES ('org_bench', 'Bench', now(), now())`);
    const { key, prefix, hash } = generateApiKey();
    await db.query(
      `INSERT INTO api_keys (id, org_id, name, prefix, key_hash, scopes, created_at)
       VALUES ('key_bench', 'org_bench', 'bench', $1, $2, $3, now())`,
      [prefix, hash, ['ReadAlerts', 'ReadCapacities']],
    );
    await db.query(
      `INSERT INTO capacities (org_id, name, sku, state, region)
       SELECT 'org_bench', 'cap-' || i, 'F64', 'Active', 'brazilsouth' FROM generate_series(0, 19) i`,
    );
    const config = {
      ...loadConfig({ VIGIA_LOG_LEVEL: 'warn', VIGIA_SECRET_KEY: randomBytes(32).toString('base64') }),
      databaseUrl: url.toString(),
      apiRateLimitPerMinute: 100_000_000,
    };
    const ctx: AppContext = { config, db, clock: systemClock, log: createLogger('warn'), sealer: new Sealer(randomBytes(32)) };
    const app = await buildApp(ctx);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(app);
    const port = Number(new URL(address).port);
    const pool = new Pool(address, { connections: 1 });
    closers.push(pool);
    const valid = '/api/public/v1/capacities';
    const headers = { 'x-api-key': key };

    const loadBefore = loadavg()[0]!;
    await sequentialLatencies(pool, valid, headers, 20); // warm-up
    // What the server actually read from each hostile connection (the valid client's single
    // connection closes only at the end, after these are taken).
    const serverBytesRead: number[] = [];
    app.server.on('connection', (socket: net.Socket) => socket.on('close', () => serverBytesRead.push(socket.bytesRead)));
    const stats: FloodStats = { requests: 0, statuses: {}, bytesPushed: [] };
    const rounds: Round[] = [];
    for (let i = 0; i < roundsWanted; i++) {
      rounds.push(await measureRound(pool, port, valid, headers, samples, stats));
      const r = rounds[rounds.length - 1]!;
      say(`round ${i + 1}: quiet ${round1(r.quiet)} ms, flood ${round1(r.flood)} ms (${r.ratio.toFixed(2)} ×), control ${round1(r.control)} ms`);
    }
    const byRatio = [...rounds].sort((x, y) => x.ratio - y.ratio);
    const median = byRatio[Math.floor(byRatio.length / 2)]!;

    const result: HostileBodyResult = {
      quietP50Ms: round1(median.quiet),
      floodP50Ms: round1(median.flood),
      ratio: Math.round(median.ratio * 100) / 100,
      ratios: rounds.map((r) => Math.round(r.ratio * 100) / 100),
      controlP50Ms: round1(median.control),
      controlRatio: Math.round((median.control / median.quiet) * 100) / 100,
      eventLoopUtilization: Math.round(median.elu * 100) / 100,
      samples,
      hostileRequests: stats.requests,
      hostileStatuses: stats.statuses,
      bytesPushedP50: p50(stats.bytesPushed),
      serverBytesReadP50: p50(serverBytesRead),
      serverBytesReadMax: Math.max(...serverBytesRead),
      rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
      loadBefore: Math.round(loadBefore * 100) / 100,
      loadAfter: Math.round(loadavg()[0]! * 100) / 100,
    };
    say(JSON.stringify(result, null, 2));
    if (opts.write !== false && process.env.BENCH_NO_WRITE !== '1') writeResults(result);
    return result;
  } finally {
    for (const c of closers.reverse()) await c.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    await scratch.drop();
  }
}

/** Replaces the "## Public API: hostile bodies" section of bench/RESULTS.md. */
function writeResults(r: HostileBodyResult): void {
  const statuses = Object.entries(r.hostileStatuses)
    .map(([s, n]) => `${n} × ${s}`)
    .join(', ');
  const section = [
    '## Hostile bodies against the public API',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}, PostgreSQL on the same machine.`,
    `Command: \`${/run\.ts$/.test(process.argv[1] ?? '') ? 'npm run bench -- api' : 'node --import tsx bench/hostile-bodies.ts'}\` (bench/hostile-bodies.ts; \`npm run bench -- api\` runs it after the main public-API benchmark).`,
    `${r.ratios.length} rounds of: a valid \`GET /api/public/v1/capacities\` (20 rows, one client, ${r.samples} sequential requests) quiet, then while`,
    `${HOSTILE_CLIENTS} anonymous clients each send, one after another on fresh connections, \`POST\` and \`GET /api/public/v1/alerts\``,
    `announcing a ${(BODY_BYTES / 1e6).toFixed(1)} MB body of \`[\`…\`]\` and writing it as fast as the socket accepts.`,
    `The machine was shared with other engineers' test runs: 1-minute load average ${r.loadBefore} before and ${r.loadAfter} after.`,
    '',
    '| Measure | Result | Target |',
    '|---|---|---|',
    `| valid GET p50, quiet | ${r.quietP50Ms} ms | |`,
    `| valid GET p50, during the flood | ${r.floodP50Ms} ms | |`,
    `| flood / quiet (median round; all rounds: ${r.ratios.join(', ')}) | ${r.ratio} × | < 2 × |`,
    `| control: valid GET p50 while the same flood hits a bare sink that answers 405 and closes | ${r.controlP50Ms} ms (${r.controlRatio} × quiet) | |`,
    `| event-loop utilization of the server process during the flood | ${Math.round(r.eventLoopUtilization * 100)} % | |`,
    `| hostile requests sent to Vigia over all rounds | ${r.hostileRequests} (${statuses}) | |`,
    `| bytes the server read from a hostile connection, median / largest (headers included) | ${r.serverBytesReadP50.toLocaleString('en-US')} / ${r.serverBytesReadMax.toLocaleString('en-US')} of ${BODY_BYTES.toLocaleString('en-US')} announced | |`,
    `| body bytes a hostile client had handed to its socket when the connection closed (median) | ${r.bytesPushedP50.toLocaleString('en-US')} | |`,
    `| RSS of the process (server, valid client and flood) at the end | ${r.rssMiB} MiB | |`,
    '',
    'Why: the public API has no body parsers; another method than GET/HEAD is refused (405) in the',
    'first hook, and a request that announces a body gets `Connection: close`, so the body is never',
    'parsed and the connection is dropped right after the answer. What the server read is what had',
    'already arrived with the headers (Node reads the socket in chunks); the client-side count includes',
    'kernel buffers. The flood runs in a child process, as outside clients would. "none" answers: the',
    'server closed with body bytes still unread, so the kernel reset the connection and the client',
    'lost the answer in flight — the expected outcome for a client that keeps sending a body nobody asked for.',
    '',
    'What is left (CPU profile of the server process during one flood round, `node --cpu-prof`): outside',
    'idle time the largest items are the kernel calls `writev` (sending answers: ~0.6 s over the',
    'whole profiled run, whose Vigia-flood phase lasted ~1.9 s) and `close`. On loopback the kernel takes the flood\'s incoming bytes into the',
    'connection\'s receive queue inside the server\'s own system calls (a socket\'s backlog is processed when',
    'the call releases it), and a client on the same machine pushes megabytes in the fraction of a',
    'millisecond between the connection\'s arrival and the answer. Vigia\'s own code (hooks, the envelope)',
    'is a few percent of the profile. The bare sink pays part of the same cost, which is why it too slows',
    'the valid GET on this shared 2-vCPU machine; limiting connection rates per address belongs in front',
    'of the service (load balancer or reverse proxy).',
    '',
    '',
  ].join('\n');
  writeResultsSection(path.join(ROOT, 'bench', 'RESULTS.md'), 'Hostile bodies against the public API', section);
}

if (process.argv[2] === '--flood') {
  void floodProcessMain(Number(process.argv[3]));
} else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runHostileBodyBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

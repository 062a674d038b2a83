/**
 * Delivery soak (`npm run bench -- delivery-soak`): a sustained run of BENCH_SOAK_SECONDS (default
 * 300) with the dispatcher in its own process, so its resident memory (RSS) is the service's and
 * not the bench's. The bench process holds the producer (100 incidents per transaction through
 * recordEvents, paced at BENCH_SOAK_RATE deliveries/s, default 1000) and the local HTTPS receiver.
 * Every 10 s: the dispatcher's RSS and heap, the deliveries received in the window, the backlog
 * (pending rows) and the window's event commit → receipt p50 / p99. After the run the producer
 * stops, the backlog drains and every delivery is checked as succeeded exactly once.
 *
 * Writes nothing; it prints a markdown table for bench/RESULTS.md.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../src/clock.js';
import type { AppContext } from '../src/context.js';
import { migrate } from '../src/db/index.js';
import { createPgDatabase } from '../src/db/pg.js';
import { startDispatcher } from '../src/delivery/dispatcher.js';
import { createLogger } from '../src/logger.js';
import { Sealer } from '../src/secrets/sealing.js';
import { startReceiver } from '../test/helpers/receiver.js';
import { benchConfig, benchDestination, createDatabase, machine, percentile, produce, waitUntil } from './delivery.js';

const SAMPLE_MS = 10_000;
const CONCURRENCY = 64;

interface MemSample {
  rss: number;
  heapUsed: number;
}

/** The dispatcher process: runs until told to stop, reporting its memory every sample period. */
async function child(): Promise<void> {
  const key = Buffer.from(process.env.VIGIA_SOAK_KEY!, 'base64');
  const url = process.env.VIGIA_SOAK_DB!;
  const db = createPgDatabase(url, undefined, { max: 10 });
  const ctx: AppContext = { config: benchConfig(key, url), db, clock: systemClock, log: createLogger('warn'), sealer: new Sealer(key) };
  const worker = await startDispatcher(ctx, { perDestination: CONCURRENCY, maxInFlight: CONCURRENCY });
  const report = () => {
    const m = process.memoryUsage();
    process.send!({ rss: m.rss, heapUsed: m.heapUsed } satisfies MemSample);
  };
  report();
  const timer = setInterval(report, SAMPLE_MS);
  process.on('message', (msg) => {
    if (msg !== 'stop') return;
    clearInterval(timer);
    void (async () => {
      report();
      await worker.stop();
      await db.close();
      process.exit(0);
    })();
  });
}

interface Row {
  t: number;
  rssMb: number;
  heapMb: number;
  received: number;
  pending: number;
  p50: number;
  p99: number;
}

export async function runDeliverySoak(): Promise<void> {
  const say = (s: string) => process.stdout.write(`${s}\n`);
  const seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 300);
  const rate = Number(process.env.BENCH_SOAK_RATE ?? 1000);
  const adminUrl = process.env.VIGIA_BENCH_PG_URL ?? process.env.VIGIA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const loadBefore = loadavg()[0]!;
  const database = await createDatabase(adminUrl);
  const rx = await startReceiver();
  const key = randomBytes(32);
  const db = createPgDatabase(database.url, undefined, { max: 4 });
  const ctx: AppContext = { config: benchConfig(key, database.url), db, clock: systemClock, log: createLogger('warn'), sealer: new Sealer(key) };
  let proc: ChildProcess | undefined;
  try {
    await migrate(db);
    const { orgId, destId } = await benchDestination(ctx, rx);
    say(`delivery soak: ${seconds} s at ${rate} deliveries/s on ${machine()} (load ${loadBefore.toFixed(2)})`);
    let mem: MemSample = { rss: NaN, heapUsed: NaN };
    let firstMem: Promise<void> = Promise.resolve();
    proc = fork(fileURLToPath(import.meta.url), [], {
      execArgv: process.execArgv,
      env: { ...process.env, VIGIA_SOAK_CHILD: '1', VIGIA_SOAK_KEY: key.toString('base64'), VIGIA_SOAK_DB: database.url },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    firstMem = new Promise((resolve) => proc!.once('message', () => resolve()));
    proc.on('message', (m) => {
      mem = m as MemSample;
    });
    await firstMem;

    const commits = new Map<string, number>();
    let window: number[] = [];
    let receivedTotal = 0;
    const collect = () => {
      for (const r of rx.requests.splice(0)) {
        const id = (JSON.parse(r.rawBody.toString('utf8')) as { alert: { id: string } }).alert.id;
        const c = commits.get(id);
        if (c !== undefined) {
          window.push(r.receivedAt - c);
          commits.delete(id);
        }
        receivedTotal++;
      }
    };
    const pending = async () =>
      (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending'`)).rows[0]!.n;

    // The first row: the dispatcher started, nothing produced yet.
    const rows: Row[] = [{ t: 0, rssMb: mem.rss / 2 ** 20, heapMb: mem.heapUsed / 2 ** 20, received: 0, pending: 0, p50: NaN, p99: NaN }];
    const t0 = performance.now();
    let produced = 0;
    let nextSample = t0 + SAMPLE_MS;
    let lastReceived = 0;
    const batch = 100;
    const tickMs = (1000 * batch) / rate;
    for (let i = 0; performance.now() - t0 < seconds * 1000; i++) {
      const wait = t0 + i * tickMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await produce(ctx, orgId, batch, commits);
      produced += batch;
      collect();
      if (performance.now() >= nextSample) {
        nextSample += SAMPLE_MS;
        const row: Row = {
          t: Math.round((performance.now() - t0) / 1000),
          rssMb: mem.rss / 2 ** 20,
          heapMb: mem.heapUsed / 2 ** 20,
          received: receivedTotal - lastReceived,
          pending: await pending(),
          p50: percentile(window, 50),
          p99: percentile(window, 99),
        };
        lastReceived = receivedTotal;
        window = [];
        rows.push(row);
        say(`  t=${row.t}s rss ${row.rssMb.toFixed(0)} MB heap ${row.heapMb.toFixed(0)} MB, ${row.received} received, ${row.pending} pending, p50/p99 ${row.p50} / ${row.p99} ms`);
      }
    }
    const elapsed = (performance.now() - t0) / 1000;
    await waitUntil(
      async () => {
        collect();
        return (await pending()) === 0;
      },
      300_000,
      'soak backlog',
    );
    collect();
    const { rows: ok } = await db.query<{ n: number; attempts: number }>(
      `SELECT count(*)::int AS n, coalesce(sum(attempts), 0)::int AS attempts FROM deliveries WHERE destination_id = $1 AND status = 'succeeded'`,
      [destId],
    );
    proc.send('stop');
    await new Promise((r) => proc!.once('exit', r));
    const loadAfter = loadavg()[0]!;
    say('');
    say(`produced ${produced} in ${elapsed.toFixed(0)} s (${(produced / elapsed).toFixed(0)}/s); succeeded ${ok[0]!.n} (attempts ${ok[0]!.attempts}); received ${receivedTotal}; load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}`);
    say('');
    say('| t (s) | Dispatcher RSS (MB) | Heap used (MB) | Received in the last 10 s | Pending | p50 / p99 (ms) |');
    say('|---|---|---|---|---|---|');
    for (const r of rows) say(`| ${r.t} | ${r.rssMb.toFixed(0)} | ${r.heapMb.toFixed(0)} | ${r.received} | ${r.pending} | ${r.p50} / ${r.p99} |`);
    if (ok[0]!.n !== produced) throw new Error(`soak: ${ok[0]!.n} of ${produced} deliveries succeeded`);
  } finally {
    proc?.kill();
    await rx.close();
    await db.close().catch(() => undefined);
    await database.drop().catch(() => undefined);
  }
}

if (process.env.VIGIA_SOAK_CHILD === '1') await child();

export const run = runDeliverySoak;
export default runDeliverySoak;

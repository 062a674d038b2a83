/**
 * Drain-only A/B measurements of the dispatcher (not part of `npm run bench`), the tool behind the
 * "Changes kept / not kept" table of bench/RESULTS.md. For each configuration, in turns, REPS times:
 * a fresh database, N deliveries committed, then the drain timed; printed per run: deliveries/s,
 * CPU per delivery of this Node process and of the database's own PostgreSQL backends (/proc),
 * the dispatcher's statements (count × mean time as seen from Node), transactions and HOT updates.
 *
 *   NODE_EXTRA_CA_CERTS=$PWD/.test-certs/ca.crt flock /tmp/vigia-bench.lock \
 *     node --import tsx bench/delivery-drain-ab.ts
 *
 * CONFIGS: JSON object name → DispatcherOptions, plus `_settings` (the dispatcher pool's session
 * settings, replacing the default ones) and `_ff` (fillfactor of deliveries). N (4000), REPS (3),
 * PROF=<dir> writes a CPU profile of each drain there.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { systemClock } from '../src/clock.js';
import type { AppContext } from '../src/context.js';
import { migrate } from '../src/db/index.js';
import { createPgDatabase } from '../src/db/pg.js';
import { startDispatcher, type DispatcherOptions } from '../src/delivery/dispatcher.js';
import { createGuardedSend } from '../src/delivery/guarded-http.js';
import { createLogger } from '../src/logger.js';
import { Sealer } from '../src/secrets/sealing.js';
import { startReceiver } from '../test/helpers/receiver.js';
import { benchConfig, benchDestination, createDatabase, produce, waitUntil } from './delivery.js';

function busy(): [number, number] {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3]! + f[4]!;
  const total = f.reduce((a, b) => a + b, 0);
  return [total - idle, total];
}

function pidCpu(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}
async function pgPids(db: { query: (t: string) => Promise<{ rows: any[] }> }): Promise<number[]> {
  return (await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)).rows.map((r) => r.pid as number);
}
const n = Number(process.env.N ?? 4000);
const configs: Record<string, DispatcherOptions> = JSON.parse(process.env.CONFIGS ?? '{"base":{}}');
const reps = Number(process.env.REPS ?? 3);
const adminUrl = 'postgres://postgres@127.0.0.1:5432/test';
const rx = await startReceiver();
const results: Record<string, number[]> = {};
const cpu: Record<string, number[]> = {};
for (let rep = 0; rep < reps; rep++) {
  for (const [name, cfg] of Object.entries(configs)) {
    const { _settings, _ff, ...opts } = cfg as DispatcherOptions & { _settings?: Record<string, string>; _ff?: number };
    const database = await createDatabase(adminUrl);
    const key = randomBytes(32);
    const db = createPgDatabase(database.url, undefined, { max: 4 });
    const ctx: AppContext = { config: benchConfig(key, database.url), db, clock: systemClock, log: createLogger('warn'), sealer: new Sealer(key) };
    await migrate(db);
    if (_ff) await db.query(`ALTER TABLE deliveries SET (fillfactor = ${_ff})`);
    const { orgId } = await benchDestination(ctx, rx);
    const send = createGuardedSend(ctx);
    const stats = new Map<string, { n: number; ms: number }>();
    const orig = db.dedicatedPool.bind(db);
    (db as any).dedicatedPool = (max: number, o: any) => {
      const p = orig(max, _settings ? { ...o, settings: _settings } : o);
      const q0 = p.query.bind(p);
      p.query = (async (text: string, params?: readonly unknown[], qo?: any) => {
        const k = qo?.name ?? text.trim().slice(0, 40).replace(/\s+/g, ' ');
        const t = performance.now();
        try {
          return await q0(text, params, qo);
        } finally {
          const st = stats.get(k) ?? { n: 0, ms: 0 };
          st.n++;
          st.ms += performance.now() - t;
          stats.set(k, st);
        }
      }) as any;
      return p;
    };
    const commits = new Map<string, number>();
    const full = { perDestination: 64, maxInFlight: 64, send, ...opts };
    let w = await startDispatcher(ctx, full);
    await produce(ctx, orgId, 100, commits);
    const anyPending = async () => (await db.query<{ p: boolean }>(`SELECT EXISTS (SELECT 1 FROM deliveries WHERE status = 'pending') AS p`)).rows[0]!.p;
    await waitUntil(async () => !(await anyPending()), 60000, 'warm');
    await w.stop();
    const p0 = performance.now();
    for (let d = 0; d < n; d += 100) await produce(ctx, orgId, 100, commits);
    console.log(`  producer alone: ${(n / ((performance.now() - p0) / 1000)).toFixed(0)}/s`);
    const xact = async () => (await db.query<{ n: number }>(`SELECT xact_commit::int AS n FROM pg_stat_database WHERE datname = current_database()`)).rows[0]!.n;
    await new Promise((r) => setTimeout(r, 1100));
    const x0 = await xact();
    let polls = 0;
    const pg0 = new Map((await pgPids(db)).map((p) => [p, pidCpu(p)]));
    stats.clear();
    const c0 = process.cpuUsage();
    const b0 = busy();
    const session = process.env.PROF ? new Session() : null;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    const t0 = performance.now();
    w = await startDispatcher(ctx, full);
    await waitUntil(
      async () => {
        polls++;
        return !(await anyPending());
      },
      120000,
      'drain',
    );
    const sec = (performance.now() - t0) / 1000;
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(path.join(process.env.PROF!, `${name}-${rep}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    }
    const c1 = process.cpuUsage(c0);
    for (const [k, v] of stats) console.log(`  ${k}: ${v.n} × ${(v.ms / v.n).toFixed(1)} ms`);
    const b1 = busy();
    let pgS = 0;
    for (const p of await pgPids(db)) pgS += pidCpu(p) - (pg0.get(p) ?? 0);
    cpu[name] = [...(cpu[name] ?? []), ((pgS + (c1.user + c1.system) / 1e6) * 1e6) / n];
    await w.stop();
    await send.close();
    await new Promise((r) => setTimeout(r, 1100));
    const st = (await db.query(`SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'deliveries'`)).rows[0];
    console.log(`  transactions ${(await xact()) - x0 - polls - 2} (without ${polls} polls)`);
    console.log(`  updates ${st.n_tup_upd}, HOT ${st.n_tup_hot_upd}`);
    const rate = n / sec;
    results[name] = [...(results[name] ?? []), rate];
    const tot = (b1[1] - b0[1]) / 100;
    const busyS = (b1[0] - b0[0]) / 100;
    const nodeS = (c1.user + c1.system) / 1e6;
    console.log(`${name}: pg ${(pgS * 1e6 / n).toFixed(0)} µs/delivery, node ${(((c1.user + c1.system)) / n).toFixed(0)} µs/delivery; ${rate.toFixed(0)}/s in ${sec.toFixed(2)} s; machine busy ${(100 * busyS / tot).toFixed(0)} % of 2 cpus; node ${(nodeS / sec * 100).toFixed(0)} % of one; other ${((busyS - nodeS) / sec * 100).toFixed(0)} %; load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
    await db.close();
    await database.drop();
  }
}
for (const [k, v] of Object.entries(cpu)) console.log('cpu µs/delivery', k, v.map((x) => x.toFixed(0)).join(' '), 'median', [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!.toFixed(0));
for (const [k, v] of Object.entries(results)) console.log(k, v.map((x) => x.toFixed(0)).join(' '), 'median', [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!.toFixed(0));
await rx.close();
process.exit(0);

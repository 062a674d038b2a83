/**
 * Per-destination rate limits are honoured by all workers together (the GCRA state is a row in
 * the database, not per process). A receiver records the arrival time of every request; the
 * property checked is a rate, not a duration: in every one-second window that starts at an
 * arrival, at most `limit + 1` requests arrived. Sends start T = 1000/limit ms apart, so a
 * closed one-second window can hold limit + 1 of them, and connection reuse and scheduling
 * jitter move arrivals a little: that +1 is the documented allowance. Without the limit all of
 * them arrive within a few milliseconds. Over-limit deliveries wait: every one succeeds on its
 * first attempt.
 *
 * On PostgreSQL the workers are two real processes (`vigia serve --worker-only`); on PGlite,
 * which lives inside one process, they are two dispatchers in the test process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { ENGINE } from '../helpers/db.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { emitMany, insertOrg, until } from './support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LIMIT = 2;
const DELIVERIES = 10;

/** The most arrivals in any window [t, t + 1 s) that starts at an arrival. */
function maxPerSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0; i < sorted.length; i++) {
    let n = 0;
    while (i + n < sorted.length && sorted[i + n]! < sorted[i]! + 1000) n++;
    max = Math.max(max, n);
  }
  return max;
}

function startWorkerProcess(t: TestApp, name: string): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--worker-only'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: t.ctx.testDb.url!,
      VIGIA_SECRET_KEY: t.ctx.config.secretKey!,
      VIGIA_ADMIN_TOKEN: 'vat_rate_limit_test_token_0123456789abcdefgh',
      VIGIA_DESTINATION_ALLOWLIST: '127.0.0.1',
      VIGIA_ORG_CAP_PER_CYCLE: '1000000',
      VIGIA_LOG_LEVEL: 'warn',
    },
  }) as ChildProcess & { output: () => string };
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  child.output = () => `[${name}] ${out.slice(-2000)}`;
  return child;
}

async function stopWorkerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

describe('rateLimitPerSecond across workers', () => {
  let t: TestApp;
  let rx: TestReceiver;

  beforeAll(async () => {
    t = await createTestApp({ clock: systemClock, config: { destinationAllowlist: ['127.0.0.1'] } });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  it(`two workers together send at most ${LIMIT} a second to a limited destination; none fails for it`, async () => {
    const orgId = await insertOrg(t.ctx);
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'Slow', kind: 'webhook', url: `${rx.origin}/slow`, rateLimitPerSecond: LIMIT });
    expect(res.statusCode, res.body).toBe(201);
    const destId = res.json().id as string;

    const procs: (ChildProcess & { output: () => string })[] = [];
    const inProcess: Dispatcher[] = [];
    try {
      if (ENGINE === 'pg') procs.push(startWorkerProcess(t, 'w1'), startWorkerProcess(t, 'w2'));
      else inProcess.push(await startDispatcher(t.ctx), await startDispatcher(t.ctx));
      await emitMany(t.ctx, orgId, DELIVERIES);
      await rx.waitFor(DELIVERIES, 60_000).catch((e) => {
        throw new Error(`${e.message}\n${procs.map((p) => p.output()).join('\n')}`);
      });
      await until(
        async () =>
          (await t.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1 AND status = 'succeeded'`, [destId])).rows[0]!.n ===
          DELIVERIES,
        30_000,
        'all succeeded',
      );
    } finally {
      await Promise.all(procs.map(stopWorkerProcess));
      await Promise.all(inProcess.map((d) => d.stop()));
    }

    const arrivals = rx.requests.filter((r) => r.url === '/slow');
    expect(new Set(arrivals.map((r) => r.headers['idempotency-key'])).size).toBe(DELIVERIES);
    const times = arrivals.map((r) => r.receivedAt).sort((a, b) => a - b);
    expect(maxPerSecond(times), `arrivals (ms from the first): ${times.map((x) => x - times[0]!).join(', ')}`).toBeLessThanOrEqual(LIMIT + 1);
    // Waiting never spends an attempt: every delivery succeeded on its first.
    const { rows } = await t.ctx.db.query<{ attempts: number }>('SELECT attempts FROM deliveries WHERE destination_id = $1', [destId]);
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
  });
});

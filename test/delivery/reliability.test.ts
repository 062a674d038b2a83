/**
 * Reliability with real processes on real PostgreSQL (issue 3 "Reliability"): a worker killed
 * with SIGKILL mid-run and restarted, two workers sharing one database, and a PostgreSQL restart
 * under load on a private cluster. The worker is the real CLI: `vigia serve --worker-only`.
 * These need several processes on one server, so they run in the pg project only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { createPgDatabase } from '../../src/db/pg.js';
import { migrate } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { Sealer } from '../../src/secrets/sealing.js';
import { generateSigningSecret } from '../../src/secrets/tokens.js';
import { newId } from '../../src/ids.js';
import { DELIVERY_CHANNEL } from '../../src/outbox/index.js';
import { ENGINE } from '../helpers/db.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { startPrivateCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { waitFor } from '../helpers/wait.js';
import { emitMany, insertOrg, until } from './support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Starts `vigia serve --worker-only` against a database. */
function startWorker(databaseUrl: string, secretKey: string, name: string, env: Record<string, string> = {}): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--worker-only'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      VIGIA_SECRET_KEY: secretKey,
      VIGIA_ADMIN_TOKEN: 'vat_reliability_token_0123456789abcdefghijkl',
      VIGIA_DESTINATION_ALLOWLIST: '127.0.0.1',
      VIGIA_DELIVERY_TIMEOUT_MS: '10000',
      VIGIA_RETRY_SCHEDULE: '1s,1s,1s,1s',
      VIGIA_ORG_CAP_PER_CYCLE: '1000000',
      VIGIA_LOG_LEVEL: 'warn',
      ...env,
    },
  }) as ChildProcess & { output: () => string };
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  child.output = () => `[${name}] ${out.slice(-2000)}`;
  return child;
}

async function stopWorker(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function webhookDestination(ctx: AppContext, orgId: string, url: string): Promise<string> {
  const id = newId('dst');
  const now = new Date();
  await ctx.db.query(
    `INSERT INTO destinations (id, org_id, name, kind, url, signing_secret_sealed, created_at, updated_at)
     VALUES ($1, $2, 'hook', 'webhook', $3, $4, $5, $5)`,
    [id, orgId, url, ctx.sealer.seal(generateSigningSecret()), now],
  );
  return id;
}

/** Every delivery row reached the receiver; each request is self-consistent. Returns duplicates. */
async function checkAllReceived(ctx: AppContext, rx: TestReceiver, destId: string, urlPath?: string): Promise<number> {
  const { rows } = await ctx.db.query<{ id: string; body: string }>('SELECT id, body FROM deliveries WHERE destination_id = $1', [destId]);
  const bodies = new Map(rows.map((r) => [r.id, r.body]));
  const seen = new Map<string, number>();
  const requests = rx.requests.filter((r) => !urlPath || r.url === urlPath);
  for (const r of requests) {
    const key = String(r.headers['idempotency-key']);
    expect(r.headers['x-service-delivery']).toBe(key);
    expect(r.rawBody.toString('utf8')).toBe(bodies.get(key)); // a duplicate carries the same key and bytes
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  for (const id of bodies.keys()) expect(seen.has(id), `delivery ${id} never arrived`).toBe(true);
  return requests.length - seen.size;
}

if (ENGINE === 'pg') {
  describe('reliability on PostgreSQL with worker processes', () => {
    let ctx: TestContext;
    let rx: TestReceiver;
    let workers: ChildProcess[] = [];
    beforeAll(async () => {
      ctx = await createTestContext({ clock: systemClock });
      rx = await startReceiver();
    });
    afterEach(async () => {
      await Promise.all(workers.map((w) => stopWorker(w)));
      workers = [];
      rx.reset();
    });
    afterAll(async () => {
      await rx.close();
      await ctx.close();
    });

    const succeeded = async (destId: string) =>
      (await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1 AND status = 'succeeded'`, [destId])).rows[0]!.n;

    it('a worker killed with SIGKILL in the middle of 2,000 deliveries loses nothing after a restart', async () => {
      const orgId = await insertOrg(ctx);
      const destId = await webhookDestination(ctx, orgId, `${rx.origin}/kill`);
      rx.fallback = { status: 200, delayMs: 5 };
      // A short time limit gives a short lease (4 × 1.5 s + 5 s), so the restart picks up the
      // killed worker's rows quickly.
      const fast = { VIGIA_DELIVERY_TIMEOUT_MS: '1500' };
      const w1 = startWorker(ctx.testDb.url!, ctx.config.secretKey!, 'w1', fast);
      workers.push(w1);
      const emitting = emitMany(ctx, orgId, 2000, 200);
      await rx.waitFor(300, 50_000).catch((e) => {
        throw new Error(`${e.message}\n${w1.output()}`);
      });
      w1.kill('SIGKILL');
      await new Promise((r) => w1.once('exit', r));
      await emitting;
      const before = await succeeded(destId);
      expect(before).toBeLessThan(2000);
      const w2 = startWorker(ctx.testDb.url!, ctx.config.secretKey!, 'w2', fast);
      workers.push(w2);
      await until(async () => (await succeeded(destId)) === 2000, 55_000, `all 2000 succeeded ${w2.output()}`);
      // Duplicates (rows the killed worker had leased, or attempts that timed out on a loaded
      // machine) carry the same Idempotency-Key and bytes: checked request by request.
      await checkAllReceived(ctx, rx, destId);
    });

    it('two worker processes on one database never send a delivery twice in normal operation', async () => {
      const orgId = await insertOrg(ctx);
      const destId = await webhookDestination(ctx, orgId, `${rx.origin}/two`);
      const destId2 = await webhookDestination(ctx, orgId, `${rx.origin}/two-b`);
      rx.fallback = { status: 200, delayMs: 2 };
      workers.push(startWorker(ctx.testDb.url!, ctx.config.secretKey!, 'a'), startWorker(ctx.testDb.url!, ctx.config.secretKey!, 'b'));
      // Both workers are up once both hold their LISTEN connection: then the 600 events race them.
      await waitFor(
        async () => {
          const { rows } = await ctx.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN ${DELIVERY_CHANNEL}'`,
          );
          return rows[0]!.n >= 2;
        },
        { what: 'both workers to listen', timeoutMs: 30_000, detail: () => workers.map((w) => (w as ReturnType<typeof startWorker>).output()).join('\n') },
      );
      await emitMany(ctx, orgId, 600, 50);
      await until(async () => (await succeeded(destId)) === 600 && (await succeeded(destId2)) === 600, 55_000, 'all delivered');
      expect(await checkAllReceived(ctx, rx, destId, '/two')).toBe(0);
      expect(await checkAllReceived(ctx, rx, destId2, '/two-b')).toBe(0);
      expect(rx.requests).toHaveLength(1200);
      // Normal operation: every delivery took exactly one attempt.
      const attempts = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE org_id = $1 AND attempts <> 1`, [orgId]);
      expect(attempts.rows[0]!.n).toBe(0);
      expect(new Set(rx.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1200);
    });

    it('a receiver that fails then recovers is retried on the schedule until every delivery succeeds', async () => {
      const orgId = await insertOrg(ctx);
      const destId = await webhookDestination(ctx, orgId, `${rx.origin}/flaky`);
      // First answer per delivery: 500 or a reset; second: slow 200.
      const seen = new Set<string>();
      rx.handle((req) => {
        const key = String(req.headers['idempotency-key']);
        if (seen.has(key)) return { status: 200, delayMs: 20 };
        seen.add(key);
        return key.charCodeAt(key.length - 1) % 2 ? { status: 500 } : { reset: true };
      });
      workers.push(startWorker(ctx.testDb.url!, ctx.config.secretKey!, 'flaky'));
      await emitMany(ctx, orgId, 100, 50);
      await until(async () => (await succeeded(destId)) === 100, 55_000, 'all recovered');
      const { rows } = await ctx.db.query<{ attempts: number; n: number }>(
        `SELECT attempts, count(*)::int AS n FROM deliveries WHERE destination_id = $1 GROUP BY attempts`,
        [destId],
      );
      expect(rows).toEqual([{ attempts: 2, n: 100 }]);
      const log = await ctx.db.query<{ attempt: number; status_code: number | null; error: string | null; n: number }>(
        `SELECT a.attempt, a.status_code, a.error, count(*)::int AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
          WHERE d.destination_id = $1 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
        [destId],
      );
      expect(log.rows.filter((r) => r.attempt === 2)).toEqual([{ attempt: 2, status_code: 200, error: null, n: 100 }]);
      const first = log.rows.filter((r) => r.attempt === 1);
      expect(first.map((r) => [r.status_code, r.error]).sort()).toEqual([[500, 'HTTP 500'], [null, 'connection failed']].sort());
    });
  });

  describe('PostgreSQL restart under load (private cluster)', () => {
    let cluster: PgCluster;
    let ctx: AppContext;
    let rx: TestReceiver;
    let worker: (ChildProcess & { output: () => string }) | undefined;

    beforeAll(async () => {
      cluster = await startPrivateCluster();
      const url = cluster.url;
      const key = randomBytes(32);
      const config = { ...loadConfig({ VIGIA_SECRET_KEY: key.toString('base64'), VIGIA_BASE_URL: 'https://vigia.example.test' }), databaseUrl: url };
      const db = createPgDatabase(url);
      await migrate(db);
      ctx = { config, db, clock: systemClock, log: createLogger('silent'), sealer: new Sealer(key) };
      rx = await startReceiver();
    }, 60_000);
    afterAll(async () => {
      await stopWorker(worker);
      await rx?.close();
      await ctx?.db.close().catch(() => undefined);
      cluster?.destroy();
    });

    it('the worker reconnects by itself and nothing is lost', async () => {
      const orgId = await insertOrg(ctx);
      const destId = await webhookDestination(ctx, orgId, `${rx.origin}/restart`);
      rx.fallback = { status: 200, delayMs: 5 };
      worker = startWorker(ctx.config.databaseUrl!, ctx.config.secretKey!, 'restart');
      // The producer keeps emitting across the restart; a failed transaction is simply retried
      // (it committed nothing), as the alert engine's callers would.
      let stop = false;
      let emitted = 0;
      // A connection cut mid-transaction fails that batch (the pool's clients all have error
      // listeners), and the producer retries it.
      const producer = (async () => {
        while (!stop && emitted < 600) {
          try {
            await emitMany(ctx, orgId, 10, 10);
            emitted += 10;
          } catch {
            await new Promise((r) => setTimeout(r, 200));
          }
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      await rx.waitFor(100, 50_000).catch((e) => {
        throw new Error(`${e.message}\n${worker!.output()}`);
      });
      cluster.restart();
      await until(async () => emitted >= 600, 50_000, 'producer finished');
      stop = true;
      await producer;
      await until(
        async () => {
          // This test's own pool may still hold a connection the restart cut: that probe fails
          // and the next one opens a fresh connection.
          const r = await ctx.db
            .query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1 AND status = 'succeeded'`, [destId])
            .catch(() => null);
          return r !== null && r.rows[0]!.n === emitted;
        },
        50_000,
        `all delivered after the restart ${worker.output()}`,
      );
      await checkAllReceived(ctx, rx, destId);
      const { rows } = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1`, [destId]);
      expect(rows[0]!.n).toBe(emitted);
      expect(worker.exitCode).toBeNull(); // it survived the restart
    }, 120_000);
  });
} else {
  describe('reliability with worker processes', () => {
    it('runs in the pg project (several processes need a PostgreSQL server)', () => {
      expect(ENGINE).toBe('pglite');
    });
  });
}

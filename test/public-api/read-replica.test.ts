/**
 * DATABASE_READ_URL: the public API's read queries go to a streaming replica (a private primary
 * and a pg_basebackup standby on their own ports); API keys are checked on the primary; a lagging
 * or stopped replica makes reads fall back to the primary, never a 500.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { migrate, type Database } from '../../src/db/index.js';
import { createPgDatabase } from '../../src/db/pg.js';
import { createReadRouter, type ReadRouter } from '../../src/db/read-replica.js';
import { createLogger } from '../../src/logger.js';
import { Sealer } from '../../src/secrets/sealing.js';
import { ENGINE } from '../helpers/db.js';
import { startPrivateCluster, startStandby, type PgCluster } from '../helpers/pg-cluster.js';
import { get, insertCapacity, insertKey, insertOrg } from './helpers.js';

if (ENGINE === 'pg') {
  describe('public API reads from a streaming replica', () => {
    let primary: PgCluster;
    let standby: PgCluster;
    let db: Database;
    let standbyDb: Database;
    let router: ReadRouter;
    let app: FastifyInstance;
    let fakeNow = 0;

    beforeAll(async () => {
      primary = await startPrivateCluster();
      db = createPgDatabase(primary.url);
      await migrate(db);
      standby = await startStandby(primary);
      standbyDb = createPgDatabase(standby.url);
      router = createReadRouter({ primary: db, replicaUrl: standby.url, maxLagSeconds: 5, now: () => fakeNow });
      const key = randomBytes(32);
      const ctx: AppContext = {
        config: { ...loadConfig({ VIGIA_SECRET_KEY: key.toString('base64') }), databaseUrl: primary.url, databaseReadUrl: standby.url },
        db,
        readDb: router,
        clock: systemClock,
        log: createLogger('silent'),
        sealer: new Sealer(key),
      };
      app = await buildApp(ctx);
      await app.ready();
    }, 120_000);

    afterAll(async () => {
      await app?.close();
      await router?.close();
      await standbyDb?.close().catch(() => undefined);
      await db?.close().catch(() => undefined);
      standby?.destroy();
      primary?.destroy();
    });

    /** Waits until the standby has replayed everything the primary has written so far. */
    async function replicaCaughtUp(): Promise<void> {
      const { rows } = await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      for (let i = 0; i < 200; i++) {
        const r = await standbyDb.query<{ ok: boolean }>('SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), $1::pg_lsn) >= 0 AS ok', [rows[0]!.lsn]);
        if (r.rows[0]!.ok) return;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error('the standby did not catch up');
    }

    const capacityNames = async (apiKey: string): Promise<string[]> => {
      const res = await get(app, '/capacities', apiKey);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().value as { name: string }[]).map((c) => c.name).sort();
    };

    it('reads from the replica while it keeps up, from the primary when it lags or stops; keys are always checked on the primary', async () => {
      const orgId = await insertOrg(db);
      await insertCapacity(db, orgId, 'cap-a');
      const first = await insertKey(db, orgId);
      await replicaCaughtUp();
      fakeNow = 1_000;
      await router.checkNow();
      expect(router.usingReplica).toBe(true);
      expect(await capacityNames(first.key)).toEqual(['cap-a']);

      // Replay stops on the standby; the primary goes on.
      await standbyDb.query('SELECT pg_wal_replay_pause()');
      await insertCapacity(db, orgId, 'cap-b');
      const second = await insertKey(db, orgId); // exists on the primary only
      await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [first.id]);

      // Within the lag allowance the replica still answers: its (older) data proves where reads go.
      fakeNow = 2_000;
      await router.checkNow();
      expect(router.usingReplica).toBe(true);
      expect(await capacityNames(second.key)).toEqual(['cap-a']);
      // Keys are the primary's: the revocation counts at once, the new key works already.
      expect((await get(app, '/capacities', first.key)).statusCode).toBe(401);

      // More than 5 s (of the router's clock) behind what the primary had: reads go to the primary.
      fakeNow = 8_000;
      await router.checkNow();
      expect(router.usingReplica).toBe(false);
      expect(await capacityNames(second.key)).toEqual(['cap-a', 'cap-b']);

      // Replay resumes: the replica is used again.
      await standbyDb.query('SELECT pg_wal_replay_resume()');
      await replicaCaughtUp();
      fakeNow = 9_000;
      await router.checkNow();
      expect(router.usingReplica).toBe(true);
      expect(await capacityNames(second.key)).toEqual(['cap-a', 'cap-b']);

      // The standby goes away between two checks: the request is answered from the primary.
      await standbyDb.close();
      standby.stop('immediate');
      expect(await capacityNames(second.key)).toEqual(['cap-a', 'cap-b']);
      expect(router.usingReplica).toBe(false);
      for (const path of ['/alerts', '/alerts/metrics', '/workspaces', '/costs/daily', '/sla']) {
        expect((await get(app, path, second.key)).statusCode, path).toBe(200);
      }
      fakeNow = 20_000;
      await router.checkNow();
      expect(router.usingReplica).toBe(false);
    }, 120_000);
  });
} else {
  describe('public API reads from a streaming replica', () => {
    it('runs in the pg project (a replica needs PostgreSQL servers)', () => {
      expect(ENGINE).toBe('pglite');
    });
  });
}

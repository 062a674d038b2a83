import pg from 'pg';
import { randomBase62 } from '../../src/ids.js';
import { createPgDatabase } from '../../src/db/pg.js';
import { createPgliteDatabase } from '../../src/db/pglite.js';
import { migrate, type Database, type Engine } from '../../src/db/index.js';

/** Which engine this test process runs on; vitest's projects set it (see vitest.config.ts). */
export const ENGINE: Engine = process.env.VIGIA_TEST_ENGINE === 'pg' ? 'pg' : 'pglite';
export const PG_ADMIN_URL = process.env.VIGIA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  db: Database;
  /** postgres:// URL of the fresh database (pg engine only), for spawning other processes. */
  url?: string;
  /** Closes db and drops the database. */
  drop(): Promise<void>;
}

/** Creates an empty PostgreSQL database and returns its URL (no migrations applied). */
export async function createPgTestDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `vigia_t_${randomBase62(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A fresh, migrated database of the engine under test. */
export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  if (ENGINE === 'pg') {
    const { url, drop } = await createPgTestDatabaseUrl();
    const db = createPgDatabase(url);
    if (opts.migrate !== false) await migrate(db);
    return {
      db,
      url,
      async drop() {
        await db.close().catch(() => undefined);
        await drop();
      },
    };
  }
  const db = await createPgliteDatabase();
  if (opts.migrate !== false) await migrate(db);
  return { db, drop: () => db.close().catch(() => undefined) };
}

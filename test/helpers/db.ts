import pg from 'pg';
import { randomBase62 } from '../../src/ids.js';
import { createPgDatabase } from '../../src/db/pg.js';
import { createPgliteDatabase } from '../../src/db/pglite.js';
import { migrate, type Database, type Engine } from '../../src/db/index.js';
import { pgliteTemplate, pgTemplateExists } from './db-template.js';

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

/**
 * Creates a PostgreSQL database and returns its URL: empty (no migrations applied), or with
 * `fromTemplate` a copy of the migrated template when this run made one (db-template.ts).
 */
export async function createPgTestDatabaseUrl(opts: { fromTemplate?: boolean } = {}): Promise<{ url: string; drop(): Promise<void>; migrated: boolean }> {
  const name = `vigia_t_${randomBase62(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  let template = opts.fromTemplate ? await pgTemplateExists(admin) : null;
  try {
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  } catch (err) {
    // The template went away (a run of another checkout replaced it): an empty database, migrated by the caller.
    if (!template) throw err;
    template = null;
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    migrated: template !== null,
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A fresh, migrated database of the engine under test (a copy of the run's template when there is one). */
export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const wantsMigrated = opts.migrate !== false;
  if (ENGINE === 'pg') {
    const { url, drop, migrated } = await createPgTestDatabaseUrl({ fromTemplate: wantsMigrated });
    const db = createPgDatabase(url);
    if (wantsMigrated && !migrated) await migrate(db);
    return {
      db,
      url,
      async drop() {
        await db.close().catch(() => undefined);
        await drop();
      },
    };
  }
  const template = wantsMigrated ? pgliteTemplate() : null;
  const db = await createPgliteDatabase(undefined, undefined, template ? { loadDataDir: template } : {});
  if (wantsMigrated && !template) await migrate(db);
  return { db, drop: () => db.close().catch(() => undefined) };
}

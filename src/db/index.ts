import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createPgDatabase } from './pg.js';
import { createPgliteDatabase } from './pglite.js';
import type { Database } from './types.js';

export type { Database, DedicatedPoolOptions, Queryable, QueryOptions, QueryResult, Engine } from './types.js';
export { migrate } from './migrate.js';
export { DataDirLockedError, readLockHolder } from './data-dir-lock.js';

/** DATABASE_URL → PostgreSQL pool; unset → PGlite persisted under VIGIA_DATA_DIR/db. */
export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>, logger?: Logger): Promise<Database> {
  if (config.databaseUrl) return createPgDatabase(config.databaseUrl, logger);
  const dir = path.resolve(config.dataDir, 'db');
  mkdirSync(dir, { recursive: true });
  return createPgliteDatabase(dir, config.dataDir);
}

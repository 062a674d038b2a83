import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createPrivateDataDir, tightenTree } from './data-dir.js';
import { createPgDatabase } from './pg.js';
import { createPgliteDatabase } from './pglite.js';
import type { Database } from './types.js';

export type { Database, DedicatedPoolOptions, Queryable, QueryOptions, QueryResult, Engine } from './types.js';
export { migrate } from './migrate.js';
export { preparedQuery, statementName } from './prepared.js';
export { DataDirLockedError, readLockHolder } from './data-dir-lock.js';

/** DATABASE_URL → PostgreSQL pool; unset → PGlite persisted under VIGIA_DATA_DIR/db. */
export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>, logger?: Logger): Promise<Database> {
  if (config.databaseUrl) return createPgDatabase(config.databaseUrl, logger);
  const dataDir = path.resolve(config.dataDir);
  createPrivateDataDir(dataDir);
  const loosened = tightenTree(dataDir);
  if (loosened > 0) {
    logger?.warn({ dataDir, entries: loosened }, 'the data directory was readable by others: tightened to owner-only (directories 0700, files 0600)');
  }
  const dir = path.join(dataDir, 'db');
  createPrivateDataDir(dir);
  const db = await createPgliteDatabase(dir, dataDir);
  // PGlite creates its initial files 0666 whatever the umask.
  tightenTree(dir);
  return db;
}

/**
 * The dispatcher's own connection pool on PostgreSQL, so claiming and write-back never queue
 * behind API requests on the shared pool (and vice versa). On PGlite (one in-process
 * connection) the shared database is used as is.
 */
import type { AppContext } from '../context.js';
import type { Database } from '../db/index.js';
import { createPgDatabase } from '../db/pg.js';

export interface WorkerDb extends Pick<Database, 'query' | 'tx'> {
  close(): Promise<void>;
}

export function openWorkerDb(ctx: AppContext, max = 4): WorkerDb {
  if (ctx.db.engine !== 'pg' || !ctx.config.databaseUrl) {
    return { query: (t, p) => ctx.db.query(t, p), tx: (fn) => ctx.db.tx(fn), close: async () => {} };
  }
  return createPgDatabase(ctx.config.databaseUrl, ctx.log.child({ component: 'dispatcher-db' }), { max });
}

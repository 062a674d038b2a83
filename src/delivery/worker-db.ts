/**
 * The dispatcher's own connection pool, so claiming and write-back never queue behind API
 * requests on the shared pool (and vice versa). On an engine with one connection this is the
 * shared database itself.
 */
import type { AppContext } from '../context.js';
import type { Database } from '../db/index.js';

export type WorkerDb = Pick<Database, 'query' | 'tx' | 'close'>;

export function openWorkerDb(ctx: AppContext, max = 4): WorkerDb {
  return ctx.db.dedicatedPool(max);
}

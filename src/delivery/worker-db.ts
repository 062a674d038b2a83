/**
 * The dispatcher's own connection pool, so claiming and write-back never queue behind API
 * requests on the shared pool (and vice versa). On an engine with one connection this is the
 * shared database itself.
 */
import type { AppContext } from '../context.js';
import type { Database } from '../db/index.js';

export type WorkerDb = Pick<Database, 'query' | 'tx' | 'close'>;

/**
 * Session settings of the dispatcher's connections (on PGlite: of its statements; see docs/architecture.md).
 * `enable_bitmapscan = off`: the claim's candidate scan must walk the due index in order and stop
 * after LIMIT rows. Row estimates of the pending set are tiny (it is a sliver of the table, and a
 * burst outruns the statistics), so with bitmap scans allowed the planner reads and sorts EVERY due
 * row on each claim — O(backlog) per claim, measured 2.7 ms of a 4.1 ms claim at a 4,000-row
 * backlog, 0.17 ms with the ordered index scan. Every other statement of the dispatcher looks rows
 * up by key, where a plain index scan is as good. Durability settings stay as they are.
 */
export const WORKER_SESSION_SETTINGS: Readonly<Record<string, string>> = { enable_bitmapscan: 'off' };

export function openWorkerDb(ctx: AppContext, max = 4): WorkerDb {
  return ctx.db.dedicatedPool(max, { settings: WORKER_SESSION_SETTINGS });
}

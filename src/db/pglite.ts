import { PGlite, type Transaction } from '@electric-sql/pglite';
import path from 'node:path';
import { acquireDataDirLock } from './data-dir-lock.js';
import { OID, parseNumeric, sessionSettingEntries, type Database, type Queryable, type QueryResult } from './types.js';

/**
 * PGlite is one connection. Every query and every transaction goes through one FIFO queue so a
 * request's statements never land inside another request's transaction (ARCHITECTURE §1).
 */
class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * `lockDir`: the directory to lock for this process (VIGIA_DATA_DIR); the lock is released when
 * the database closes. In-memory databases (tests) take no lock.
 */
export async function createPgliteDatabase(dataDir?: string, lockDir?: string): Promise<Database> {
  const lock = lockDir ? acquireDataDirLock(path.resolve(lockDir)) : undefined;
  let lite: PGlite;
  try {
    lite = await PGlite.create(dataDir, {
      parsers: {
        [OID.INT8]: parseNumeric,
        [OID.NUMERIC]: parseNumeric,
        [OID.DATE]: (v: string) => v,
      },
    });
  } catch (err) {
    lock?.release();
    throw err;
  }
  const queue = new SerialQueue();

  const direct = (target: Pick<PGlite | Transaction, 'query' | 'exec'>): Queryable => ({
    async query<T>(text: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const r = await target.query<T>(text, params as any[]);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
    async exec(text: string): Promise<void> {
      await target.exec(text);
    },
  });
  const raw = direct(lite);
  /** fn in one transaction, queued; `setLocal` runs first inside it (SET LOCAL statements). */
  const inTransaction = <T>(fn: (q: Queryable) => Promise<T>, setLocal?: string): Promise<T> =>
    queue.run(() =>
      lite.transaction(async (t) => {
        if (setLocal) await t.exec(setLocal);
        return fn(direct(t));
      }),
    );

  const db: Database = {
    capabilities: { concurrentConnections: false, crossProcessNotify: false },
    // One in-process connection: the "pool" is the database itself, and closing it is the owner's
    // job. Its settings hold for its own statements only: each runs in a transaction that sets
    // them with SET LOCAL (the dispatcher's claim needs enable_bitmapscan = off here as much as on
    // PostgreSQL: with bitmap scans a claim read and sorted every due row, ~30 ms at a 20,000-row
    // backlog against 0.2 ms).
    dedicatedPool: (_max, opts = {}) => {
      const entries = sessionSettingEntries(opts.settings);
      if (entries.length === 0) return { ...db, close: async () => {} };
      const setLocal = entries.map(([k, v]) => `SET LOCAL ${k} = '${v}'`).join('; ');
      const withSettings = <T>(fn: (q: Queryable) => Promise<T>): Promise<T> => inTransaction(fn, setLocal);
      return {
        ...db,
        query: (text, params) => withSettings((q) => q.query(text, params)),
        exec: (text) => withSettings((q) => q.exec(text)),
        tx: withSettings,
        close: async () => {},
      };
    },
    dataDirLock: lock,
    query: (text, params) => queue.run(() => raw.query(text, params)),
    exec: (text) => queue.run(() => raw.exec(text)),
    tx: (fn) => inTransaction(fn),
    async listen(channel, onNotify) {
      const unlisten = await queue.run(() => lite.listen(channel, onNotify));
      return () => queue.run(() => unlisten());
    },
    async close() {
      try {
        await queue.run(() => lite.close());
      } finally {
        lock?.release();
      }
    },
  };
  return db;
}

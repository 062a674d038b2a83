import { PGlite } from '@electric-sql/pglite';
import { OID, parseNumeric, type Database, type Queryable, type QueryResult } from './types.js';

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

export async function createPgliteDatabase(dataDir?: string): Promise<Database> {
  const lite = await PGlite.create(dataDir, {
    parsers: {
      [OID.INT8]: parseNumeric,
      [OID.NUMERIC]: parseNumeric,
      [OID.DATE]: (v: string) => v,
    },
  });
  const queue = new SerialQueue();

  const direct = (target: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<T>(text: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const r = await target.query<T>(text, params as any[]);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
    async exec(text: string): Promise<void> {
      await target.exec(text);
    },
  });
  const raw = direct(lite);

  const db: Database = {
    capabilities: { concurrentConnections: false, crossProcessNotify: false },
    // One in-process connection: the "pool" is the database itself, and closing it is the owner's job.
    dedicatedPool: () => ({ ...db, close: async () => {} }),
    query: (text, params) => queue.run(() => raw.query(text, params)),
    exec: (text) => queue.run(() => raw.exec(text)),
    tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      return queue.run(() => lite.transaction((t) => fn(direct(t as any))));
    },
    async listen(channel, onNotify) {
      const unlisten = await queue.run(() => lite.listen(channel, onNotify));
      return () => queue.run(() => unlisten());
    },
    async close() {
      await queue.run(() => lite.close());
    },
  };
  return db;
}

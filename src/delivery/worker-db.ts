/**
 * The dispatcher's own connection pool on PostgreSQL.
 *
 * Why a separate pool: the dispatcher's claim and write-back statements never queue behind the
 * HTTP API's queries (or the reverse), and every client of this pool has an error listener, so
 * a PostgreSQL restart fails the statement in flight — the dispatcher retries it — instead of
 * crashing the worker. (src/db/pg.ts got the same protection for its transactions in e6b11ba,
 * after this pool was written; the isolation is the reason to keep it.)
 * On PGlite (one in-process connection) the shared database is used as is.
 */
import pg from 'pg';
import type { AppContext } from '../context.js';
import type { Database, Queryable, QueryResult } from '../db/index.js';

const parseNumber = (v: string) => Number(v);
const types = {
  getTypeParser(oid: number, format?: any) {
    if (oid === 20 || oid === 1700) return parseNumber;
    if (oid === 1082) return (v: string) => v;
    return (pg.types.getTypeParser as any)(oid, format);
  },
};

export interface WorkerDb extends Pick<Database, 'query' | 'tx'> {
  close(): Promise<void>;
}

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(text: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const r = await client.query(text, params as unknown[] | undefined);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    },
    async exec(text: string): Promise<void> {
      await client.query(text);
    },
  };
}

export function openWorkerDb(ctx: AppContext, max = 4): WorkerDb {
  if (ctx.db.engine !== 'pg' || !ctx.config.databaseUrl) {
    return { query: (t, p) => ctx.db.query(t, p), tx: (fn) => ctx.db.tx(fn), close: async () => {} };
  }
  const pool = new pg.Pool({ connectionString: ctx.config.databaseUrl, max, types, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
  pool.on('error', () => undefined); // idle client lost: the pool replaces it
  pool.on('connect', (client) => {
    client.on('error', (err) => ctx.log.warn({ err: err.message }, 'dispatcher database connection lost'));
  });
  const root = wrap(pool);
  return {
    query: root.query,
    async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        throw err;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

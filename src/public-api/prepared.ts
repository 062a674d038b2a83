import type { Database, Queryable, QueryResult } from '../db/index.js';

const names = new Map<string, string>();

/**
 * Runs a statement the public API sends on every request as a named prepared statement on
 * PostgreSQL, so each pooled connection plans it once instead of per request (planning the list
 * statements cost more than running them: ~1–2 ms against ~0.3–0.7 ms). PostgreSQL's plan cache
 * still picks custom plans for the first executions and a generic one only when it is no worse.
 *
 * The database layer's `query(text, params)` hands `text` straight to node-postgres, whose
 * `query()` also accepts a `{ name, text }` config; PGlite (and anything that is not the pg
 * engine) gets the plain text. Names are stable per distinct text, so the handful of variants
 * (filters present or not, shallow or deep page) each get their own statement.
 */
export function preparedQuery<T>(db: Queryable, text: string, params: readonly unknown[]): Promise<QueryResult<T>> {
  if ((db as Partial<Database>).engine !== 'pg') return db.query<T>(text, params);
  let name = names.get(text);
  if (name === undefined) {
    name = `vigia_public_${names.size + 1}`;
    names.set(text, name);
  }
  return db.query<T>({ name, text } as unknown as string, params);
}

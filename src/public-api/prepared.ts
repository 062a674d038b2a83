import type { Queryable, QueryResult } from '../db/index.js';

const names = new Map<string, string>();

/**
 * Runs a statement the public API sends on every request as a named prepared statement on
 * PostgreSQL, so each pooled connection plans it once instead of per request (planning the list
 * statements cost more than running them: ~1–2 ms against ~0.3–0.7 ms). PostgreSQL's plan cache
 * still picks custom plans for the first executions and a generic one only when it is no worse.
 *
 * PGlite ignores the name. Names are stable per distinct text, so the handful of variants
 * (filters present or not, shallow or deep page) each get their own statement.
 */
export function preparedQuery<T>(db: Queryable, text: string, params: readonly unknown[]): Promise<QueryResult<T>> {
  let name = names.get(text);
  if (name === undefined) {
    name = `vigia_public_${names.size + 1}`;
    names.set(text, name);
  }
  return db.query<T>(text, params, { name });
}

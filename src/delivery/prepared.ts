/**
 * The dispatcher's hot statements (claim, write-back, next due time) run many times a second
 * with the same text; planning the claim's CTE chain costs about as much as running it. On the
 * pg engine they go as named prepared statements, so each pooled connection plans them once
 * (PostgreSQL's plan cache still uses custom plans for the first executions and a generic one
 * only when it is no worse). node-postgres's `query()` accepts a `{ name, text }` config, which
 * the database layer passes through; anything else (PGlite, a transaction's client wrapper)
 * gets the plain text.
 */
import type { Database, Queryable, QueryResult } from '../db/index.js';

export function preparedQuery<T>(q: Pick<Queryable, 'query'>, name: string, text: string, params: readonly unknown[]): Promise<QueryResult<T>> {
  if ((q as Partial<Database>).engine !== 'pg') return q.query<T>(text, params);
  return q.query<T>({ name: `vigia_delivery_${name}`, text } as unknown as string, params);
}

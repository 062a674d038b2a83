/**
 * The dispatcher's hot statements (claim, write-back, next due time) run many times a second
 * with the same text; planning the claim's CTE chain costs about as much as running it. They go
 * as named prepared statements (the database layer's `name` option), so each PostgreSQL
 * connection plans them once. Engines without prepared statements ignore the name.
 */
import type { Queryable, QueryResult } from '../db/index.js';

export function preparedQuery<T>(q: Pick<Queryable, 'query'>, name: string, text: string, params: readonly unknown[]): Promise<QueryResult<T>> {
  return q.query<T>(text, params, { name: `vigia_delivery_${name}` });
}

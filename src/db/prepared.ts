/**
 * Statements sent many times a second (the dispatcher's claim and write-back, the public API's
 * key lookup and list pages) go as named prepared statements on PostgreSQL, so each pooled
 * connection plans them once instead of per call (planning cost about as much as running them).
 * PostgreSQL's plan cache still picks custom plans for the first executions and a generic one
 * only when it is no worse. PGlite (one connection) parses each name once too (pglite-prepared.ts).
 */
import type { Queryable, QueryResult } from './types.js';

/** One name must always carry one text: callers pass a fixed name, or `statementName(text)`. */
export function preparedQuery<T>(q: Pick<Queryable, 'query'>, name: string, text: string, params: readonly unknown[]): Promise<QueryResult<T>> {
  return q.query<T>(text, params, { name: `vigia_${name}` });
}

const names = new Map<string, string>();

/**
 * A stable name per distinct text, for callers that build a handful of variants of a statement
 * (filters present or not, shallow or deep page): each variant gets its own prepared statement.
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `text_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

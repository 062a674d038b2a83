import type { Queryable } from '../db/index.js';
import { preparedQuery, statementName } from '../db/index.js';

/** What the page's own statement found of the caller's key (see `KeyRecheck`). */
export type KeyState = 'ok' | 'invalid' | 'suspended';

/**
 * A key that came from the key cache: the list statement re-checks it in the same snapshot as
 * the page, so a revocation, an expiry or a suspension counts for the next request on every
 * instance without a lookup round trip of its own. `at` is the request's time (the service clock).
 */
export interface KeyRecheck {
  keyId: string;
  at: Date;
}

/** Numbered parameters for a statement assembled from parts: `add` returns the placeholder. */
export class SqlParams {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The key's state as a scalar SQL expression ('ok' when the key was just looked up). */
function keyStateSql(params: SqlParams, recheck: KeyRecheck | null): string {
  if (!recheck) return `'ok'`;
  return `coalesce((SELECT CASE WHEN k.revoked_at IS NOT NULL
                                  OR (k.expires_at IS NOT NULL AND k.expires_at <= ${params.add(recheck.at)}::timestamptz)
                                THEN 'invalid'
                                WHEN o.suspended THEN 'suspended' ELSE 'ok' END
                       FROM api_keys k JOIN orgs o ON o.id = k.org_id
                      WHERE k.id = ${params.add(recheck.keyId)}), 'invalid')`;
}

/**
 * The page's rows as JSON objects, one per row, in a subquery with the columns `ord` (the
 * page's order, from 1) and `j` (the row as JSON text, e.g. `row_to_json(t)::text` over a
 * LATERAL select whose aliases are the API's field names).
 */
export interface PageStatementParts {
  /** CTEs the other parts use, without the WITH keyword. */
  with?: string;
  /** A scalar subquery (without parentheses): the exact total of the list. */
  count: string;
  rows: string;
  /** More output columns, e.g. `, (SELECT …) AS pending`. */
  extra?: string;
}

/** A list page as the routes send it: the key's verdict, the exact total, the items as JSON text. */
export interface JsonPage {
  keyState: KeyState;
  totalCount: number;
  /** The page's items as one JSON array text, in the page's order, as the database wrote it. */
  itemsJson: string;
}

export interface PageStatementResult<Extra> extends JsonPage {
  extra: Extra;
}

/**
 * One round trip for a page of a list: the key re-check, the total and the page's rows as one
 * JSON array text, all in one statement and so in one snapshot. The database writes the JSON
 * (`row_to_json` is compact and escapes strings as JSON.stringify does), so Node neither parses
 * the page's rows into objects nor serializes them again.
 */
export async function runPageStatement<Extra = Record<string, never>>(
  db: Queryable,
  params: SqlParams,
  recheck: KeyRecheck | null,
  parts: PageStatementParts,
): Promise<PageStatementResult<Extra>> {
  const keyState = keyStateSql(params, recheck);
  const text = `${parts.with ? `WITH ${parts.with}` : ''}
    SELECT ${keyState} AS key_state,
           (${parts.count})::int8 AS total,
           (SELECT coalesce('[' || string_agg(r.j, ',' ORDER BY r.ord) || ']', '[]') FROM (${parts.rows}) r) AS items
           ${parts.extra ?? ''}`;
  const { rows } = await preparedQuery<Record<string, unknown>>(db, statementName(text), text, params.values);
  const row = rows[0]!;
  const { key_state, total, items, ...extra } = row;
  return { keyState: key_state as KeyState, totalCount: Number(total), itemsJson: items as string, extra: extra as Extra };
}

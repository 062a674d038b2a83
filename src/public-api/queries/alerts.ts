import type { Queryable } from '../../db/index.js';
import { COMPACT_AFTER_PENDING, compactAlertCounts } from '../../alerts/rollup.js';
import { type JsonPage, type KeyRecheck, type PageStatementResult, runPageStatement, SqlParams } from '../page-statement.js';

/** The documented fields of an alert item, in this order (also the CSV header). */
export const ALERT_FIELDS = [
  'sourceType',
  'sourceName',
  'severity',
  'notificationKind',
  'status',
  'message',
  'createdAt',
  'resolvedAt',
  'acknowledgedAt',
  'failureCount',
  'lastOccurrenceAt',
  'workspaceName',
  'capacityName',
] as const;

export interface AlertItem {
  sourceType: string;
  sourceName: string;
  severity: string;
  notificationKind: string;
  status: string;
  message: string;
  createdAt: string;
  resolvedAt: string | null;
  acknowledgedAt: string | null;
  failureCount: number;
  lastOccurrenceAt: string;
  workspaceName: string | null;
  capacityName: string | null;
}

export interface AlertFilter {
  orgId: string;
  from: Date;
  to: Date;
  status?: string;
  sourceType?: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

interface Spans {
  /** Whole UTC hours inside [from, to): [hFrom, hTo). */
  hFrom: Date;
  hTo: Date;
  /** Whole UTC days inside [hFrom, hTo): [dFrom, dTo) (empty: dFrom = dTo = hTo). */
  dFrom: Date;
  dTo: Date;
}

/**
 * How a window splits for counting, or null when it holds no whole hour: rows of the whole days
 * come from alert_counts_daily, rows of the other whole hours from alert_counts, rows of the
 * partial hours at both edges from the index.
 */
function spans(f: AlertFilter): Spans | null {
  const hFrom = Math.ceil(f.from.getTime() / HOUR_MS) * HOUR_MS;
  const hTo = Math.floor(f.to.getTime() / HOUR_MS) * HOUR_MS;
  if (hFrom >= hTo) return null;
  let dFrom = Math.ceil(hFrom / DAY_MS) * DAY_MS;
  let dTo = Math.floor(hTo / DAY_MS) * DAY_MS;
  if (dFrom >= dTo) dFrom = dTo = hTo;
  return { hFrom: new Date(hFrom), hTo: new Date(hTo), dFrom: new Date(dFrom), dTo: new Date(dTo) };
}

/** Offsets up to this skip index entries directly; deeper ones start at an hour boundary. */
const SHALLOW_OFFSET = 2000;

/**
 * A page row's item: the JSON text stored with the alert (migration 081), or for a row written
 * before that migration the same text computed now by the one definition of the item,
 * alert_public_item (SPEC field order; timestamps as Date#toISOString writes them).
 */
const ITEM_JSON = 'coalesce(a.item_json, alert_public_item(a))';

/** The filter's conditions on alerts, with its parameters added to `params` (org first). */
function alertConditions(params: SqlParams, f: AlertFilter): string {
  let sql = `org_id = ${params.add(f.orgId)} AND created_at >= ${params.add(f.from)} AND created_at < ${params.add(f.to)}`;
  if (f.status !== undefined) sql += ` AND status = ${params.add(f.status)}`;
  if (f.sourceType !== undefined) sql += ` AND source_type = ${params.add(f.sourceType)}`;
  return sql;
}

/** The same filter on the rollup tables (their org_id, status and source_type columns). */
function rollupConditions(params: SqlParams, f: AlertFilter, org: string): string {
  let sql = `org_id = ${org}`;
  if (f.status !== undefined) sql += ` AND status = ${params.add(f.status)}`;
  if (f.sourceType !== undefined) sql += ` AND source_type = ${params.add(f.sourceType)}`;
  return sql;
}

/**
 * SQL of the rollup segments of a window: one row (t, n) per whole hour outside the whole days
 * and per whole day, t its start. Three ranges, each an index-only range scan (one OR of two
 * ranges became a bitmap heap scan).
 */
function segmentsSql(rollup: string, b: { hFrom: string; dFrom: string; dTo: string; hTo: string }): string {
  const hours = (lo: string, hi: string) =>
    `SELECT hour AS t, sum(n) AS n FROM alert_counts WHERE ${rollup} AND hour >= ${lo} AND hour < ${hi} GROUP BY hour`;
  return `${hours(b.hFrom, b.dFrom)}
          UNION ALL
          SELECT day, sum(n) FROM alert_counts_daily WHERE ${rollup} AND day >= ${b.dFrom} AND day < ${b.dTo} GROUP BY day
          UNION ALL
          ${hours(b.dTo, b.hTo)}`;
}

/**
 * One page of an organization's alerts, newest first (created_at DESC, id DESC: id makes the
 * order total, so pages never repeat or skip), with its exact total — one statement, one round
 * trip, which also re-checks a cached key (`recheck`). The items are the JSON texts stored with
 * the alerts (migration 081), joined by the database into the page's array.
 *
 * The page: the inner query walks only the index (org_id, created_at DESC, id DESC) to skip
 * `offset` rows, and the outer one reads just the page's rows from the table — a deep page costs
 * an index range, not half a million heap reads.
 *
 * totalCount is exact and costs O(hours): the whole hours of the window come from the rollup
 * alert_counts (migration 031, maintained by triggers in the writers' transactions), the two
 * partial edge hours from the index. A deep offset starts at the latest hour boundary that has
 * at most `offset` newer rows (found from the same rollup) and skips only the remainder, less
 * than one hour of rows.
 */
export async function listAlerts(
  db: Queryable,
  f: AlertFilter,
  offset: number,
  limit: number,
  recheck: KeyRecheck | null,
): Promise<JsonPage> {
  const params = new SqlParams();
  const cond = alertConditions(params, f);
  const org = '$1';
  const off = params.add(offset);
  const lim = params.add(limit);
  const hours = spans(f);
  const pageRows = (inner: string) => `
    SELECT row_number() OVER (ORDER BY p.created_at DESC, p.id DESC) AS ord, ${ITEM_JSON} AS j
      FROM (${inner}) p
      JOIN alerts a ON a.id = p.id`;
  const pending = `, (SELECT count(*) FROM (SELECT 1 FROM alert_counts WHERE org_id = ${org} AND pending
                       LIMIT ${COMPACT_AFTER_PENDING + 1}) pend)::int AS pending`;

  let result: PageStatementResult<{ pending: number }>;
  if (hours === null) {
    result = await runPageStatement(db, params, recheck, {
      count: `SELECT count(*) FROM alerts WHERE ${cond}`,
      rows: pageRows(`SELECT id, created_at FROM alerts WHERE ${cond}
                       ORDER BY created_at DESC, id DESC OFFSET ${off} LIMIT ${lim}`),
      extra: ', 0 AS pending',
    });
  } else {
    const b = {
      hFrom: `${params.add(hours.hFrom)}::timestamptz`,
      dFrom: `${params.add(hours.dFrom)}::timestamptz`,
      dTo: `${params.add(hours.dTo)}::timestamptz`,
      hTo: `${params.add(hours.hTo)}::timestamptz`,
    };
    const segments = segmentsSql(rollupConditions(params, f, org), b);
    const ctes = `top AS (SELECT count(*) AS n FROM alerts WHERE ${cond} AND created_at >= ${b.hTo}),
                  seg AS (${segments})`;
    const count = `(SELECT n FROM top) + (SELECT coalesce(sum(n), 0) FROM seg)
                   + (SELECT count(*) FROM alerts WHERE ${cond} AND created_at < ${b.hFrom})`;
    if (offset <= SHALLOW_OFFSET) {
      result = await runPageStatement(db, params, recheck, {
        with: ctes,
        count,
        rows: pageRows(`SELECT id, created_at FROM alerts WHERE ${cond}
                         ORDER BY created_at DESC, id DESC OFFSET ${off} LIMIT ${lim}`),
        extra: pending,
      });
    } else {
      // The deepest hour or day boundary with at most `offset` newer rows, and how many those are.
      result = await runPageStatement(db, params, recheck, {
        with: `${ctes},
          cum AS (SELECT t, (SELECT n FROM top) + sum(n) OVER (ORDER BY t DESC) AS s FROM seg),
          b AS (SELECT boundary, s FROM (
                  SELECT t AS boundary, s, 0 AS pri FROM cum WHERE s <= ${off}::int8
                  UNION ALL SELECT ${b.hTo}, (SELECT n FROM top), 1 WHERE (SELECT n FROM top) <= ${off}::int8
                  UNION ALL SELECT $3::timestamptz, 0, 2) x
                ORDER BY pri, boundary LIMIT 1)`,
        count,
        rows: pageRows(`SELECT id, created_at FROM alerts WHERE ${cond} AND created_at < (SELECT boundary FROM b)
                         ORDER BY created_at DESC, id DESC
                        OFFSET (SELECT (${off}::int8 - s)::int8 FROM b) LIMIT ${lim}::int8`),
        extra: pending,
      });
    }
  }
  if (result.extra.pending > COMPACT_AFTER_PENDING) await compactAlertCounts(db, f.orgId);
  return { keyState: result.keyState, totalCount: result.totalCount, itemsJson: result.itemsJson };
}

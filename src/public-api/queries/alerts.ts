import type { Queryable } from '../../db/index.js';
import { COMPACT_AFTER_PENDING, compactAlertCounts } from '../../alerts/rollup.js';
import { preparedQuery } from '../prepared.js';

/** SPEC §2.3, in this order (also the CSV header). */
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

function where(f: AlertFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.orgId, f.from, f.to];
  let sql = 'org_id = $1 AND created_at >= $2 AND created_at < $3';
  if (f.status !== undefined) {
    params.push(f.status);
    sql += ` AND status = $${params.length}`;
  }
  if (f.sourceType !== undefined) {
    params.push(f.sourceType);
    sql += ` AND source_type = $${params.length}`;
  }
  return { sql, params };
}

/** The same filter on the rollup alert_counts (hour instead of created_at). */
function rollupWhere(f: AlertFilter, first: number): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  let sql = '';
  if (f.status !== undefined) {
    params.push(f.status);
    sql += ` AND status = $${first + params.length - 1}`;
  }
  if (f.sourceType !== undefined) {
    params.push(f.sourceType);
    sql += ` AND source_type = $${first + params.length - 1}`;
  }
  return { sql, params };
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

/**
 * SQL of the rollup segments of a window: one row (t, n) per whole hour outside the whole days
 * and per whole day, t its start. `p` numbers the parameters hFrom, dFrom, dTo, hTo in order.
 */
function segmentsSql(p: number, filter: string): string {
  // Three ranges, each an index-only range scan (one OR of two ranges became a bitmap heap scan).
  const hours = (lo: number, hi: number) =>
    `SELECT hour AS t, sum(n) AS n FROM alert_counts
      WHERE org_id = $1 AND hour >= $${lo} AND hour < $${hi}${filter} GROUP BY hour`;
  return `${hours(p, p + 1)}
          UNION ALL
          SELECT day, sum(n) FROM alert_counts_daily
           WHERE org_id = $1 AND day >= $${p + 1} AND day < $${p + 2}${filter}
           GROUP BY day
          UNION ALL
          ${hours(p + 2, p + 3)}`;
}

/** Offsets up to this skip index entries directly; deeper ones start at an hour boundary. */
const SHALLOW_OFFSET = 2000;

// Timestamps as text in SQL (identical to Date#toISOString: UTC, milliseconds, `Z`), so Node
// neither parses nor formats dates per row. Timestamps are stored with microseconds; the
// milliseconds are truncated, as the conversion to a JS Date did.
const isoText = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One page of an organization's alerts, newest first (created_at DESC, id DESC: id makes the
 * order total, so pages never repeat or skip). The inner query walks only the index
 * (org_id, created_at DESC, id DESC) to skip `offset` rows, and the outer one reads just the
 * page's rows from the table — a deep page costs an index range, not half a million heap reads.
 *
 * totalCount is exact and costs O(hours): the whole hours of the window come from the rollup
 * alert_counts (migration 031, maintained by triggers in the writers' transactions), the two
 * partial edge hours from the index — all in one statement, so one snapshot. A deep offset
 * starts at the latest hour boundary that has at most `offset` newer rows (found from the same
 * rollup in the page's own statement) and skips only the remainder, less than one hour of rows.
 */
export async function listAlerts(
  db: Queryable,
  f: AlertFilter,
  offset: number,
  limit: number,
): Promise<{ totalCount: number; items: AlertItem[] }> {
  const w = where(f);
  const n = w.params.length;
  const hours = spans(f);
  const deep = hours !== null && offset > SHALLOW_OFFSET;
  const columns = `a.source_type, a.source_name, a.severity, a.notification_kind, a.status, a.message,
              ${isoText('a.created_at')} AS created_at, ${isoText('a.resolved_at')} AS resolved_at,
              ${isoText('a.acknowledged_at')} AS acknowledged_at, a.failure_count,
              ${isoText('a.last_occurrence_at')} AS last_occurrence_at, a.workspace_name, a.capacity_name`;
  let countQuery: Promise<{ rows: Array<{ n: number; pending: number }> }>;
  let pageQuery: Promise<{ rows: any[] }>;
  if (hours === null) {
    countQuery = preparedQuery(db, `SELECT count(*)::int8 AS n, 0 AS pending FROM alerts WHERE ${w.sql}`, w.params);
  } else {
    const r = rollupWhere(f, n + 5);
    countQuery = preparedQuery(db, 
      `SELECT ((SELECT count(*) FROM alerts WHERE ${w.sql} AND created_at >= $${n + 4})
            + (SELECT coalesce(sum(n), 0) FROM (${segmentsSql(n + 1, r.sql)}) seg)
            + (SELECT count(*) FROM alerts WHERE ${w.sql} AND created_at < $${n + 1}))::int8 AS n,
              (SELECT count(*) FROM (SELECT 1 FROM alert_counts WHERE org_id = $1 AND pending
                LIMIT ${COMPACT_AFTER_PENDING + 1}) p)::int AS pending`,
      [...w.params, hours.hFrom, hours.dFrom, hours.dTo, hours.hTo, ...r.params],
    );
  }
  if (!deep) {
    pageQuery = preparedQuery<any>(db, 
      `SELECT ${columns}
         FROM (SELECT id, created_at FROM alerts WHERE ${w.sql}
                ORDER BY created_at DESC, id DESC OFFSET $${n + 1} LIMIT $${n + 2}) p
         JOIN alerts a ON a.id = p.id
        ORDER BY p.created_at DESC, p.id DESC`,
      [...w.params, offset, limit],
    );
  } else {
    // $n+1 offset, $n+2 limit, $n+3… hFrom, dFrom, dTo, hTo, then the rollup filter.
    const r = rollupWhere(f, n + 7);
    pageQuery = preparedQuery<any>(db, 
      `WITH top AS (SELECT count(*) AS n FROM alerts WHERE ${w.sql} AND created_at >= $${n + 6}),
            cum AS (SELECT t, (SELECT n FROM top) + sum(n) OVER (ORDER BY t DESC) AS s
                      FROM (${segmentsSql(n + 3, r.sql)}) seg),
            b AS (SELECT boundary, s FROM (
                    SELECT t AS boundary, s, 0 AS pri FROM cum WHERE s <= $${n + 1}::int8
                    UNION ALL SELECT $${n + 6}::timestamptz, (SELECT n FROM top), 1 WHERE (SELECT n FROM top) <= $${n + 1}::int8
                    UNION ALL SELECT $3::timestamptz, 0, 2) x
                  ORDER BY pri, boundary LIMIT 1)
       SELECT ${columns}
         FROM (SELECT id, created_at FROM alerts WHERE ${w.sql} AND created_at < (SELECT boundary FROM b)
                ORDER BY created_at DESC, id DESC
               OFFSET (SELECT ($${n + 1}::int8 - s)::int8 FROM b) LIMIT $${n + 2}::int8) p
         JOIN alerts a ON a.id = p.id
        ORDER BY p.created_at DESC, p.id DESC`,
      [...w.params, offset, limit, hours!.hFrom, hours!.dFrom, hours!.dTo, hours!.hTo, ...r.params],
    );
  }
  const [count, page] = await Promise.all([countQuery, pageQuery]);
  const c = count.rows[0]!;
  if (c.pending > COMPACT_AFTER_PENDING) await compactAlertCounts(db, f.orgId);
  return {
    totalCount: Number(c.n),
    items: page.rows.map((r) => ({
      sourceType: r.source_type,
      sourceName: r.source_name,
      severity: r.severity,
      notificationKind: r.notification_kind,
      status: r.status,
      message: r.message,
      createdAt: r.created_at,
      resolvedAt: r.resolved_at,
      acknowledgedAt: r.acknowledged_at,
      failureCount: r.failure_count,
      lastOccurrenceAt: r.last_occurrence_at,
      workspaceName: r.workspace_name,
      capacityName: r.capacity_name,
    })),
  };
}


import type { Queryable } from '../../db/index.js';

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

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/**
 * One page of an organization's alerts, newest first (created_at DESC, id DESC: id makes the
 * order total, so pages never repeat or skip). The inner query walks only the index
 * (org_id, created_at DESC, id DESC) to skip `offset` rows, and the outer one reads just the
 * page's rows from the table — a deep page costs an index range, not half a million heap reads.
 */
export async function listAlerts(
  db: Queryable,
  f: AlertFilter,
  offset: number,
  limit: number,
): Promise<{ totalCount: number; items: AlertItem[] }> {
  const w = where(f);
  const n = w.params.length;
  const [count, page] = await Promise.all([
    db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM alerts WHERE ${w.sql}`, w.params),
    db.query<any>(
      `SELECT a.source_type, a.source_name, a.severity, a.notification_kind, a.status, a.message,
              a.created_at, a.resolved_at, a.acknowledged_at, a.failure_count, a.last_occurrence_at,
              a.workspace_name, a.capacity_name
         FROM (SELECT id, created_at FROM alerts WHERE ${w.sql}
                ORDER BY created_at DESC, id DESC OFFSET $${n + 1} LIMIT $${n + 2}) p
         JOIN alerts a ON a.id = p.id
        ORDER BY p.created_at DESC, p.id DESC`,
      [...w.params, offset, limit],
    ),
  ]);
  return {
    totalCount: count.rows[0]!.n,
    items: page.rows.map((r) => ({
      sourceType: r.source_type,
      sourceName: r.source_name,
      severity: r.severity,
      notificationKind: r.notification_kind,
      status: r.status,
      message: r.message,
      createdAt: r.created_at.toISOString(),
      resolvedAt: iso(r.resolved_at),
      acknowledgedAt: iso(r.acknowledged_at),
      failureCount: r.failure_count,
      lastOccurrenceAt: r.last_occurrence_at.toISOString(),
      workspaceName: r.workspace_name,
      capacityName: r.capacity_name,
    })),
  };
}

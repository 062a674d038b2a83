/** Reading the delivery tables: the dispatcher's next due time and the delivery history views. */
import type { Queryable } from '../db/index.js';
import { preparedQuery } from '../db/index.js';
import type { DeliveryStatus } from './status.js';

type Q = Pick<Queryable, 'query'>;

/**
 * The earliest time a pending row becomes claimable (the latest of its due time, its lease end
 * and its rate-limited destination's next send slot), ignoring organizations over their cap
 * this cycle, and whether any organization is over its cap.
 */
export async function nextDueTime(q: Q, cycle: Date, orgCapPerCycle: number): Promise<{ next: Date | null; capped: boolean }> {
  const { rows } = await preparedQuery<{ next: Date | null; capped: boolean }>(
    q,
    'next_due',
    `SELECT (SELECT min(GREATEST(d.next_attempt_at, d.locked_until, r.tat))
               FROM deliveries d LEFT JOIN destination_rate r ON r.destination_id = d.destination_id
              WHERE d.status = 'pending'
                AND (d.group_id IS NULL OR d.group_id = d.id
                     OR NOT EXISTS (SELECT 1 FROM deliveries l WHERE l.id = d.group_id AND l.status = 'pending'))
                AND NOT EXISTS (SELECT 1 FROM delivery_org_budget b
                                 WHERE b.org_id = d.org_id AND b.cycle_start = $1 AND b.used >= $2)) AS next,
            EXISTS (SELECT 1 FROM delivery_org_budget b WHERE b.cycle_start = $1 AND b.used >= $2) AS capped`,
    [cycle, orgCapPerCycle],
  );
  const r = rows[0];
  return { next: r?.next ? new Date(r.next) : null, capped: r?.capped ?? false };
}

/** A delivery as the history shows it. */
export interface DeliveryRecord {
  id: string;
  event: string;
  alert_id: string;
  destination_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
  test: boolean;
}

export const DELIVERY_RECORD_COLUMNS =
  'id, event, alert_id, destination_id, status, attempts, next_attempt_at, last_status_code, last_error, created_at, completed_at, test';

export interface AttemptRecord {
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** One page of a destination's history, newest first, with the total count. */
export async function listDestinationDeliveries(
  q: Q,
  f: { orgId: string; destinationId: string; status?: DeliveryStatus; from?: Date; to?: Date; limit: number; offset: number },
): Promise<{ rows: DeliveryRecord[]; totalCount: number }> {
  // Optional filters: status, created at or after `from`, created before `to`.
  const params: unknown[] = [f.orgId, f.destinationId];
  let where = 'org_id = $1 AND destination_id = $2';
  for (const [sql, value] of [['status =', f.status], ['created_at >=', f.from], ['created_at <', f.to]] as const) {
    if (value === undefined) continue;
    params.push(value);
    where += ` AND ${sql} $${params.length}`;
  }
  const [count, list] = await Promise.all([
    q.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE ${where}`, params),
    q.query<DeliveryRecord>(
      `SELECT ${DELIVERY_RECORD_COLUMNS} FROM deliveries WHERE ${where} ORDER BY created_at DESC, id DESC
        LIMIT ${Math.trunc(f.limit)} OFFSET ${Math.trunc(f.offset)}`,
      params,
    ),
  ]);
  return { rows: list.rows, totalCount: count.rows[0]!.n };
}

/** One delivery of the organization with its attempt log, or null. */
export async function findDelivery(q: Q, orgId: string, deliveryId: string): Promise<{ delivery: DeliveryRecord; attempts: AttemptRecord[] } | null> {
  const { rows } = await q.query<DeliveryRecord>(`SELECT ${DELIVERY_RECORD_COLUMNS} FROM deliveries WHERE org_id = $1 AND id = $2`, [
    orgId,
    deliveryId,
  ]);
  if (!rows[0]) return null;
  const attempts = await q.query<AttemptRecord>(
    'SELECT attempt, started_at, duration_ms, status_code, error FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
    [deliveryId],
  );
  return { delivery: rows[0], attempts: attempts.rows };
}

/** A delivery of one alert's events, with its destination's name and kind (test sends excluded). */
export interface AlertDeliveryRecord extends DeliveryRecord {
  event_id: string | null;
  destination_name: string;
  destination_kind: string;
}

/** Every delivery made for an alert's events, in event order. */
export async function findAlertDeliveries(q: Q, orgId: string, alertId: string): Promise<AlertDeliveryRecord[]> {
  const columns = DELIVERY_RECORD_COLUMNS.split(', ').map((c) => `d.${c}`).join(', ');
  // Test sends carry a sample alert id, never a real one; they are excluded all the same.
  const { rows } = await q.query<AlertDeliveryRecord>(
    `SELECT ${columns}, d.event_id, s.name AS destination_name, s.kind AS destination_kind
       FROM deliveries d JOIN destinations s ON s.id = d.destination_id AND s.org_id = d.org_id
      WHERE d.org_id = $1 AND d.alert_id = $2 AND NOT d.test
      ORDER BY d.event_seq NULLS LAST, d.created_at, d.id`,
    [orgId, alertId],
  );
  return rows;
}

/**
 * Every change of a delivery's state after it is created, each as one named, batch-first
 * function (ids or pairs in, one statement out). The claim lives in claim.ts. Nothing outside
 * the outbox writes deliveries or delivery_attempts; a transition that makes a row due sends
 * the NOTIFY in the same statement.
 */
import type { Queryable } from '../db/index.js';
import { NOTIFY_SQL } from './channel.js';
import { AUTO_DISABLE_MIN_FAILURES, healthUpsertSql, type DisableDue } from './health.js';
import { preparedQuery } from '../db/index.js';
import { DELIVERY_RECORD_COLUMNS, type DeliveryRecord } from './reads.js';
import { DESTINATION_DELETED_REASON, type DeliveryStatus, type FinalStatus } from './status.js';

type Q = Pick<Queryable, 'query'>;

/** The outcome of one finished attempt, decided by the dispatcher's retry policy. */
export interface Settlement {
  id: string;
  /** Absolute attempt number (the attempt log key). */
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /** `pending` = retry at `nextAttemptAt`. */
  status: Extract<DeliveryStatus, 'pending'> | FinalStatus;
  nextAttemptAt: Date | null;
}

/**
 * Attempt-log rows (append-only), the delivery states of a batch — finish, retry, fail and
 * abandon alike — and the endpoint health of the deliveries that ended, in ONE statement (one
 * round trip, one commit per batch). Only rows this worker still leases change, and only those
 * count for health, in batch order (see health.ts). Returns their ids and the destinations the
 * automatic rule must disable now (the caller applies it with disableDue; rare).
 */
const SETTLE_SQL = (() => {
  const health = healthUpsertSql('$11', '$12', '$13');
  return `
WITH log AS (
  INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
  SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[])
  ON CONFLICT (delivery_id, attempt) DO NOTHING
),
upd AS (
  UPDATE deliveries d SET status = u.status, next_attempt_at = u.next, last_status_code = u.code, last_error = u.err,
         completed_at = u.completed, locked_until = NULL, locked_by = NULL
    FROM (SELECT * FROM unnest($1::text[], $7::text[], $8::timestamptz[], $5::int[], $6::text[], $9::timestamptz[]) WITH ORDINALITY
            AS t(id, status, next, code, err, completed, ord)) u
   WHERE d.id = u.id AND d.id = ANY($1::text[]) AND d.locked_by = $10 AND d.status = 'pending'
  RETURNING d.id, d.destination_id, u.status, u.ord
),
ended AS (SELECT destination_id AS dest, status, ord FROM upd WHERE status <> 'pending'),
last_ok AS (SELECT dest, max(ord) AS ord FROM ended WHERE status = 'succeeded' GROUP BY dest),
b AS (
  SELECT e.dest, bool_or(e.status = 'succeeded') AS ok,
         (count(*) FILTER (WHERE e.status <> 'succeeded' AND e.ord > COALESCE(l.ord, 0)))::int AS after,
         (count(*) FILTER (WHERE e.status <> 'succeeded'))::int AS fails
    FROM ended e LEFT JOIN last_ok l ON l.dest = e.dest
   GROUP BY e.dest
), ${health.cte}
SELECT (SELECT coalesce(json_agg(upd.id), '[]'::json) FROM upd) AS ids,
       (SELECT coalesce(json_agg(json_build_object('destination_id', h.destination_id, 'consecutive_failures', h.consecutive_failures,
                                                   'failing_since', h.failing_since)), '[]'::json)
          FROM h WHERE ${health.dueWhere}) AS due`;
})();

export async function settleAttempts(
  q: Q,
  items: Settlement[],
  workerId: string,
  now: Date,
  autoDisableAfterMs: number | null,
): Promise<{ applied: Set<string>; disableDue: DisableDue[] }> {
  if (items.length === 0) return { applied: new Set(), disableDue: [] };
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
  const { rows } = await preparedQuery<{ ids: string[] | string; due: DisableDue[] | string }>(q, 'settle', SETTLE_SQL, [
    items.map((a) => a.id),
    items.map((a) => a.attempt),
    items.map((a) => iso(a.startedAt)),
    items.map((a) => a.durationMs),
    items.map((a) => a.statusCode),
    items.map((a) => a.error),
    items.map((a) => a.status),
    items.map((a) => iso(a.nextAttemptAt)),
    items.map((a) => (a.status === 'pending' ? null : now.toISOString())),
    workerId,
    now,
    autoDisableAfterMs,
    AUTO_DISABLE_MIN_FAILURES,
  ]);
  return { applied: new Set(json<string[]>(rows[0]!.ids)), disableDue: json<DisableDue[]>(rows[0]!.due) };
}

/** An incident at a connector destination: the unit of the ordering rule. */
export interface IncidentAtDestination {
  destinationId: string;
  alertId: string;
}

/**
 * Decides what the held (`waiting`) events of each pair do now, as ONE statement. Only a pair
 * with no `pending` delivery is touched (one event of an incident is in flight at a time):
 *   - the incident's opening ended `failed`/`abandoned`, none succeeded and the destination holds
 *     no reference for it: every held event is abandoned with `lostReason` (the target has no
 *     record to update);
 *   - otherwise the earliest held event (lowest event sequence) becomes due now.
 * The settlement of a connector batch calls it for the pairs whose delivery just ended; the
 * rescuer calls it for pairs found with held events and nothing in flight.
 */
export async function resolveWaiting(q: Q, pairs: IncidentAtDestination[], now: Date, lostReason: string): Promise<{ released: number; abandoned: number }> {
  if (pairs.length === 0) return { released: 0, abandoned: 0 };
  const { rows } = await q.query<{ released: number; abandoned: number }>(
    `WITH p AS (
       SELECT DISTINCT dest, alert FROM unnest($1::text[], $2::text[]) AS t(dest, alert)
     ), idle AS (
       SELECT p.dest, p.alert,
              EXISTS (SELECT 1 FROM deliveries o WHERE o.destination_id = p.dest AND o.alert_id = p.alert AND NOT o.test
                        AND o.event = 'alert.opened' AND o.status IN ('failed', 'abandoned'))
              AND NOT EXISTS (SELECT 1 FROM deliveries o WHERE o.destination_id = p.dest AND o.alert_id = p.alert AND NOT o.test
                        AND o.event = 'alert.opened' AND o.status = 'succeeded')
              AND NOT EXISTS (SELECT 1 FROM connector_refs r WHERE r.destination_id = p.dest AND r.alert_id = p.alert) AS lost
         FROM p
        WHERE NOT EXISTS (SELECT 1 FROM deliveries u WHERE u.destination_id = p.dest AND u.alert_id = p.alert AND u.status = 'pending')
     ), abandoned AS (
       UPDATE deliveries d SET status = 'abandoned', last_error = $4, completed_at = $3
         FROM idle i
        WHERE i.lost AND d.destination_id = i.dest AND d.alert_id = i.alert AND d.status = 'waiting'
       RETURNING d.id
     ), nxt AS (
       SELECT (SELECT w.id FROM deliveries w WHERE w.destination_id = i.dest AND w.alert_id = i.alert AND w.status = 'waiting'
                ORDER BY w.event_seq, w.created_at LIMIT 1) AS id
         FROM idle i WHERE NOT i.lost
     ), released AS (
       UPDATE deliveries d SET status = 'pending', next_attempt_at = $3
        WHERE d.id IN (SELECT id FROM nxt WHERE id IS NOT NULL) AND d.status = 'waiting'
       RETURNING d.id
     )
     SELECT (SELECT count(*)::int FROM released) AS released, (SELECT count(*)::int FROM abandoned) AS abandoned,
            CASE WHEN EXISTS (SELECT 1 FROM released) THEN ${NOTIFY_SQL} END AS notified`,
    [pairs.map((p) => p.destinationId), pairs.map((p) => p.alertId), now, lostReason],
  );
  return rows[0]!;
}

/**
 * Pairs with held events and no delivery in flight: a committed state in which nothing would
 * ever release them (at most `limit` pairs). Normally there are none; the rescuer looks.
 */
export async function findStrandedWaiting(q: Q, limit: number): Promise<IncidentAtDestination[]> {
  const { rows } = await q.query<{ destination_id: string; alert_id: string }>(
    `SELECT DISTINCT w.destination_id, w.alert_id FROM deliveries w
      WHERE w.status = 'waiting'
        AND NOT EXISTS (SELECT 1 FROM deliveries u WHERE u.destination_id = w.destination_id AND u.alert_id = w.alert_id AND u.status = 'pending')
      LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ destinationId: r.destination_id, alertId: r.alert_id }));
}

/** Extends this worker's leases; returns the ids still held (a lost lease is not renewed). */
export async function renewLeases(q: Q, ids: string[], workerId: string, until: Date): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await q.query<{ id: string }>(
    `UPDATE deliveries SET locked_until = $3 WHERE id = ANY($1::text[]) AND locked_by = $2 AND status = 'pending' RETURNING id`,
    [ids, workerId, until],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Gives leased rows that were never started back (lease cleared, attempt count restored) and
 * refunds the organization budget of the cycle `refundable` rows were charged to.
 */
export async function releaseLeases(q: Q, ids: string[], refundable: string[], workerId: string, cycle: Date): Promise<void> {
  if (ids.length === 0) return;
  await q.query(
    `WITH back AS (
       UPDATE deliveries SET attempts = attempts - 1, locked_until = NULL, locked_by = NULL
        WHERE id = ANY($1::text[]) AND locked_by = $2 AND status = 'pending'
       RETURNING id, org_id),
     refund AS (
       UPDATE delivery_org_budget b SET used = GREATEST(0, b.used - x.n)
         FROM (SELECT org_id, count(*)::int AS n FROM back WHERE id = ANY($4::text[]) GROUP BY org_id) x
        WHERE b.org_id = x.org_id AND b.cycle_start = $3)
     SELECT CASE WHEN EXISTS (SELECT 1 FROM back) THEN ${NOTIFY_SQL} END AS notified`,
    [ids, workerId, cycle, refundable],
  );
}

export type RedeliverResult = { kind: 'queued'; row: DeliveryRecord } | { kind: 'not_found' } | { kind: 'in_progress' };

/**
 * Sends a finished delivery again: same id and body, a fresh attempt budget (attempt numbers
 * keep counting in the log). Refused while the delivery is unfinished. Must run in a
 * transaction (the row is locked between the check and the change).
 */
export async function redeliver(q: Q, orgId: string, deliveryId: string, now: Date): Promise<RedeliverResult> {
  const found = await q.query<{ status: DeliveryStatus; deleted: boolean }>(
    `SELECT d.status, s.deleted_at IS NOT NULL AS deleted FROM deliveries d JOIN destinations s ON s.id = d.destination_id
      WHERE d.org_id = $1 AND d.id = $2 FOR UPDATE OF d`,
    [orgId, deliveryId],
  );
  const current = found.rows[0];
  if (!current || current.deleted) return { kind: 'not_found' };
  if (current.status === 'pending' || current.status === 'waiting') return { kind: 'in_progress' };
  const { rows } = await q.query<DeliveryRecord>(
    `WITH upd AS (
       UPDATE deliveries SET status = 'pending', attempt_base = attempts, next_attempt_at = $3, completed_at = NULL,
              locked_until = NULL, locked_by = NULL
        WHERE org_id = $1 AND id = $2 RETURNING ${DELIVERY_RECORD_COLUMNS})
     SELECT upd.*, ${NOTIFY_SQL} AS notified FROM upd`,
    [orgId, deliveryId, now],
  );
  return { kind: 'queued', row: rows[0]! };
}

/** Unsent work of a deleted destination stops here and is never sent. Returns how many rows. */
export async function abandonDestinationWork(q: Q, orgId: string, destinationId: string, now: Date): Promise<number> {
  const { rowCount } = await q.query(
    `UPDATE deliveries SET status = 'abandoned', last_error = $4, completed_at = $3,
            next_attempt_at = NULL, locked_until = NULL, locked_by = NULL
      WHERE org_id = $1 AND destination_id = $2 AND status IN ('pending', 'waiting')`,
    [orgId, destinationId, now, DESTINATION_DELETED_REASON],
  );
  return rowCount;
}

/** A test send, already made: its history row and its one attempt, in one statement. */
export async function recordTestDelivery(
  q: Q,
  d: {
    id: string;
    orgId: string;
    destinationId: string;
    alertId: string;
    status: FinalStatus;
    body: string;
    statusCode: number | null;
    error: string | null;
    createdAt: Date;
    completedAt: Date;
    startedAt: Date;
    durationMs: number;
  },
): Promise<void> {
  await q.query(
    `WITH dl AS (
       INSERT INTO deliveries (id, org_id, destination_id, alert_id, event, status, body, test, attempts, last_status_code, last_error, created_at, completed_at)
       VALUES ($1, $2, $3, $4, 'alert.opened', $5, $6, true, 1, $7, $8, $9, $10) RETURNING id)
     INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
     SELECT id, 1, $11, $12, $7, $8 FROM dl`,
    [d.id, d.orgId, d.destinationId, d.alertId, d.status, d.body, d.statusCode, d.error, d.createdAt, d.completedAt, d.startedAt, d.durationMs],
  );
}

/** Delivery history is kept this many days. */
export const HISTORY_DAYS = 30;

/** Deletes finished deliveries created before now − 30 days (attempts cascade); returns how many. */
export async function purgeHistory(q: Q, now: Date, batchSize = 1000): Promise<number> {
  const cutoff = new Date(now.getTime() - HISTORY_DAYS * 86_400_000);
  let total = 0;
  for (;;) {
    // Small batches keep each statement short, so purging never stalls the dispatcher.
    const { rowCount } = await q.query(
      `DELETE FROM deliveries WHERE id IN (
         SELECT id FROM deliveries WHERE created_at < $1 AND status NOT IN ('pending', 'waiting')
          ORDER BY created_at LIMIT $2)`,
      [cutoff, batchSize],
    );
    total += rowCount;
    if (rowCount < batchSize) return total;
  }
}

/**
 * Writing attempt outcomes back (ARCHITECTURE §3): a batch of finished attempts becomes one
 * transaction — attempt log rows, delivery state, connector references, and the release (or
 * abandonment) of connector deliveries held behind an incident's earlier event.
 */
import type { Queryable } from '../db/index.js';
import type { ConnectorResult } from './connectors/types.js';
import { DELIVERY_CHANNEL, OPENING_FAILED_REASON } from './fanout.js';
import { preparedQuery } from './prepared.js';
import { retryDelayMs } from './retry-policy.js';

export interface FinishedAttempt {
  id: string;
  destinationId: string;
  alertId: string;
  kind: string;
  event: string;
  /** Absolute attempt number (attempt log key). */
  attempt: number;
  /** Attempt number within the current budget (drives the retry schedule). */
  budgetAttempt: number;
  result: ConnectorResult;
  startedAt: Date;
  durationMs: number;
}

export type FinalStatus = 'succeeded' | 'pending' | 'failed' | 'abandoned';

export interface AppliedOutcome {
  id: string;
  status: FinalStatus;
  /** False when this worker no longer held the lease (row changed meanwhile): nothing written but the log. */
  applied: boolean;
}

export function decideStatus(scheduleMs: readonly number[], a: FinishedAttempt, now: Date): { status: FinalStatus; next: Date | null } {
  if (a.result.outcome === 'succeeded') return { status: 'succeeded', next: null };
  if (a.result.outcome === 'abandon') return { status: 'abandoned', next: null };
  const delay = retryDelayMs(scheduleMs, a.budgetAttempt, a.result.retryAfterMs);
  if (delay === null) return { status: 'failed', next: null };
  return { status: 'pending', next: new Date(now.getTime() + delay) };
}

/**
 * Attempt-log rows and delivery states in ONE statement (data-modifying CTEs): the whole
 * write-back of a webhook batch is a single round trip. Returns the ids this worker still held.
 */
const WRITE_SQL = `
WITH log AS (
  INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
  SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[])
  ON CONFLICT (delivery_id, attempt) DO NOTHING
)
UPDATE deliveries d SET status = u.status, next_attempt_at = u.next, last_status_code = u.code, last_error = u.err,
       completed_at = u.completed, locked_until = NULL, locked_by = NULL
  FROM (SELECT * FROM unnest($1::text[], $7::text[], $8::timestamptz[], $5::int[], $6::text[], $9::timestamptz[])
          AS t(id, status, next, code, err, completed)) u
 WHERE d.id = u.id AND d.id = ANY($1::text[]) AND d.locked_by = $10 AND d.status = 'pending'
RETURNING d.id`;

/** Webhook-only batches need nothing but WRITE_SQL: one autocommit statement, no transaction. */
export function needsTransaction(items: FinishedAttempt[]): boolean {
  return items.some((a) => a.kind !== 'webhook');
}

export async function applyOutcomes(
  q: Pick<Queryable, 'query'>,
  items: FinishedAttempt[],
  o: { workerId: string; now: Date; scheduleMs: readonly number[] },
): Promise<AppliedOutcome[]> {
  if (items.length === 0) return [];
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  const decided = items.map((a) => ({ a, ...decideStatus(o.scheduleMs, a, o.now) }));
  const { rows } = await preparedQuery<{ id: string }>(q, 'write_back', WRITE_SQL, [
    items.map((a) => a.id),
    items.map((a) => a.attempt),
    items.map((a) => iso(a.startedAt)),
    items.map((a) => a.durationMs),
    items.map((a) => a.result.statusCode ?? null),
    items.map((a) => ('error' in a.result ? a.result.error : null)),
    decided.map((x) => x.status),
    decided.map((x) => iso(x.next)),
    decided.map((x) => (x.status === 'pending' ? null : o.now.toISOString())),
    o.workerId,
  ]);
  const applied = new Set(rows.map((r) => r.id));

  let released = false;
  for (const x of decided) {
    if (!applied.has(x.a.id) || x.a.kind === 'webhook') continue;
    const { a } = x;
    if (a.result.outcome === 'succeeded' && a.result.ref) {
      await q.query(
        `INSERT INTO connector_refs (destination_id, alert_id, ref, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (destination_id, alert_id) DO UPDATE SET ref = EXCLUDED.ref`,
        [a.destinationId, a.alertId, JSON.stringify(a.result.ref), o.now],
      );
    }
    if (x.status === 'pending') continue;
    // A final state frees the next held event of this incident at this destination — unless
    // the opening failed for good and left no reference: then the held ones can never succeed.
    const openingLost =
      a.event === 'alert.opened' &&
      x.status !== 'succeeded' &&
      (await q.query('SELECT 1 FROM connector_refs WHERE destination_id = $1 AND alert_id = $2', [a.destinationId, a.alertId])).rows.length === 0;
    if (openingLost) {
      await q.query(
        `UPDATE deliveries SET status = 'abandoned', last_error = $3, completed_at = $4
          WHERE destination_id = $1 AND alert_id = $2 AND status = 'waiting'`,
        [a.destinationId, a.alertId, OPENING_FAILED_REASON, o.now],
      );
    } else {
      const r = await q.query(
        `UPDATE deliveries SET status = 'pending', next_attempt_at = $3
          WHERE id = (SELECT id FROM deliveries WHERE destination_id = $1 AND alert_id = $2 AND status = 'waiting'
                       ORDER BY event_seq, created_at LIMIT 1)`,
        [a.destinationId, a.alertId, o.now],
      );
      if (r.rowCount > 0) released = true;
    }
  }
  if (released) await q.query(`SELECT pg_notify('${DELIVERY_CHANNEL}', '')`);
  return decided.map((x) => ({ id: x.a.id, status: x.status, applied: applied.has(x.a.id) }));
}

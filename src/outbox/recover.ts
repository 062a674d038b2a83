/**
 * Recover: a destination's deliveries that ended failed, abandoned or skipped within a time
 * window are sent again — same id and body bytes (receivers deduplicate by Idempotency-Key), a
 * fresh attempt budget, in the original order of events — by ONE statement.
 *
 * Order: every requeued row is due now, with due times a microsecond apart in event order (the
 * claim takes rows oldest due first). Connector destinations also keep the per-incident rule:
 * only the earliest recovered delivery of an incident is due; the rest wait, and each release
 * frees the next (so a recovered acknowledgement waits for its recovered opening). If the
 * incident still has unfinished work at the destination, all its recovered rows wait.
 *
 * Calling it again while the first run is still sending requeues nothing twice: requeued rows
 * are pending or waiting, no longer failed, abandoned or skipped (and the row locks make two
 * concurrent calls see each other's change).
 */
import type { Queryable } from '../db/index.js';
import { NOTIFY_SQL } from './channel.js';
import { HISTORY_DAYS } from './transitions.js';

type Q = Pick<Queryable, 'query'>;

export interface RecoverWindow {
  since: Date;
  /** Exclusive; null = up to now. */
  until: Date | null;
}

export async function requeueForRecovery(
  q: Q,
  orgId: string,
  destinationId: string,
  connector: boolean,
  window: RecoverWindow,
  now: Date,
): Promise<number> {
  const oldest = new Date(now.getTime() - HISTORY_DAYS * 86_400_000);
  const { rows } = await q.query<{ requeued: number }>(
    `WITH win AS (
       SELECT d.id, d.alert_id, d.event_seq, d.created_at
         FROM deliveries d
        WHERE d.org_id = $1 AND d.destination_id = $2 AND NOT d.test
          AND d.status IN ('failed', 'abandoned', 'skipped')
          AND d.created_at >= GREATEST($3::timestamptz, $5::timestamptz)
          AND ($4::timestamptz IS NULL OR d.created_at < $4::timestamptz)
        ORDER BY d.id
        FOR UPDATE OF d
     ), ranked AS (
       SELECT w.id,
              row_number() OVER (ORDER BY w.event_seq, w.created_at, w.id) AS n,
              count(*) OVER () AS total,
              row_number() OVER (PARTITION BY w.alert_id ORDER BY w.event_seq, w.created_at, w.id) AS in_incident,
              EXISTS (SELECT 1 FROM deliveries u WHERE u.destination_id = $2 AND u.alert_id = w.alert_id
                        AND u.status IN ('pending', 'waiting')) AS incident_busy
         FROM win w
     ), upd AS (
       UPDATE deliveries d
          SET status = CASE WHEN $7::boolean AND (r.in_incident > 1 OR r.incident_busy) THEN 'waiting' ELSE 'pending' END,
              next_attempt_at = CASE WHEN $7::boolean AND (r.in_incident > 1 OR r.incident_busy) THEN NULL
                                     ELSE $6::timestamptz - (r.total - r.n) * interval '1 microsecond' END,
              attempt_base = d.attempts, completed_at = NULL, last_error = NULL,
              locked_until = NULL, locked_by = NULL
         FROM ranked r
        WHERE d.id = r.id AND d.status IN ('failed', 'abandoned', 'skipped')
       RETURNING d.id, d.status
     )
     SELECT (SELECT count(*)::int FROM upd) AS requeued,
            CASE WHEN EXISTS (SELECT 1 FROM upd WHERE status = 'pending') THEN ${NOTIFY_SQL} END AS notified`,
    [orgId, destinationId, window.since, window.until, oldest, now, connector],
  );
  return rows[0]!.requeued;
}

/**
 * Retention of alert events. An incident's events are what its page shows (each with the
 * deliveries it caused), so they go together and only when nothing needs them any more: the
 * incident was resolved longer ago than the delivery history is kept (30 days), and none of its
 * events is still referenced by a delivery in that history (an unfinished delivery is never
 * purged, so its events stay too). Open incidents keep all their events, however old.
 */
import type { Queryable } from '../db/index.js';
import { HISTORY_DAYS } from './transitions.js';

type Q = Pick<Queryable, 'query'>;

/**
 * Deletes the events of incidents past retention; returns how many events were deleted. Walks
 * the events older than the cutoff in `seq` order, one batch per statement, so each statement
 * stays short and events still needed are stepped over rather than read again.
 */
export async function purgeAlertEvents(q: Q, now: Date, batchSize = 1000): Promise<number> {
  const cutoff = new Date(now.getTime() - HISTORY_DAYS * 86_400_000);
  let after = '0';
  let total = 0;
  for (;;) {
    const { rows } = await q.query<{ scanned: number; last_seq: string | null; purged: number }>(
      `WITH batch AS (
         SELECT seq, alert_id FROM alert_events
          WHERE seq > $2::bigint AND created_at < $1
          ORDER BY seq LIMIT $3
       ), done AS (
         SELECT DISTINCT b.alert_id FROM batch b JOIN alerts a ON a.id = b.alert_id
          WHERE a.status = 'resolved' AND a.resolved_at < $1
            AND NOT EXISTS (SELECT 1 FROM alert_events e JOIN deliveries d ON d.event_id = e.id
                             WHERE e.alert_id = b.alert_id)
       ), gone AS (
         DELETE FROM alert_events e USING done WHERE e.alert_id = done.alert_id RETURNING 1
       )
       SELECT (SELECT count(*) FROM batch)::int AS scanned,
              (SELECT max(seq) FROM batch)::text AS last_seq,
              (SELECT count(*) FROM gone)::int AS purged`,
      [cutoff, after, batchSize],
    );
    const r = rows[0]!;
    total += r.purged;
    if (r.scanned < batchSize || r.last_seq === null) return total;
    after = r.last_seq;
  }
}

/**
 * Escalation (docs/alerts.md): an open, unacknowledged, unsuppressed incident older than its
 * organization's escalationMinutes emits `alert.escalated` exactly once. Age counts from the
 * release for a released incident, so a late release is not escalated the same instant.
 */
import type { Queryable } from '../db/index.js';
import type { RecordedEvent } from './events.js';
import { alertColumns, emitAllUnlessSuppressed, type AlertRow } from './rows.js';

/**
 * Claims due incidents with FOR UPDATE SKIP LOCKED and marks them in the same statement; the
 * outer `escalated_at IS NULL` is re-checked on the locked row, so two racing scanners (threads,
 * processes) never escalate one incident twice.
 */
export async function escalateDue(q: Queryable, baseUrl: string, now: Date, limit = 500): Promise<RecordedEvent[]> {
  const { rows } = await q.query<AlertRow>(
    `WITH due AS (
       SELECT a.id FROM alerts a JOIN orgs o ON o.id = a.org_id
       WHERE a.status = 'open' AND NOT a.acknowledged AND a.escalated_at IS NULL AND NOT a.suppressed
         AND o.escalation_minutes IS NOT NULL
         AND COALESCE(a.released_at, a.created_at) + make_interval(mins => o.escalation_minutes) <= $1
       ORDER BY a.created_at, a.id LIMIT ${limit}
       FOR UPDATE OF a SKIP LOCKED)
     UPDATE alerts SET escalated_at = $1, updated_at = $1
     FROM due WHERE alerts.id = due.id AND alerts.escalated_at IS NULL AND alerts.status = 'open'
       AND NOT alerts.acknowledged AND NOT alerts.suppressed
     RETURNING ${alertColumns('alerts')}`,
    [now],
  );
  return emitAllUnlessSuppressed(q, rows.sort((x, y) => (x.id < y.id ? -1 : 1)), 'alert.escalated', now, now, baseUrl);
}

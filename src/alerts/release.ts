/**
 * Release of suppressed incidents (docs/alerts.md): a silenced or correlated incident that is still
 * open is released when no silence matches it any more and none of its causes is still open.
 * Released means: `suppressed` false, `released_at` set, and `alert.opened` emitted now — from
 * then on its events are delivered as usual. An incident silenced with a reason instead of a
 * silence ("found at connection") is never released: it stays quiet until it resolves.
 */
import type { Queryable } from '../db/index.js';
import type { RecordedEvent } from './events.js';
import { alertColumns, emitAllUnlessSuppressed, type AlertRow } from './rows.js';

/** SQL condition (on alias `a`, $1 = now) that an incident no longer needs to be held. */
const RELEASABLE = `a.status = 'open' AND a.suppressed AND a.silence_reason IS NULL
  AND NOT EXISTS (
    SELECT 1 FROM silences s
    WHERE s.org_id = a.org_id AND s.starts_at <= $1 AND s.ends_at > $1
      AND (s.source_type IS NULL OR s.source_type = a.source_type)
      AND (s.source_id IS NULL OR s.source_id = a.source_id)
      AND (s.notification_kind IS NULL OR s.notification_kind = a.notification_kind))
  AND NOT EXISTS (
    SELECT 1 FROM alerts c WHERE c.id = ANY(a.cause_alert_ids) AND c.status = 'open')`;

/**
 * Releases the releasable incidents selected by `extraWhere` (params from $2) and emits their
 * `alert.opened`. Rows are locked with SKIP LOCKED and re-checked, so racing passes release each
 * incident once.
 */
async function releaseWhere(q: Queryable, baseUrl: string, now: Date, extraWhere: string, params: unknown[], limit = 500): Promise<RecordedEvent[]> {
  const { rows } = await q.query<AlertRow>(
    `WITH due AS (
       SELECT a.id FROM alerts a WHERE ${RELEASABLE} ${extraWhere}
       ORDER BY a.id LIMIT ${limit} FOR UPDATE OF a SKIP LOCKED)
     UPDATE alerts SET suppressed = false, released_at = $1, updated_at = $1
     FROM due WHERE alerts.id = due.id AND alerts.suppressed AND alerts.status = 'open'
     RETURNING ${alertColumns('alerts')}`,
    [now, ...params],
  );
  return emitAllUnlessSuppressed(q, rows.sort((x, y) => (x.id < y.id ? -1 : 1)), 'alert.opened', now, now, baseUrl);
}

/** Called in the transaction that resolved `causeId`: releases incidents that waited on it. */
export function releaseDependents(q: Queryable, baseUrl: string, orgId: string, causeId: string, now: Date): Promise<RecordedEvent[]> {
  return releaseWhere(q, baseUrl, now, 'AND a.org_id = $2 AND $3 = ANY(a.cause_alert_ids)', [orgId, causeId], 100_000);
}

/** Called in the transaction that ended a silence early: releases what it alone was holding. */
export function releaseOrg(q: Queryable, baseUrl: string, orgId: string, now: Date): Promise<RecordedEvent[]> {
  return releaseWhere(q, baseUrl, now, 'AND a.org_id = $2', [orgId], 100_000);
}

/** One pass over all organizations (silences that expired by time); returns the events emitted. */
export function releaseDue(q: Queryable, baseUrl: string, now: Date, limit = 500): Promise<RecordedEvent[]> {
  return releaseWhere(q, baseUrl, now, '', [], limit);
}

import type { Queryable } from '../db/index.js';
import type { RecordedEvent } from '../alerts/events.js';
import { newId } from '../ids.js';
import { buildDeliveryBody } from './body.js';
import { loadActiveDestinations, matchesFilter } from './destinations.js';

/** NOTIFY channel the dispatcher listens on; the payload is empty (it only means "look"). */
export const DELIVERY_CHANNEL = 'vigia_deliveries';

export const OPENING_FAILED_REASON = 'abandoned: the opening delivery of this incident failed, so the target has no record to update';

/**
 * Creates one delivery row per (event, enabled matching destination) inside the event's
 * transaction (ARCHITECTURE §2) and signals the dispatcher; NOTIFY is delivered at commit, so
 * the worker never sees a row that might still roll back.
 *
 * Connector kinds keep an incident's events in order (SPEC §4.2 rule 1): a later event waits
 * while an earlier delivery of the same incident to that destination is unfinished; it is
 * abandoned at once when the opening delivery already failed for good and left no reference.
 */
export async function fanOutEvent(q: Queryable, event: RecordedEvent, now: Date): Promise<void> {
  const destinations = (await loadActiveDestinations(q, event.orgId)).filter((d) =>
    matchesFilter(d.filter, { event: event.event, severity: event.snapshot.severity, sourceType: event.snapshot.sourceType }),
  );
  if (destinations.length === 0) return;

  const connectorIds = destinations.filter((d) => d.kind !== 'webhook').map((d) => d.id);
  const prior = new Map<string, { unfinished: boolean; openingFailed: boolean; hasRef: boolean }>();
  if (event.event !== 'alert.opened' && connectorIds.length > 0) {
    const { rows } = await q.query<{ destination_id: string; unfinished: boolean; opening_failed: boolean; has_ref: boolean }>(
      `SELECT d.id AS destination_id,
              EXISTS (SELECT 1 FROM deliveries x WHERE x.destination_id = d.id AND x.alert_id = $2 AND NOT x.test
                        AND x.status IN ('pending', 'waiting')) AS unfinished,
              EXISTS (SELECT 1 FROM deliveries x WHERE x.destination_id = d.id AND x.alert_id = $2 AND NOT x.test
                        AND x.event = 'alert.opened' AND x.status IN ('failed', 'abandoned'))
                AND NOT EXISTS (SELECT 1 FROM deliveries x WHERE x.destination_id = d.id AND x.alert_id = $2 AND NOT x.test
                        AND x.event = 'alert.opened' AND x.status = 'succeeded') AS opening_failed,
              EXISTS (SELECT 1 FROM connector_refs r WHERE r.destination_id = d.id AND r.alert_id = $2) AS has_ref
         FROM destinations d WHERE d.id = ANY($1::text[])`,
      [connectorIds, event.alertId],
    );
    for (const r of rows) prior.set(r.destination_id, { unfinished: r.unfinished, openingFailed: r.opening_failed, hasRef: r.has_ref });
  }

  const values: unknown[] = [];
  const tuples: string[] = [];
  let anyPending = false;
  for (const d of destinations) {
    const id = newId('dlv', now);
    const body = buildDeliveryBody({ deliveryId: id, event: event.event, occurredAt: event.occurredAt, alert: event.snapshot });
    let status: 'pending' | 'waiting' | 'abandoned' = 'pending';
    let lastError: string | null = null;
    const p = prior.get(d.id);
    if (p?.unfinished) status = 'waiting';
    else if (p?.openingFailed && !p.hasRef) {
      status = 'abandoned';
      lastError = OPENING_FAILED_REASON;
    }
    if (status === 'pending') anyPending = true;
    const base = values.length;
    values.push(id, event.orgId, d.id, event.id, event.seq, event.alertId, event.event, status, body, status === 'pending' ? now : null, lastError, now, status === 'abandoned' ? now : null);
    tuples.push(`(${Array.from({ length: 13 }, (_, i) => `$${base + i + 1}`).join(', ')})`);
  }
  await q.query(
    `INSERT INTO deliveries (id, org_id, destination_id, event_id, event_seq, alert_id, event, status, body, next_attempt_at, last_error, created_at, completed_at)
     VALUES ${tuples.join(', ')}`,
    values,
  );
  if (anyPending) await q.query(`SELECT pg_notify('${DELIVERY_CHANNEL}', '')`);
}

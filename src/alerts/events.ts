import type { Queryable } from '../db/index.js';
import { newId } from '../ids.js';
import { fanOutEvent } from '../delivery/fanout.js';
import type { AlertSnapshot } from './snapshot.js';

export const ALERT_EVENTS = ['alert.opened', 'alert.acknowledged', 'alert.escalated', 'alert.recovered'] as const;
export type AlertEventName = (typeof ALERT_EVENTS)[number];

export interface RecordedEvent {
  id: string;
  seq: number;
  orgId: string;
  alertId: string;
  event: AlertEventName;
  occurredAt: Date;
  snapshot: AlertSnapshot;
}

/**
 * Writes one event to the outbox (alert_events) and fans it out to the organization's matching
 * destinations — in the caller's transaction, so the state change, the event and its deliveries
 * commit together or not at all (ARCHITECTURE §2). Callers must not call this for a suppressed
 * (silenced or correlated, not yet released) incident.
 */
export async function recordEvent(
  q: Queryable,
  input: { orgId: string; alertId: string; event: AlertEventName; occurredAt: Date; snapshot: AlertSnapshot; now: Date },
): Promise<RecordedEvent> {
  const id = newId('evt', input.now);
  const { rows } = await q.query<{ seq: number }>(
    `INSERT INTO alert_events (id, org_id, alert_id, event, occurred_at, snapshot, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq`,
    [id, input.orgId, input.alertId, input.event, input.occurredAt, JSON.stringify(input.snapshot), input.now],
  );
  const recorded: RecordedEvent = {
    id,
    seq: rows[0]!.seq,
    orgId: input.orgId,
    alertId: input.alertId,
    event: input.event,
    occurredAt: input.occurredAt,
    snapshot: input.snapshot,
  };
  await fanOutEvent(q, recorded, input.now);
  return recorded;
}

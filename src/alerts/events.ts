import type { Queryable } from '../db/index.js';
import { newId } from '../ids.js';
import { planFanOut, planFanOutBatch } from '../delivery/fanout.js';
import { withChangeRefs } from './change-refs.js';
import { appendEvent, appendEvents, type AlertEventName, type AlertSnapshot, type PendingEvent, type RecordedEvent } from '../outbox/index.js';

export { ALERT_EVENTS, type AlertEventName, type RecordedEvent } from '../outbox/index.js';

export interface EventInput {
  orgId: string;
  alertId: string;
  event: AlertEventName;
  occurredAt: Date;
  snapshot: AlertSnapshot;
  now: Date;
  /** The destination the change came from (an ITSM tool's inbound event): it gets no delivery, so no echo. */
  skipDestinationId?: string;
}

function pendingEvent(input: EventInput): PendingEvent {
  return {
    id: newId('evt', input.now),
    orgId: input.orgId,
    alertId: input.alertId,
    event: input.event,
    occurredAt: input.occurredAt,
    snapshot: input.snapshot,
  };
}

/**
 * Writes one event to the outbox and fans it out to the organization's matching destinations —
 * in the caller's transaction, so the state change, the event and its deliveries commit
 * together or not at all. Callers must not call this for a suppressed (silenced or correlated,
 * not yet released) incident.
 */
export async function recordEvent(q: Queryable, input: EventInput): Promise<RecordedEvent> {
  const [withChanges] = await withChangeRefs(q, [input]);
  return recordOne(q, withChanges!);
}

async function recordOne(q: Queryable, input: EventInput): Promise<RecordedEvent> {
  const pending = pendingEvent(input);
  // Deliveries are planned first (destinations, connector ordering state), then the event and
  // its deliveries are written by one statement: one round trip per event, plus the org's
  // destinations once per transaction.
  const planned = await planFanOut(q, pending, input.now, input.skipDestinationId);
  const seq = await appendEvent(q, pending, planned, input.now);
  return { ...pending, seq };
}

/**
 * recordEvent for many events of one transaction (a pass over many incidents): the same rows,
 * sequence numbers in the order given and the same deliveries as calling recordEvent for each in
 * turn, written by one statement when no delivery depends on earlier state (openings, or no
 * connector destination involved) and one by one otherwise. Results are in the order given.
 */
export async function recordEvents(q: Queryable, given: EventInput[]): Promise<RecordedEvent[]> {
  if (given.length === 0) return [];
  const inputs = await withChangeRefs(q, given);
  if (inputs.length === 1) return [await recordOne(q, inputs[0]!)];
  const now = inputs[0]!.now;
  const pending = inputs.map(pendingEvent);
  const planned = inputs.every((i) => i.now.getTime() === now.getTime() && i.skipDestinationId === undefined) ? await planFanOutBatch(q, pending, now) : null;
  if (!planned) {
    const out: RecordedEvent[] = [];
    for (const input of inputs) out.push(await recordOne(q, input));
    return out;
  }
  const seqs = await appendEvents(q, pending, planned, now);
  return pending.map((p, i) => ({ ...p, seq: seqs[i]! }));
}

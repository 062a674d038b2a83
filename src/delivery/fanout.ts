import type { Queryable } from '../db/index.js';
import type { RecordedEvent } from '../alerts/events.js';
import { newId } from '../ids.js';
import { buildDeliveryBody } from './body.js';
import { loadActiveDestinations, matchesFilter, type DestinationRow } from './destinations.js';

/** NOTIFY channel the dispatcher listens on; the payload is empty (it only means "look"). */
export const DELIVERY_CHANNEL = 'vigia_deliveries';

export const OPENING_FAILED_REASON = 'abandoned: the opening delivery of this incident failed, so the target has no record to update';

/** An event before it is written (no sequence number yet). */
export type PendingEvent = Omit<RecordedEvent, 'seq'>;

/** One delivery row the fan-out will create for an event. */
export interface PlannedDelivery {
  id: string;
  destinationId: string;
  status: 'pending' | 'waiting' | 'abandoned';
  body: string;
  lastError: string | null;
}

/**
 * The organization's active destinations, loaded once per transaction: a transaction that
 * records many events (a batch of signals, an escalation or release pass) reads the
 * destinations table once instead of once per event. The cache is keyed by the transaction's
 * Queryable (a fresh object per transaction in both engines), so it dies with the transaction.
 * A Queryable that can open transactions itself (`tx`) is a pool, not a transaction: never
 * cached. As a safety net an entry is also reused for at most a second.
 */
const DESTINATION_CACHE_MS = 1_000;
const destinationCache = new WeakMap<object, Map<string, { at: number; rows: Promise<DestinationRow[]> }>>();

function activeDestinations(q: Queryable, orgId: string): Promise<DestinationRow[]> {
  if (typeof (q as { tx?: unknown }).tx === 'function') return loadActiveDestinations(q, orgId);
  let byOrg = destinationCache.get(q);
  if (!byOrg) destinationCache.set(q, (byOrg = new Map()));
  const hit = byOrg.get(orgId);
  const now = Date.now();
  if (hit && now - hit.at < DESTINATION_CACHE_MS) return hit.rows;
  const rows = loadActiveDestinations(q, orgId);
  byOrg.set(orgId, { at: now, rows });
  rows.catch(() => byOrg!.delete(orgId));
  return rows;
}

/** Forget the cached destinations of a transaction (call after changing destinations in it). */
export function forgetDestinations(q: Queryable): void {
  destinationCache.delete(q);
}

/**
 * The deliveries an event creates: one per enabled matching destination. Needs no sequence
 * number, so the event and its deliveries can be written by one statement afterwards.
 *
 * Connector kinds keep an incident's events in order (SPEC §4.2 rule 1): a later event waits
 * while an earlier delivery of the same incident to that destination is unfinished; it is
 * abandoned at once when the opening delivery already failed for good and left no reference.
 */
export async function planFanOut(q: Queryable, event: PendingEvent, now: Date): Promise<PlannedDelivery[]> {
  const destinations = (await activeDestinations(q, event.orgId)).filter((d) =>
    matchesFilter(d.filter, { event: event.event, severity: event.snapshot.severity, sourceType: event.snapshot.sourceType }),
  );
  if (destinations.length === 0) return [];

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

  return destinations.map((d) => {
    const id = newId('dlv', now);
    const body = buildDeliveryBody({ deliveryId: id, event: event.event, occurredAt: event.occurredAt, alert: event.snapshot });
    let status: PlannedDelivery['status'] = 'pending';
    let lastError: string | null = null;
    const p = prior.get(d.id);
    if (p?.unfinished) status = 'waiting';
    else if (p?.openingFailed && !p.hasRef) {
      status = 'abandoned';
      lastError = OPENING_FAILED_REASON;
    }
    return { id, destinationId: d.id, status, body, lastError };
  });
}

/**
 * The outbox write of one event, as ONE statement (one round trip): the alert_events row, its
 * delivery rows (with the event's sequence number) and — when one of them is due — the NOTIFY
 * that wakes the dispatcher. NOTIFY is delivered at commit, so the worker never sees a row that
 * might still roll back. Returns the event's sequence number.
 */
export async function writeEventWithDeliveries(q: Queryable, event: PendingEvent, planned: PlannedDelivery[], now: Date): Promise<number> {
  // With no delivery the statement is the plain outbox insert (the CTE inserts nothing).
  const anyPending = planned.some((p) => p.status === 'pending');
  const { rows } = await q.query<{ seq: number }>(
    `WITH ev AS (
       INSERT INTO alert_events (id, org_id, alert_id, event, occurred_at, snapshot, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq
     ), dl AS (
       INSERT INTO deliveries (id, org_id, destination_id, event_id, event_seq, alert_id, event, status, body,
                               next_attempt_at, last_error, created_at, completed_at)
       SELECT t.id, $2, t.dest, $1, ev.seq, $3, $4, t.status, t.body,
              CASE WHEN t.status = 'pending' THEN $7::timestamptz END, t.err, $7::timestamptz,
              CASE WHEN t.status = 'abandoned' THEN $7::timestamptz END
         FROM ev, unnest($8::text[], $9::text[], $10::text[], $11::text[], $12::text[]) WITH ORDINALITY AS t(id, dest, status, body, err, n)
        ORDER BY t.n
     )
     SELECT ev.seq, CASE WHEN $13::boolean THEN (SELECT 1 FROM pg_notify('${DELIVERY_CHANNEL}', '')) END AS notified FROM ev`,
    [
      event.id,
      event.orgId,
      event.alertId,
      event.event,
      event.occurredAt,
      JSON.stringify(event.snapshot),
      now,
      planned.map((p) => p.id),
      planned.map((p) => p.destinationId),
      planned.map((p) => p.status),
      planned.map((p) => p.body),
      planned.map((p) => p.lastError),
      anyPending,
    ],
  );
  return rows[0]!.seq;
}

/**
 * Creates the delivery rows of an event that is already written (one per enabled matching
 * destination) and signals the dispatcher, in the caller's transaction. recordEvent uses
 * planFanOut + writeEventWithDeliveries instead (one statement for event and deliveries).
 */
export async function fanOutEvent(q: Queryable, event: RecordedEvent, now: Date): Promise<void> {
  const planned = await planFanOut(q, event, now);
  if (planned.length === 0) return;
  await q.query(
    `WITH dl AS (
       INSERT INTO deliveries (id, org_id, destination_id, event_id, event_seq, alert_id, event, status, body,
                               next_attempt_at, last_error, created_at, completed_at)
       SELECT t.id, $1, t.dest, $2, $3, $4, $5, t.status, t.body,
              CASE WHEN t.status = 'pending' THEN $6::timestamptz END, t.err, $6::timestamptz,
              CASE WHEN t.status = 'abandoned' THEN $6::timestamptz END
         FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::text[]) WITH ORDINALITY AS t(id, dest, status, body, err, n)
        ORDER BY t.n
     )
     SELECT CASE WHEN $12::boolean THEN (SELECT 1 FROM pg_notify('${DELIVERY_CHANNEL}', '')) END AS notified`,
    [
      event.orgId,
      event.id,
      event.seq,
      event.alertId,
      event.event,
      now,
      planned.map((p) => p.id),
      planned.map((p) => p.destinationId),
      planned.map((p) => p.status),
      planned.map((p) => p.body),
      planned.map((p) => p.lastError),
      planned.some((p) => p.status === 'pending'),
    ],
  );
}

/**
 * Plans a batch of events as one write, or returns null when the batch needs the per-event path:
 * the batch path is taken only when no event's deliveries depend on earlier state — every event
 * is an `alert.opened` (connector ordering never holds an opening) or none of its matching
 * destinations is a connector. Every planned delivery is then 'pending', exactly what recording
 * the events one by one would give.
 */
export async function planFanOutBatch(q: Queryable, events: PendingEvent[], now: Date): Promise<PlannedDelivery[][] | null> {
  const out: PlannedDelivery[][] = [];
  for (const event of events) {
    const destinations = (await activeDestinations(q, event.orgId)).filter((d) =>
      matchesFilter(d.filter, { event: event.event, severity: event.snapshot.severity, sourceType: event.snapshot.sourceType }),
    );
    if (event.event !== 'alert.opened' && destinations.some((d) => d.kind !== 'webhook')) return null;
    out.push(
      destinations.map((d) => {
        const id = newId('dlv', now);
        const body = buildDeliveryBody({ deliveryId: id, event: event.event, occurredAt: event.occurredAt, alert: event.snapshot });
        return { id, destinationId: d.id, status: 'pending' as const, body, lastError: null };
      }),
    );
  }
  return out;
}

/**
 * Many outbox events and all their (pending) deliveries as ONE statement. Sequence numbers are
 * taken in the order of `events` (rows are inserted in that order), as if recorded one by one.
 * Returns the sequence numbers in the order of `events`.
 */
export async function writeEventsWithDeliveries(q: Queryable, events: PendingEvent[], planned: PlannedDelivery[][], now: Date): Promise<number[]> {
  const dl = planned.flatMap((ps, i) => ps.map((p) => ({ p, e: events[i]! })));
  const { rows } = await q.query<{ id: string; seq: number }>(
    `WITH ev AS (
       INSERT INTO alert_events (id, org_id, alert_id, event, occurred_at, snapshot, created_at)
       SELECT e.id, e.org, e.alert, e.event, e.occurred, e.snap::jsonb, $7::timestamptz
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[])
              WITH ORDINALITY AS e(id, org, alert, event, occurred, snap, n)
        ORDER BY e.n
       RETURNING id, seq
     ), dl AS (
       INSERT INTO deliveries (id, org_id, destination_id, event_id, event_seq, alert_id, event, status, body,
                               next_attempt_at, last_error, created_at, completed_at)
       SELECT t.id, t.org, t.dest, t.event_id, ev.seq, t.alert, t.event, 'pending', t.body, $7::timestamptz, NULL, $7::timestamptz, NULL
         FROM unnest($8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
              WITH ORDINALITY AS t(id, org, dest, event_id, alert, event, body, n)
         JOIN ev ON ev.id = t.event_id
        ORDER BY t.n
     )
     SELECT ev.id, ev.seq, CASE WHEN $15::boolean THEN (SELECT 1 FROM pg_notify('${DELIVERY_CHANNEL}', '')) END AS notified FROM ev`,
    [
      events.map((e) => e.id),
      events.map((e) => e.orgId),
      events.map((e) => e.alertId),
      events.map((e) => e.event),
      events.map((e) => e.occurredAt.toISOString()),
      events.map((e) => JSON.stringify(e.snapshot)),
      now,
      dl.map((x) => x.p.id),
      dl.map((x) => x.e.orgId),
      dl.map((x) => x.p.destinationId),
      dl.map((x) => x.e.id),
      dl.map((x) => x.e.alertId),
      dl.map((x) => x.e.event),
      dl.map((x) => x.p.body),
      dl.length > 0,
    ],
  );
  const seqs = new Map(rows.map((r) => [r.id, r.seq]));
  return events.map((e) => seqs.get(e.id)!);
}

/**
 * Appending to the outbox: an event and the deliveries it fans out to, written by ONE statement
 * (one round trip) in the caller's transaction, with the NOTIFY that wakes the dispatcher when
 * one of them is due. Which destinations get a delivery, and in which status, is the caller's
 * decision (delivery/fanout.ts); this module only writes it.
 */
import type { Queryable } from '../db/index.js';
import { NOTIFY_SQL } from './channel.js';
import type { PendingEvent } from './events.js';
import type { DeliveryStatus } from './status.js';

/** One delivery row to create for an event. */
export interface PlannedDelivery {
  id: string;
  destinationId: string;
  status: Extract<DeliveryStatus, 'pending' | 'waiting' | 'abandoned' | 'skipped'>;
  body: string;
  lastError: string | null;
  /** A grouped opening (delivery/grouping.ts): when its group is sent (default: now). */
  dueAt?: Date;
  /** The group's key (tenant or root cause) and its leader's delivery id. */
  groupKey?: string;
  groupId?: string;
}

const dueOf = (p: PlannedDelivery) => (p.dueAt ? p.dueAt.toISOString() : null);

/**
 * The event row, its delivery rows (with the event's sequence number) and — when one of them is
 * due — the NOTIFY. Returns the event's sequence number.
 */
export async function appendEvent(q: Queryable, event: PendingEvent, planned: PlannedDelivery[], now: Date): Promise<number> {
  // With no delivery the statement is the plain outbox insert (the CTE inserts nothing).
  const { rows } = await q.query<{ seq: number }>(
    `WITH ev AS (
       INSERT INTO alert_events (id, org_id, alert_id, event, occurred_at, snapshot, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq
     ), dl AS (
       INSERT INTO deliveries (id, org_id, destination_id, event_id, event_seq, alert_id, event, status, body,
                               next_attempt_at, last_error, created_at, completed_at, group_key, group_id)
       SELECT t.id, $2, t.dest, $1, ev.seq, $3, $4, t.status, t.body,
              CASE WHEN t.status = 'pending' THEN COALESCE(t.due, $7::timestamptz) END, t.err, $7::timestamptz,
              CASE WHEN t.status IN ('abandoned', 'skipped') THEN $7::timestamptz END, t.gkey, t.gid
         FROM ev, unnest($8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $14::timestamptz[], $15::text[], $16::text[])
              WITH ORDINALITY AS t(id, dest, status, body, err, due, gkey, gid, n)
        ORDER BY t.n
     )
     SELECT ev.seq, CASE WHEN $13::boolean THEN ${NOTIFY_SQL} END AS notified FROM ev`,
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
      planned.some((p) => p.status === 'pending'),
      planned.map(dueOf),
      planned.map((p) => p.groupKey ?? null),
      planned.map((p) => p.groupId ?? null),
    ],
  );
  return rows[0]!.seq;
}

/**
 * Many events and all their deliveries as ONE statement, each delivery in its planned status
 * (as appendEvent writes it). Sequence numbers are taken in the order of `events`, as if
 * appended one by one. Returns them in that order.
 */
export async function appendEvents(q: Queryable, events: PendingEvent[], planned: PlannedDelivery[][], now: Date): Promise<number[]> {
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
                               next_attempt_at, last_error, created_at, completed_at, group_key, group_id)
       SELECT t.id, t.org, t.dest, t.event_id, ev.seq, t.alert, t.event, t.status, t.body,
              CASE WHEN t.status = 'pending' THEN COALESCE(t.due, $7::timestamptz) END, t.err, $7::timestamptz,
              CASE WHEN t.status IN ('abandoned', 'skipped') THEN $7::timestamptz END, t.gkey, t.gid
         FROM unnest($8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
                     $18::timestamptz[], $19::text[], $20::text[])
              WITH ORDINALITY AS t(id, org, dest, event_id, alert, event, body, status, err, due, gkey, gid, n)
         JOIN ev ON ev.id = t.event_id
        ORDER BY t.n
     )
     SELECT ev.id, ev.seq, CASE WHEN $17::boolean THEN ${NOTIFY_SQL} END AS notified FROM ev`,
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
      dl.map((x) => x.p.status),
      dl.map((x) => x.p.lastError),
      dl.some((x) => x.p.status === 'pending'),
      dl.map((x) => dueOf(x.p)),
      dl.map((x) => x.p.groupKey ?? null),
      dl.map((x) => x.p.groupId ?? null),
    ],
  );
  const seqs = new Map(rows.map((r) => [r.id, r.seq]));
  return events.map((e) => seqs.get(e.id)!);
}

/** What earlier deliveries of an incident say about a connector destination (ordering rule). */
export interface IncidentDeliveryState {
  /** An earlier delivery of the incident is still pending or waiting. */
  unfinished: boolean;
  /** The opening delivery failed for good (or was skipped while the destination was disabled) and none succeeded. */
  openingFailed: boolean;
}

/** The incident's delivery state at each of the given destinations (test sends ignored). */
export async function incidentDeliveryState(q: Queryable, alertId: string, destinationIds: string[]): Promise<Map<string, IncidentDeliveryState>> {
  const out = new Map<string, IncidentDeliveryState>();
  if (destinationIds.length === 0) return out;
  const { rows } = await q.query<{ destination_id: string; unfinished: boolean; opening_failed: boolean }>(
    `SELECT d.id AS destination_id,
            EXISTS (SELECT 1 FROM deliveries x WHERE x.destination_id = d.id AND x.alert_id = $2 AND NOT x.test
                      AND x.status IN ('pending', 'waiting')) AS unfinished,
            EXISTS (SELECT 1 FROM deliveries x WHERE x.destination_id = d.id AND x.alert_id = $2 AND NOT x.test
                      AND x.event = 'alert.opened' AND x.status IN ('failed', 'abandoned', 'skipped'))
              AND NOT EXISTS (SELECT 1 FROM deliveries x WHERE x.destination_id = d.id AND x.alert_id = $2 AND NOT x.test
                      AND x.event = 'alert.opened' AND x.status = 'succeeded') AS opening_failed
       FROM destinations d WHERE d.id = ANY($1::text[])`,
    [destinationIds, alertId],
  );
  for (const r of rows) out.set(r.destination_id, { unfinished: r.unfinished, openingFailed: r.opening_failed });
  return out;
}

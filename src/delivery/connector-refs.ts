/**
 * External references a connector created for an incident (ServiceNow sys_id, work item id…),
 * one per (destination, incident). Later events of the incident update that record.
 */
import type { Queryable } from '../db/index.js';

type Q = Pick<Queryable, 'query'>;

/** Stores the references of many incidents in one statement (a later one replaces an earlier one). */
export async function storeConnectorRefs(
  q: Q,
  refs: { destinationId: string; alertId: string; ref: Record<string, unknown> }[],
  now: Date,
): Promise<void> {
  if (refs.length === 0) return;
  await q.query(
    `INSERT INTO connector_refs (destination_id, alert_id, ref, created_at)
     SELECT DISTINCT ON (t.dest, t.alert) t.dest, t.alert, t.ref::jsonb, $4
       FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS t(dest, alert, ref, n)
      ORDER BY t.dest, t.alert, t.n DESC
     ON CONFLICT (destination_id, alert_id) DO UPDATE SET ref = EXCLUDED.ref`,
    [refs.map((r) => r.destinationId), refs.map((r) => r.alertId), refs.map((r) => JSON.stringify(r.ref)), now],
  );
}

/** The changes a delivered event writes in a tool (the notification log's `change`). */
const WRITTEN_CHANGE: Record<string, string> = { 'alert.acknowledged': 'acknowledge', 'alert.recovered': 'resolve' };

/**
 * The notification log: each acknowledgement or resolution written to a tool, at the attempt's
 * start (the tool's own time of the change is at or after it). The inbound door reads it to
 * tell the tool's webhook reflecting this write from a person's action.
 */
export async function recordConnectorWrites(q: Q, writes: { destinationId: string; alertId: string; event: string; at: Date }[]): Promise<void> {
  const known = writes.filter((w) => WRITTEN_CHANGE[w.event] !== undefined);
  if (known.length === 0) return;
  await q.query(
    `INSERT INTO connector_writes (destination_id, alert_id, change, written_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) ON CONFLICT DO NOTHING`,
    [known.map((w) => w.destinationId), known.map((w) => w.alertId), known.map((w) => WRITTEN_CHANGE[w.event]!), known.map((w) => w.at)],
  );
}

/** The destinations (of those given) that hold a reference for the incident. */
export async function destinationsWithRef(q: Q, alertId: string, destinationIds: string[]): Promise<Set<string>> {
  if (destinationIds.length === 0) return new Set();
  const { rows } = await q.query<{ destination_id: string }>(
    'SELECT destination_id FROM connector_refs WHERE alert_id = $1 AND destination_id = ANY($2::text[])',
    [alertId, destinationIds],
  );
  return new Set(rows.map((r) => r.destination_id));
}

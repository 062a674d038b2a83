/**
 * External references a connector created for an incident (ServiceNow sys_id, work item id…),
 * one per (destination, incident). Later events of the incident update that record.
 */
import type { Queryable } from '../db/index.js';

type Q = Pick<Queryable, 'query'>;

export async function storeConnectorRef(q: Q, destinationId: string, alertId: string, ref: Record<string, unknown>, now: Date): Promise<void> {
  await q.query(
    `INSERT INTO connector_refs (destination_id, alert_id, ref, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (destination_id, alert_id) DO UPDATE SET ref = EXCLUDED.ref`,
    [destinationId, alertId, JSON.stringify(ref), now],
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

/**
 * Whether the objects of the changes a run read are ones Vigia knows (the lineage the other
 * collectors recorded: items, their workspaces, capacities and gateways). A change to an object
 * Vigia does not know is still kept — the item may be new, or outside what the connection
 * watches — and counted, so the collector's state says how many the last run could not place.
 */
import type { TenantChange } from '../../changes/store.js';
import type { Reader } from '../../engine/reader.js';

/** How many of these changes name an object (not the tenant) that the connection's lineage does not know. */
export async function countUnknownObjects(reader: Reader, tenantRef: string, changes: readonly TenantChange[]): Promise<number> {
  const named = changes.filter((c) => c.object.kind !== 'tenant' && c.object.id);
  if (named.length === 0) return 0;
  const { rows } = await reader.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM unnest($2::text[], $3::text[]) AS u(k, id)
     WHERE NOT EXISTS (SELECT 1 FROM monitored_lineage l WHERE l.tenant_ref = $1 AND (
       (u.k = 'item' AND l.item_id = u.id) OR (u.k = 'workspace' AND l.workspace_id = u.id)
       OR (u.k = 'capacity' AND l.capacity_id = u.id) OR (u.k = 'gateway' AND u.id = ANY(l.gateway_ids))))`,
    [tenantRef, named.map((c) => c.object.kind), named.map((c) => c.object.id)],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The incidents a workload failure may be caused by: an offline gateway (its data sources cannot
 * be reached), a capacity that is not active (nothing on it runs) or one that is throttled (the
 * platform rejects or delays new work on it: CapacityThrottled of the utilization collector). A collector names such an
 * incident's source among a failure's `causes` only while it is open, because the lifecycle
 * matches a cause against ANY open incident of the source (a gateway that merely needs an
 * upgrade must not swallow a refresh failure's page).
 */
import type { Queryable } from '../../db/index.js';

/**
 * The notification kinds of the incidents that are causes. Their collectors (gateway, capacity,
 * utilization) take them from here: this room is below every source, which writes to it and
 * never the reverse.
 */
export const GATEWAY_OFFLINE_KIND = 'GatewayOffline';
export const CAPACITY_KIND = 'CapacityNotActive';
export const THROTTLED_KIND = 'CapacityThrottled';

export interface OpenRootCauses {
  /** Lower-case ids of gateways with an open GatewayOffline incident. */
  gateways: ReadonlySet<string>;
  /** Lower-case ids of capacities with an open CapacityNotActive or CapacityThrottled incident. */
  capacities: ReadonlySet<string>;
}

export async function openRootCauses(q: Pick<Queryable, 'query'>, orgId: string): Promise<OpenRootCauses> {
  const { rows } = await q.query<{ source_type: string; source_id: string }>(
    `SELECT source_type, source_id FROM alerts
      WHERE org_id = $1 AND status = 'open'
        AND ((source_type = 'Gateway' AND notification_kind = $2) OR (source_type = 'Capacity' AND notification_kind = ANY($3::text[])))`,
    [orgId, GATEWAY_OFFLINE_KIND, [CAPACITY_KIND, THROTTLED_KIND]],
  );
  const gateways = new Set<string>();
  const capacities = new Set<string>();
  for (const r of rows) (r.source_type === 'Gateway' ? gateways : capacities).add(r.source_id.toLowerCase());
  return { gateways, capacities };
}

/** The causes of a failure that depends on these gateways and this capacity, as far as they are down now. */
export function causesOf(open: OpenRootCauses, dependsOn: { gatewayIds?: readonly string[]; capacityId?: string | null }): { sourceType: string; sourceId: string }[] {
  const out: { sourceType: string; sourceId: string }[] = [];
  for (const g of new Set((dependsOn.gatewayIds ?? []).map((x) => x.toLowerCase()))) if (open.gateways.has(g)) out.push({ sourceType: 'Gateway', sourceId: g });
  const c = dependsOn.capacityId?.toLowerCase();
  if (c && open.capacities.has(c)) out.push({ sourceType: 'Capacity', sourceId: c });
  return out;
}

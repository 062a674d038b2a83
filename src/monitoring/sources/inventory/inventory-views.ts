/**
 * What the console's inventory pages show of the monitored platform: the on-premises gateways
 * the gateway collector watches (its collector state) and the semantic models whose lineage the
 * collectors recorded (`monitored_lineage`), each with its open incidents. Read only, always
 * scoped to the organization's own tenant connections.
 */
import type { Reader } from '../../engine/reader.js';

export interface GatewayView {
  /** The platform's gateway id (lower case): the `sourceId` of its incidents. */
  id: string;
  name: string;
  tenantName: string;
  offline: boolean;
  upgradeRequired: boolean;
  /** Open incidents of the gateway itself (source type `Gateway`, source id = `id`). */
  openIncidents: number;
}

export interface SemanticModelView {
  /** The platform's semantic model id (lower case): the `sourceId` of its `Dataset` incidents. */
  id: string;
  name: string;
  tenantName: string;
  workspaceId: string;
  /** The workspace's name in the organization's inventory; null while it is not known there. */
  workspaceName: string | null;
  capacityId: string | null;
  /** The capacity's name as the capacity collector last read it; null when unknown or none. */
  capacityName: string | null;
  gateways: Array<{ id: string; name: string | null }>;
  /** Open incidents with source type `Dataset` and this model's id. */
  openIncidents: number;
}

/** Open incidents per lower-cased source id of one source type. */
async function openIncidentsBySource(q: Reader, orgId: string, sourceType: string): Promise<Map<string, number>> {
  const { rows } = await q.query<{ source_id: string; n: number }>(
    `SELECT lower(source_id) AS source_id, count(*)::int AS n FROM alerts
      WHERE org_id = $1 AND status = 'open' AND source_type = $2 GROUP BY lower(source_id)`,
    [orgId, sourceType],
  );
  return new Map(rows.map((r) => [r.source_id, Number(r.n)]));
}

/** The gateways every tenant connection of the organization watches, by name. */
export async function listMonitoredGateways(q: Reader, orgId: string): Promise<GatewayView[]> {
  const { rows } = await q.query<{ key: string; value: { name?: string; offline?: boolean; upgrade?: boolean }; tenant_name: string }>(
    `SELECT s.key, s.value, t.name AS tenant_name FROM collector_state s JOIN tenants t ON t.id = s.tenant_ref
      WHERE t.org_id = $1 AND s.collector = 'gateway' AND s.key LIKE 'gateway:%'`,
    [orgId],
  );
  const open = await openIncidentsBySource(q, orgId, 'Gateway');
  return rows
    .map((r) => {
      const id = r.key.slice('gateway:'.length);
      return {
        id,
        name: r.value.name ?? id,
        tenantName: r.tenant_name,
        offline: r.value.offline === true,
        upgradeRequired: r.value.upgrade === true,
        openIncidents: open.get(id.toLowerCase()) ?? 0,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** The semantic models of the organization's tenants with their workspace, capacity and gateways, by name. */
export async function listMonitoredSemanticModels(q: Reader, orgId: string): Promise<SemanticModelView[]> {
  const { rows } = await q.query<{
    item_id: string;
    item_name: string;
    tenant_ref: string;
    tenant_name: string;
    workspace_id: string;
    workspace_name: string | null;
    capacity_id: string | null;
    capacity_name: string | null;
    gateway_ids: string[];
  }>(
    `SELECT l.item_id, l.item_name, l.tenant_ref, t.name AS tenant_name, l.workspace_id, w.name AS workspace_name,
            l.capacity_id, c.value->>'name' AS capacity_name, l.gateway_ids
       FROM monitored_lineage l
       JOIN tenants t ON t.id = l.tenant_ref
       LEFT JOIN workspaces w ON w.org_id = t.org_id AND lower(w.remote_id) = l.workspace_id
       LEFT JOIN collector_state c ON c.tenant_ref = l.tenant_ref AND c.collector = 'capacity' AND lower(c.key) = l.capacity_id
      WHERE t.org_id = $1 AND l.item_type = 'SemanticModel'`,
    [orgId],
  );
  // Gateway names as the gateway collector of the same tenant last read them.
  const names = await q.query<{ tenant_ref: string; id: string; name: string | null }>(
    `SELECT s.tenant_ref, substr(s.key, 9) AS id, s.value->>'name' AS name FROM collector_state s JOIN tenants t ON t.id = s.tenant_ref
      WHERE t.org_id = $1 AND s.collector = 'gateway' AND s.key LIKE 'gateway:%'`,
    [orgId],
  );
  const gatewayName = new Map(names.rows.map((r) => [`${r.tenant_ref}/${r.id}`, r.name]));
  const open = await openIncidentsBySource(q, orgId, 'Dataset');
  return rows
    .map((r) => ({
      id: r.item_id,
      name: r.item_name,
      tenantName: r.tenant_name,
      workspaceId: r.workspace_id,
      workspaceName: r.workspace_name,
      capacityId: r.capacity_id,
      capacityName: r.capacity_name,
      gateways: r.gateway_ids.map((id) => ({ id, name: gatewayName.get(`${r.tenant_ref}/${id}`) ?? null })),
      openIncidents: open.get(r.item_id) ?? 0,
    }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

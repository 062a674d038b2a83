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
  /** The tenant connection that watches it (its change timeline is that connection's). */
  tenantId: string;
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
  tenantId: string;
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
  const { rows } = await q.query<{ key: string; value: { name?: string; offline?: boolean; upgrade?: boolean }; tenant_ref: string; tenant_name: string }>(
    `SELECT s.key, s.value, s.tenant_ref, t.name AS tenant_name FROM collector_state s JOIN tenants t ON t.id = s.tenant_ref
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
        tenantId: r.tenant_ref,
        tenantName: r.tenant_name,
        offline: r.value.offline === true,
        upgradeRequired: r.value.upgrade === true,
        openIncidents: open.get(id.toLowerCase()) ?? 0,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** One page of the semantic-models view and where the next one starts (null on the last page). */
export interface SemanticModelPage {
  items: SemanticModelView[];
  nextCursor: string | null;
}

export interface SemanticModelPageRequest {
  /** Models per page, 1–500. */
  limit: number;
  /** `nextCursor` of the page before; absent for the first page. */
  after?: ModelCursor | null;
  /** Only models whose name contains this text, case-insensitively. */
  search?: string | null;
}

/** Where a page ends: the last model's name, id and tenant connection (the view's sort key). */
export interface ModelCursor {
  name: string;
  id: string;
  tenantRef: string;
}

export function encodeModelCursor(c: ModelCursor): string {
  return Buffer.from(JSON.stringify([c.name, c.id, c.tenantRef]), 'utf8').toString('base64url');
}

/** The cursor a page gave, or null when `text` is not one (the caller answers 400; it also refuses text the database cannot hold). */
export function decodeModelCursor(text: string): ModelCursor | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return null;
  if (!parsed.every((v) => typeof v === 'string' && v.length <= 1000)) return null;
  const [name, id, tenantRef] = parsed as string[];
  return { name: name!, id: id!, tenantRef: tenantRef! };
}

interface ModelRow {
  item_id: string;
  item_name: string;
  tenant_ref: string;
  tenant_name: string;
  workspace_id: string;
  workspace_name: string | null;
  capacity_id: string | null;
  capacity_name: string | null;
  gateway_ids: string[];
}

/**
 * The page's lineage rows, sorted by name (byte order, the same on both engines), then id, then
 * tenant connection. Each tenant connection of the organization reads only its next `limit` rows
 * from the name index (migration 390), so a page costs the same at the first and the 2,000th
 * page and at any number of models; the merge of the tenants' rows keeps the page's `limit`.
 */
async function readModelRows(q: Reader, orgId: string, req: SemanticModelPageRequest): Promise<ModelRow[]> {
  // The first page starts before every name: the same range read as any later page (without the
  // bound, the embedded engine, which keeps no statistics, sorted the tenant's models instead).
  const after = req.after ?? { name: '', id: '', tenantRef: '' };
  const params: unknown[] = [orgId, req.limit + 1, after.name, after.id, after.tenantRef];
  const where = [
    'm.tenant_ref = t.id',
    "m.item_type = 'SemanticModel'",
    // ≥ within a tenant (its rows are unique by id), so each tenant reads one row more than the
    // page: the cursor's own row, which the tie-break on the tenant connection then drops.
    '(m.item_name COLLATE "C", m.item_id) >= ($3::text COLLATE "C", $4::text)',
  ];
  if (req.search) {
    params.push(req.search);
    where.push(`strpos(lower(m.item_name), lower($${params.length}::text)) > 0`);
  }
  const { rows } = await q.query<ModelRow>(
    `SELECT l.item_id, l.item_name, l.tenant_ref, t.name AS tenant_name, l.workspace_id, w.name AS workspace_name,
            l.capacity_id, c.value->>'name' AS capacity_name, l.gateway_ids
       FROM tenants t
       CROSS JOIN LATERAL (
         SELECT m.item_id, m.item_name, m.tenant_ref, m.workspace_id, m.capacity_id, m.gateway_ids
           FROM monitored_lineage m
          WHERE ${where.join(' AND ')}
          ORDER BY m.item_name COLLATE "C", m.item_id
          LIMIT $2 + 1
       ) l
       LEFT JOIN workspaces w ON w.org_id = t.org_id AND lower(w.remote_id) = l.workspace_id
       LEFT JOIN collector_state c ON c.tenant_ref = l.tenant_ref AND c.collector = 'capacity' AND lower(c.key) = l.capacity_id
      WHERE t.org_id = $1 AND (l.item_name COLLATE "C", l.item_id, l.tenant_ref) > ($3::text COLLATE "C", $4::text, $5::text)
      ORDER BY l.item_name COLLATE "C", l.item_id, l.tenant_ref
      LIMIT $2`,
    params,
  );
  return rows;
}

/** Gateway names as the gateway collector of each tenant last read them, for the gateways a page names. */
async function gatewayNames(q: Reader, rows: ModelRow[]): Promise<Map<string, string | null>> {
  const keys = [...new Set(rows.flatMap((r) => r.gateway_ids.map((id) => `gateway:${id}`)))];
  if (keys.length === 0) return new Map();
  const tenants = [...new Set(rows.map((r) => r.tenant_ref))];
  const { rows: named } = await q.query<{ tenant_ref: string; id: string; name: string | null }>(
    `SELECT tenant_ref, substr(key, 9) AS id, value->>'name' AS name FROM collector_state
      WHERE tenant_ref = ANY($1::text[]) AND collector = 'gateway' AND key = ANY($2::text[])`,
    [tenants, keys],
  );
  return new Map(named.map((r) => [`${r.tenant_ref}/${r.id}`, r.name]));
}

/** Open `Dataset` incidents of the page's models, by lower-cased model id. */
async function openModelIncidents(q: Reader, orgId: string, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const { rows } = await q.query<{ source_id: string; n: number }>(
    `SELECT lower(source_id) AS source_id, count(*)::int AS n FROM alerts
      WHERE org_id = $1 AND status = 'open' AND source_type = 'Dataset' AND lower(source_id) = ANY($2::text[])
      GROUP BY lower(source_id)`,
    [orgId, ids],
  );
  return new Map(rows.map((r) => [r.source_id, Number(r.n)]));
}

/** One page of the organization's semantic models with their workspace, capacity and gateways, by name. */
export async function listMonitoredSemanticModels(q: Reader, orgId: string, req: SemanticModelPageRequest): Promise<SemanticModelPage> {
  const rows = await readModelRows(q, orgId, req);
  const more = rows.length > req.limit;
  const page = more ? rows.slice(0, req.limit) : rows;
  const [names, open] = await Promise.all([gatewayNames(q, page), openModelIncidents(q, orgId, [...new Set(page.map((r) => r.item_id))])]);
  const items = page.map((r) => ({
    id: r.item_id,
    name: r.item_name,
    tenantId: r.tenant_ref,
    tenantName: r.tenant_name,
    workspaceId: r.workspace_id,
    workspaceName: r.workspace_name,
    capacityId: r.capacity_id,
    capacityName: r.capacity_name,
    gateways: r.gateway_ids.map((id) => ({ id, name: names.get(`${r.tenant_ref}/${id}`) ?? null })),
    openIncidents: open.get(r.item_id) ?? 0,
  }));
  const last = page.at(-1);
  return { items, nextCursor: more && last ? encodeModelCursor({ name: last.item_name, id: last.item_id, tenantRef: last.tenant_ref }) : null };
}

/** A capacity as one tenant connection's capacity collector knows it: where its changes are. */
export interface MonitoredCapacity {
  tenantId: string;
  tenantName: string;
  /** The platform's capacity id (lower case). */
  id: string;
}

/**
 * The organization's capacities by the name the inventory shows, from the capacity collector of
 * each tenant connection: its display name, or — when one tenant has two capacities of one name —
 * the name with the start of its id, as the inventory collector writes it. A capacity only put
 * there by hand (PUT /capacities) has none.
 */
export async function monitoredCapacitiesByName(q: Reader, orgId: string): Promise<Map<string, MonitoredCapacity[]>> {
  const { rows } = await q.query<{ key: string; name: string | null; tenant_ref: string; tenant_name: string }>(
    `SELECT s.key, s.value->>'name' AS name, s.tenant_ref, t.name AS tenant_name FROM collector_state s JOIN tenants t ON t.id = s.tenant_ref
      WHERE t.org_id = $1 AND s.collector = 'capacity' ORDER BY t.name, s.tenant_ref, lower(s.key)`,
    [orgId],
  );
  const byName = new Map<string, MonitoredCapacity[]>();
  const add = (name: string, c: MonitoredCapacity) => byName.set(name, [...(byName.get(name) ?? []), c]);
  for (const r of rows) {
    if (!r.name) continue;
    const c = { tenantId: r.tenant_ref, tenantName: r.tenant_name, id: r.key.toLowerCase() };
    add(r.name, c);
    add(`${r.name} (${r.key.slice(0, 8)})`, c);
  }
  return byName;
}

/**
 * The join of changes to incidents (docs/monitoring.md "What changed before it broke"): an
 * incident on an item, a gateway, a capacity, a data source connection or a tenant looks for
 * stored changes to its object or to what the object depends on (the lineage: the model's data
 * sources and gateways, its workspace and the workspace's capacity, the tenant's settings) in the
 * tenant's look-back before it opened, ranks them (rank.ts) and keeps the best in alert_changes.
 * Run when the incident opens (the collector's commit) and again when a change inside its
 * look-back arrives late (late.ts).
 */
import type { Queryable } from '../../db/index.js';
import { changesTouching } from './store.js';
import { rankChanges, type IncidentScope, type RankedChange } from './rank.js';

/** The incident columns the join needs. */
export interface JoinableAlert {
  id: string;
  source_type: string;
  source_id: string;
  created_at: Date;
  tenant_ref?: string | null;
}

/** Source types whose source id is an item (its first GUID for a table of a mirrored database or model). */
const ITEM_SOURCES = new Set(['Dataset', 'FabricJob', 'Mirroring', 'DataFreshness']);
const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The tenant connection an incident belongs to: its collector's, or the Tenant incident's own. */
export function tenantOf(a: JoinableAlert): string | null {
  return a.tenant_ref ?? (a.source_type === 'Tenant' ? a.source_id : null);
}

const empty = (own: IncidentScope['own']): IncidentScope => ({ items: [], datasources: [], gateways: [], workspaces: [], capacities: [], tenantItself: false, own });

/** The kinds of object whose dependencies the join knows (the change timeline's `dependencies` filter too). */
export type ScopedObjectKind = 'item' | 'gateway' | 'capacity';

/**
 * What one object is and depends on: an item with its lineage (data sources, gateways, workspace
 * and the workspace's capacity), a gateway or a capacity by itself; the tenant's settings count
 * for every object (the ranking's `tenant` path).
 */
export async function scopeOfObject(q: Queryable, tenantRef: string, kind: ScopedObjectKind, objectId: string): Promise<IncidentScope> {
  const id = objectId.toLowerCase();
  if (kind === 'gateway') return { ...empty('gateway'), gateways: [id] };
  if (kind === 'capacity') return { ...empty('capacity'), capacities: [id] };
  const { rows } = await q.query<{ workspace_id: string; capacity_id: string | null; gateway_ids: string[]; datasource_ids: string[] }>(
    'SELECT workspace_id, capacity_id, gateway_ids, datasource_ids FROM monitored_lineage WHERE tenant_ref = $1 AND item_id = $2',
    [tenantRef, id],
  );
  const l = rows[0];
  return {
    ...empty('item'),
    items: [id],
    datasources: l?.datasource_ids ?? [],
    gateways: l?.gateway_ids ?? [],
    workspaces: l ? [l.workspace_id] : [],
    capacities: l?.capacity_id ? [l.capacity_id] : [],
  };
}

/** What the incident's object is and depends on, or null for a source the join does not know. */
export async function scopeOf(q: Queryable, tenantRef: string, a: JoinableAlert): Promise<IncidentScope | null> {
  const id = a.source_id.toLowerCase();
  if (ITEM_SOURCES.has(a.source_type)) return scopeOfObject(q, tenantRef, 'item', GUID.exec(id)?.[0] ?? id);
  if (a.source_type === 'Gateway') return scopeOfObject(q, tenantRef, 'gateway', id);
  if (a.source_type === 'Capacity') return scopeOfObject(q, tenantRef, 'capacity', id);
  if (a.source_type === 'Connector') return { ...empty('datasource'), datasources: [id] };
  if (a.source_type === 'Tenant') return { ...empty('tenant'), tenantItself: true };
  return null;
}

/** The tenant's look-back in minutes (tenants.change_lookback_minutes; default 1440). */
export async function lookbackMinutes(q: Queryable, tenantRef: string): Promise<number> {
  const { rows } = await q.query<{ m: number }>('SELECT change_lookback_minutes AS m FROM tenants WHERE id = $1', [tenantRef]);
  return rows[0]?.m ?? 1440;
}

/**
 * Joins one incident: reads the candidates in its look-back, ranks them and makes its
 * alert_changes rows the result (a late change that ranks better takes its place).
 */
export async function joinIncident(q: Queryable, orgId: string, a: JoinableAlert, now: Date, lookback?: number): Promise<RankedChange[]> {
  const tenantRef = tenantOf(a);
  if (!tenantRef) return [];
  const scope = await scopeOf(q, tenantRef, a);
  if (!scope) return [];
  const minutes = lookback ?? (await lookbackMinutes(q, tenantRef));
  const from = new Date(a.created_at.getTime() - minutes * 60_000);
  const to = new Date(a.created_at.getTime() + 1);
  const candidates = await changesTouching(
    q, orgId, tenantRef,
    { itemIds: scope.items, gatewayIds: scope.gateways, datasourceIds: scope.datasources, workspaceIds: scope.workspaces, capacityIds: scope.capacities, tenantWide: true },
    from, to, 500,
  );
  const ranked = rankChanges(candidates, scope, a.created_at);
  const ids = ranked.map((r) => r.change.recordId);
  await q.query('DELETE FROM alert_changes WHERE org_id = $1 AND alert_id = $2 AND NOT (record_id = ANY($3::text[]))', [orgId, a.id, ids]);
  if (ranked.length > 0) {
    // A change already attached keeps the time it was first attached; its rank may move.
    await q.query(
      `INSERT INTO alert_changes (org_id, alert_id, tenant_ref, record_id, rank, score, path, attached_at)
       SELECT $1, $2, $3, r, k, s, p, $4 FROM unnest($5::text[], $6::int[], $7::float8[], $8::text[]) AS u(r, k, s, p)
       ON CONFLICT (alert_id, record_id) DO UPDATE SET rank = EXCLUDED.rank, score = EXCLUDED.score, path = EXCLUDED.path`,
      [orgId, a.id, tenantRef, now, ids, ranked.map((r) => r.rank), ranked.map((r) => r.score), ranked.map((r) => r.path)],
    );
  }
  return ranked;
}

/** Joins the incidents with these ids (those a collector's commit just opened). */
export async function joinIncidents(q: Queryable, orgId: string, alertIds: readonly string[], now: Date): Promise<void> {
  if (alertIds.length === 0) return;
  const { rows } = await q.query<JoinableAlert>(
    'SELECT id, source_type, source_id, created_at, tenant_ref FROM alerts WHERE org_id = $1 AND id = ANY($2::text[]) ORDER BY id',
    [orgId, [...alertIds]],
  );
  const lookbacks = new Map<string, number | null>();
  for (const a of rows) {
    const t = tenantOf(a);
    if (!t) continue;
    if (!lookbacks.has(t)) lookbacks.set(t, await lookbackIfAnyChanges(q, t, rows));
    const minutes = lookbacks.get(t);
    if (minutes != null) await joinIncident(q, orgId, a, now, minutes);
  }
}

/** The tenant's look-back, or null when it stored no change in the look-back of any of these incidents (nothing to join). */
async function lookbackIfAnyChanges(q: Queryable, tenantRef: string, alerts: readonly JoinableAlert[]): Promise<number | null> {
  const minutes = await lookbackMinutes(q, tenantRef);
  const earliest = Math.min(...alerts.map((a) => a.created_at.getTime())) - minutes * 60_000;
  const { rows } = await q.query('SELECT 1 FROM tenant_changes WHERE tenant_ref = $1 AND occurred_at >= $2 LIMIT 1', [tenantRef, new Date(earliest)]);
  return rows.length > 0 ? minutes : null;
}

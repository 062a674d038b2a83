/**
 * The lineage of watched items (item → workspace → capacity; semantic model → data sources →
 * gateways), read from the platform by the collectors and kept in `monitored_lineage`.
 * Placement (workspace, capacity) and data sources are written separately: each collector
 * writes what it read and leaves the rest of the row alone.
 */
import type { Queryable } from '../../db/index.js';

export interface ItemPlacement {
  itemId: string;
  itemType: string;
  itemName: string;
  workspaceId: string;
  capacityId: string | null;
}

export interface Lineage extends ItemPlacement {
  gatewayIds: string[];
  datasourceIds: string[];
}

const lower = (s: string) => s.toLowerCase();

/** One entry per item id (lower case), the last one given winning: a statement may touch each row once. */
function lastPerItem<T extends { itemId: string }>(items: readonly T[]): T[] {
  return [...new Map(items.map((i) => [lower(i.itemId), i])).values()];
}

/** Records where items run (their workspace and capacity); data sources already known are kept. */
export async function savePlacements(q: Queryable, tenantRef: string, given: ItemPlacement[], now: Date): Promise<void> {
  if (given.length === 0) return;
  const items = lastPerItem(given);
  await q.query(
    `INSERT INTO monitored_lineage (tenant_ref, item_id, item_type, item_name, workspace_id, capacity_id, updated_at)
     SELECT $1, i, t, n, w, NULLIF(c, ''), $7 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(i, t, n, w, c)
     ON CONFLICT (tenant_ref, item_id) DO UPDATE SET item_type = EXCLUDED.item_type, item_name = EXCLUDED.item_name,
       workspace_id = EXCLUDED.workspace_id, capacity_id = EXCLUDED.capacity_id, updated_at = EXCLUDED.updated_at`,
    [
      tenantRef,
      items.map((i) => lower(i.itemId)),
      items.map((i) => i.itemType),
      items.map((i) => i.itemName),
      items.map((i) => lower(i.workspaceId)),
      items.map((i) => (i.capacityId ? lower(i.capacityId) : '')),
      now,
    ],
  );
}

/** Records the data sources and gateways an item reads through (the item's placement must be saved first). */
export async function saveDatasources(q: Queryable, tenantRef: string, itemId: string, gatewayIds: string[], datasourceIds: string[], now: Date): Promise<void> {
  await saveAllDatasources(q, tenantRef, [{ itemId, gatewayIds, datasourceIds }], now);
}

/** The data sources and gateways of many items in one statement (a scanner run describes thousands). */
async function saveAllDatasources(q: Queryable, tenantRef: string, given: NonNullable<LineageChanges['datasources']>, now: Date): Promise<void> {
  if (given.length === 0) return;
  const items = lastPerItem(given).map((d) => ({ i: lower(d.itemId), g: [...new Set(d.gatewayIds.map(lower))], d: [...new Set(d.datasourceIds.map(lower))] }));
  await q.query(
    `UPDATE monitored_lineage l SET
       gateway_ids = ARRAY(SELECT jsonb_array_elements_text(u.g)), datasource_ids = ARRAY(SELECT jsonb_array_elements_text(u.d)), updated_at = $3
     FROM jsonb_to_recordset($2::jsonb) AS u(i text, g jsonb, d jsonb)
     WHERE l.tenant_ref = $1 AND l.item_id = u.i`,
    [tenantRef, JSON.stringify(items), now],
  );
}

/** Forgets items the platform no longer lists. */
export async function forgetItems(q: Queryable, tenantRef: string, itemIds: string[]): Promise<void> {
  if (itemIds.length === 0) return;
  await q.query('DELETE FROM monitored_lineage WHERE tenant_ref = $1 AND item_id = ANY($2::text[])', [tenantRef, itemIds.map(lower)]);
}

export async function readLineage(q: Queryable, tenantRef: string): Promise<Map<string, Lineage>> {
  const { rows } = await q.query<{ item_id: string; item_type: string; item_name: string; workspace_id: string; capacity_id: string | null; gateway_ids: string[]; datasource_ids: string[] }>(
    'SELECT item_id, item_type, item_name, workspace_id, capacity_id, gateway_ids, datasource_ids FROM monitored_lineage WHERE tenant_ref = $1',
    [tenantRef],
  );
  return new Map(
    rows.map((r) => [
      r.item_id,
      { itemId: r.item_id, itemType: r.item_type, itemName: r.item_name, workspaceId: r.workspace_id, capacityId: r.capacity_id, gatewayIds: r.gateway_ids, datasourceIds: r.datasource_ids },
    ]),
  );
}

/**
 * The items that read through any of these gateways, with their gateways: all a root-cause check
 * needs when only those gateways have an open incident (a run judging 200,000 models reads the
 * few behind an offline gateway, not the whole lineage).
 */
export async function itemsBehindGateways(q: Pick<Queryable, 'query'>, tenantRef: string, gatewayIds: Iterable<string>): Promise<Map<string, string[]>> {
  const ids = [...gatewayIds].map(lower);
  if (ids.length === 0) return new Map();
  const { rows } = await q.query<{ item_id: string; gateway_ids: string[] }>(
    'SELECT item_id, gateway_ids FROM monitored_lineage WHERE tenant_ref = $1 AND gateway_ids && $2::text[]',
    [tenantRef, ids],
  );
  return new Map(rows.map((r) => [r.item_id, r.gateway_ids]));
}

/** The lineage a run read, written by the run's commit (in its transaction, under its lease). */
export interface LineageChanges {
  placements?: ItemPlacement[];
  datasources?: { itemId: string; gatewayIds: string[]; datasourceIds: string[] }[];
  /** Items the platform no longer lists. */
  forget?: string[];
}

/** Placements first (a data-source update needs its item's row), then data sources, then what is gone. */
export async function writeLineage(q: Queryable, tenantRef: string, changes: LineageChanges, now: Date): Promise<void> {
  await savePlacements(q, tenantRef, changes.placements ?? [], now);
  await saveAllDatasources(q, tenantRef, changes.datasources ?? [], now);
  await forgetItems(q, tenantRef, changes.forget ?? []);
}

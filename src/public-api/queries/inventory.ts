import type { Queryable } from '../../db/index.js';

/** SPEC §2.4 and §2.5 field order (also the CSV headers). */
export const CAPACITY_FIELDS = ['name', 'sku', 'state', 'region'] as const;
export const WORKSPACE_FIELDS = ['name', 'remoteId', 'capacityName'] as const;

export interface CapacityItem {
  name: string;
  sku: string;
  state: string;
  region: string;
}
export interface WorkspaceItem {
  name: string;
  remoteId: string;
  capacityName: string | null;
}

/** Capacities by name (the primary key makes the order total). */
export async function listCapacities(db: Queryable, orgId: string, offset: number, limit: number) {
  const [count, page] = await Promise.all([
    db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM capacities WHERE org_id = $1', [orgId]),
    db.query<CapacityItem>(
      `SELECT name, sku, state, region FROM capacities WHERE org_id = $1
        ORDER BY name OFFSET $2 LIMIT $3`,
      [orgId, offset, limit],
    ),
  ]);
  return { totalCount: count.rows[0]!.n, items: page.rows };
}

/** Workspaces by name, then remote id (names may repeat; remote ids do not). */
export async function listWorkspaces(db: Queryable, orgId: string, offset: number, limit: number) {
  const [count, page] = await Promise.all([
    db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM workspaces WHERE org_id = $1', [orgId]),
    db.query<WorkspaceItem>(
      `SELECT name, remote_id AS "remoteId", capacity_name AS "capacityName" FROM workspaces
        WHERE org_id = $1 ORDER BY name, remote_id OFFSET $2 LIMIT $3`,
      [orgId, offset, limit],
    ),
  ]);
  return { totalCount: count.rows[0]!.n, items: page.rows };
}

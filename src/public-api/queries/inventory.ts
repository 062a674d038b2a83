import type { Queryable } from '../../db/index.js';
import { type JsonPage, type KeyRecheck, runPageStatement, SqlParams } from '../page-statement.js';

/** The documented field order of capacity and workspace items (also the CSV headers). */
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

/** Capacities by name (the primary key makes the order total): total and page in one statement. */
export function listCapacities(db: Queryable, orgId: string, offset: number, limit: number, recheck: KeyRecheck | null): Promise<JsonPage> {
  const params = new SqlParams();
  const org = params.add(orgId);
  return runPageStatement(db, params, recheck, {
    count: `SELECT count(*) FROM capacities WHERE org_id = ${org}`,
    rows: `SELECT row_number() OVER (ORDER BY c.name) AS ord, row_to_json(t)::text AS j
             FROM (SELECT name, sku, state, region FROM capacities WHERE org_id = ${org}
                    ORDER BY name OFFSET ${params.add(offset)} LIMIT ${params.add(limit)}) c
            CROSS JOIN LATERAL (SELECT c.name, c.sku, c.state, c.region) t`,
  });
}

/** Workspaces by name, then remote id (names may repeat; remote ids do not). */
export function listWorkspaces(db: Queryable, orgId: string, offset: number, limit: number, recheck: KeyRecheck | null): Promise<JsonPage> {
  const params = new SqlParams();
  const org = params.add(orgId);
  return runPageStatement(db, params, recheck, {
    count: `SELECT count(*) FROM workspaces WHERE org_id = ${org}`,
    rows: `SELECT row_number() OVER (ORDER BY w.name, w.remote_id) AS ord, row_to_json(t)::text AS j
             FROM (SELECT name, remote_id, capacity_name FROM workspaces WHERE org_id = ${org}
                    ORDER BY name, remote_id OFFSET ${params.add(offset)} LIMIT ${params.add(limit)}) w
            CROSS JOIN LATERAL (SELECT w.name, w.remote_id AS "remoteId", w.capacity_name AS "capacityName") t`,
  });
}

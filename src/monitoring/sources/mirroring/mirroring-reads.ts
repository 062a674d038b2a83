/**
 * The mirroring collector's calls: which mirrored databases the tenant has (admin mode: one
 * paged admin items list for the whole tenant; member mode: each workspace's list), a
 * database's mirroring status, and its tables' status (POST, paged by continuationToken, the
 * array under `data`).
 */
import type { PlatformClient } from '../../platform/platform-client.js';
import type { WorkspaceFact } from '../../platform/reads.js';
import { textOf } from '../../platform/values.js';

export interface MirroredDatabaseFact {
  /** Lower case, as every platform id the collectors keep. */
  id: string;
  name: string;
  workspaceId: string;
  workspaceName: string | null;
  capacityId: string | null;
}

export interface DatabaseStatus {
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
}

export interface TableFact {
  /** `{schema}.{table}` in lower case (the table part of the incident's sourceId). */
  key: string;
  /** `{schema}.{table}` as the platform writes it. */
  name: string;
  status: string;
  /** Null when the platform does not report it (sources without a commit time). */
  latencySeconds: number | null;
  errorCode: string | null;
  errorMessage: string | null;
}

interface PlatformError {
  errorCode?: unknown;
  message?: unknown;
}


function errorOf(e: PlatformError | undefined): { errorCode: string | null; errorMessage: string | null } {
  if (!e || typeof e !== 'object') return { errorCode: null, errorMessage: null };
  return { errorCode: textOf(e.errorCode) || 'UnknownError', errorMessage: textOf(e.message) || null };
}

function dbPath(db: Pick<MirroredDatabaseFact, 'id' | 'workspaceId'>, tail: string): string {
  return `/workspaces/${encodeURIComponent(db.workspaceId)}/mirroredDatabases/${encodeURIComponent(db.id)}/${tail}`;
}

/** Admin mode: every mirrored database of the watched workspaces, from the tenant's admin items list (fabric-admin). */
export async function listMirroredDatabasesAsAdmin(client: PlatformClient, workspaces: WorkspaceFact[]): Promise<MirroredDatabaseFact[]> {
  const byWorkspace = new Map(workspaces.map((w) => [w.id, w]));
  const out: MirroredDatabaseFact[] = [];
  const url = `${client.fabric('/admin/items')}?type=MirroredDatabase`;
  for await (const page of client.fabricPages<Record<string, unknown>>({ family: 'fabric-admin', audience: 'fabric', url }, 'itemEntities')) {
    for (const i of page) {
      if (i.type !== undefined && i.type !== 'MirroredDatabase') continue;
      const id = textOf(i.id);
      const w = byWorkspace.get(textOf(i.workspaceId).toLowerCase());
      // Only databases of the watched workspaces (a connection may list some).
      if (!w || !id) continue;
      out.push({ id: id.toLowerCase(), name: textOf(i.name) || textOf(i.displayName) || id.toLowerCase(), workspaceId: w.id, workspaceName: w.name, capacityId: textOf(i.capacityId).toLowerCase() || w.capacityId });
    }
  }
  return out;
}

/** Member mode: the mirrored databases of one workspace, [id (lower case), name]. */
export async function listWorkspaceDatabases(client: PlatformClient, workspaceId: string): Promise<[string, string][]> {
  const out: [string, string][] = [];
  const url = client.fabric(`/workspaces/${encodeURIComponent(workspaceId)}/mirroredDatabases`);
  for await (const page of client.fabricPages<Record<string, unknown>>({ family: 'fabric', audience: 'fabric', url })) {
    for (const i of page) {
      const id = textOf(i.id);
      if (id) out.push([id.toLowerCase(), textOf(i.displayName) || id.toLowerCase()]);
    }
  }
  return out;
}

export async function readMirroringStatus(client: PlatformClient, db: MirroredDatabaseFact): Promise<DatabaseStatus> {
  const answer = await client.json<{ status?: unknown; error?: PlatformError }>({ family: 'fabric', audience: 'fabric', method: 'POST', url: client.fabric(dbPath(db, 'getMirroringStatus')) });
  return { status: textOf(answer?.status) || 'Unknown', ...errorOf(answer?.error) };
}

export async function readTables(client: PlatformClient, db: MirroredDatabaseFact): Promise<TableFact[]> {
  const out: TableFact[] = [];
  const spec = { family: 'fabric' as const, audience: 'fabric' as const, method: 'POST' as const, url: client.fabric(dbPath(db, 'getTablesMirroringStatus')) };
  for await (const page of client.fabricPages<Record<string, unknown>>(spec, 'data')) {
    for (const t of page) {
      const table = textOf(t.sourceTableName);
      if (!table) continue;
      const schema = textOf(t.sourceSchemaName);
      const name = schema ? `${schema}.${table}` : table;
      const latency = (t.metrics as Record<string, unknown> | undefined)?.lastSyncLatencyInSeconds;
      out.push({
        key: name.toLowerCase(),
        name,
        status: textOf(t.status) || 'Unknown',
        latencySeconds: typeof latency === 'number' && Number.isFinite(latency) ? latency : null,
        ...errorOf(t.error as PlatformError | undefined),
      });
    }
  }
  return out;
}

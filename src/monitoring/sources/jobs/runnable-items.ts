/**
 * The items that run jobs (pipelines, notebooks, Spark job definitions, dataflows, copy jobs),
 * with their workspace and capacity: the Fabric admin items list in admin mode (one paged list
 * for the whole tenant), each workspace's items in member mode; narrowed to the tenant's listed
 * workspaces when given. Capacity names come from Fabric's capacity list.
 */
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import type { TenantRow } from '../../connection/tenant-row.js';
import { readWorkspaces } from '../../platform/reads.js';
import { textOf } from '../../platform/values.js';

export const RUNNABLE_TYPES: ReadonlySet<string> = new Set(['DataPipeline', 'Notebook', 'SparkJobDefinition', 'Dataflow', 'CopyJob']);

export interface RunnableItem {
  /** Lower case. */
  id: string;
  type: string;
  name: string;
  workspaceId: string;
  workspaceName: string;
  capacityId: string | null;
  capacityName: string | null;
}

export interface RunnableListing {
  items: RunnableItem[];
  /** Calls of the `fabric` family the listing spent (the admin lists count against `fabric-admin`). */
  fabricCalls: number;
}


export async function listRunnableItems(client: PlatformClient, tenant: TenantRow): Promise<RunnableListing> {
  let fabricCalls = tenant.mode === 'admin' ? 0 : 1;
  const workspaces = new Map((await readWorkspaces(client, tenant)).map((w) => [w.id, w]));
  const capacityNames = new Map<string, string>();
  for await (const page of client.fabricPages<Record<string, unknown>>({ family: 'fabric', audience: 'fabric', url: client.fabric('/capacities') })) {
    fabricCalls++;
    for (const c of page) if (textOf(c.id)) capacityNames.set(textOf(c.id).toLowerCase(), textOf(c.displayName) || textOf(c.id));
  }
  const items: RunnableItem[] = [];
  const add = (raw: Record<string, unknown>, name: string, workspaceId: string) => {
    const w = workspaces.get(workspaceId.toLowerCase());
    const id = textOf(raw.id).toLowerCase();
    if (!w || !id || !RUNNABLE_TYPES.has(textOf(raw.type))) return;
    items.push({
      id,
      type: textOf(raw.type),
      name: name || id,
      workspaceId: w.id,
      workspaceName: w.name,
      capacityId: w.capacityId,
      capacityName: w.capacityId ? (capacityNames.get(w.capacityId) ?? null) : null,
    });
  };
  if (tenant.mode === 'admin') {
    const spec = { family: 'fabric-admin' as const, audience: 'fabric' as const, url: client.fabric('/admin/items') };
    for await (const page of client.fabricPages<Record<string, unknown>>(spec, 'itemEntities')) {
      for (const i of page) add(i, textOf(i.name), textOf(i.workspaceId));
    }
  } else {
    for (const w of workspaces.values()) {
      try {
        for await (const page of client.fabricPages<Record<string, unknown>>({ family: 'fabric', audience: 'fabric', url: client.fabric(`/workspaces/${encodeURIComponent(w.id)}/items`) })) {
          fabricCalls++;
          for (const i of page) add(i, textOf(i.displayName), w.id);
        }
      } catch (err) {
        // The principal left the workspace between the two lists: its items are not watched.
        if (!isResourceRefusal(err)) throw err;
        fabricCalls++;
      }
    }
  }
  return { items: items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)), fabricCalls };
}

/**
 * Pieces shared by the two ways the refreshes collector reads the platform: what one read of a model yields, and the slow
 * reads of a model's data sources (→ gateways, for root causes) and refresh schedule.
 */
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import type { CallBudget } from '../../platform/run-budget.js';
import type { ModelMeta } from './refresh-state.js';
import type { RefreshEntry } from './refresh-history.js';

/** One model's refreshes as read this run (newest first), with where it lives. */
export interface Observation {
  modelId: string;
  history: RefreshEntry[];
  workspaceName: string | null;
  capacityName: string | null;
}

/** Data sources and schedule are re-read after this long (and when a model is first seen). */
export const META_TTL_MS = 6 * 3_600_000;

export function metaIsStale(meta: Pick<ModelMeta, 'readAt'> | null, now: Date): boolean {
  return !meta || now.getTime() - Date.parse(meta.readAt) >= META_TTL_MS;
}

/** The answer is about access or existence (the model went away, the principal lost the workspace): not a run failure. */

const modelPath = (workspaceId: string, modelId: string) => `/groups/${encodeURIComponent(workspaceId)}/datasets/${encodeURIComponent(modelId)}`;

/** Reads a model's data sources (and, in member mode, whether its refresh schedule is enabled). */
export async function readMeta(client: PlatformClient, budget: CallBudget, workspaceId: string, modelId: string, withSchedule: boolean, now: Date): Promise<ModelMeta> {
  const gatewayIds: string[] = [];
  const datasourceIds: string[] = [];
  let refused = false;
  budget.take();
  try {
    const ds = await client.json<{ value?: { gatewayId?: string; datasourceId?: string }[] }>({ family: 'powerbi', audience: 'powerbi', url: client.powerBi(`${modelPath(workspaceId, modelId)}/datasources`) });
    for (const d of ds?.value ?? []) {
      if (typeof d.gatewayId === 'string' && d.gatewayId) gatewayIds.push(d.gatewayId.toLowerCase());
      if (typeof d.datasourceId === 'string' && d.datasourceId) datasourceIds.push(d.datasourceId.toLowerCase());
    }
  } catch (err) {
    // Not readable with this principal (admin mode without membership): nothing learnt here.
    if (!isResourceRefusal(err)) throw err;
    refused = true;
  }
  let scheduled = false;
  if (withSchedule) {
    budget.take();
    try {
      const s = await client.json<{ enabled?: boolean }>({ family: 'powerbi', audience: 'powerbi', url: client.powerBi(`${modelPath(workspaceId, modelId)}/refreshSchedule`) });
      scheduled = s?.enabled === true;
    } catch (err) {
      if (!isResourceRefusal(err)) throw err;
    }
  }
  return { readAt: now.toISOString(), gatewayIds: [...new Set(gatewayIds)], datasourceIds: [...new Set(datasourceIds)], scheduled, ...(refused ? { refused } : {}) };
}

/** Refresh history of a model in a workspace the principal belongs to (the platform keeps ~60; `top` 1 reads the latest only). */
export async function readHistory(client: PlatformClient, budget: CallBudget, workspaceId: string, modelId: string, top = 60): Promise<RefreshEntry[]> {
  budget.take();
  const page = await client.json<{ value?: RefreshEntry[] }>({ family: 'powerbi', audience: 'powerbi', url: `${client.powerBi(`${modelPath(workspaceId, modelId)}/refreshes`)}?$top=${top}` });
  return (page?.value ?? []).filter((r) => typeof r?.requestId === 'string' && typeof r.startTime === 'string');
}



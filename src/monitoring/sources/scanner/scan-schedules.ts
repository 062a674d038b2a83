/**
 * The refresh schedules the scanner recorded (admin mode), read for the refreshes collector's
 * due index (refreshes/refresh-due.ts): only the enabled schedules' model ids, workspace by
 * workspace in pages, so the read holds a page of schedules, not the tenant's catalog.
 */
import type { Reader } from '../../engine/reader.js';
import { pagesByKey } from '../../engine/output.js';
import type { RefreshSchedule } from '../../platform/refresh-schedule.js';
import { SCANNER, WORKSPACE_PREFIX } from './scan-catalog.js';

/** Workspaces a read takes at a time. */
const PAGE = 1_000;

export interface ScheduledModel {
  id: string;
  workspaceId: string;
  schedule: RefreshSchedule;
}

/** Every scanned semantic model with an enabled schedule, a page of workspaces at a time. */
export async function* readScannedSchedules(q: Reader, tenantRef: string): AsyncGenerator<ScheduledModel[]> {
  const pages = pagesByKey(async (after) => {
    const { rows } = await q.query<{ key: string; scheduled: [string, RefreshSchedule][] | null }>(
      `SELECT key, (SELECT jsonb_agg(jsonb_build_array(d->>'id', d->'schedule')) FROM jsonb_array_elements(
                CASE WHEN jsonb_typeof(value->'datasets') = 'array' THEN value->'datasets' ELSE '[]'::jsonb END) AS d
               WHERE jsonb_typeof(d->'schedule') = 'object' AND (d->'schedule'->>'enabled')::boolean IS TRUE) AS scheduled
         FROM collector_state WHERE tenant_ref = $1 AND collector = $2 AND starts_with(key, $3) AND key > $4
          AND (value->>'described')::boolean
        ORDER BY key LIMIT ${PAGE}`,
      [tenantRef, SCANNER, WORKSPACE_PREFIX, after],
    );
    return rows;
  }, PAGE);
  for await (const rows of pages) {
    const out: ScheduledModel[] = [];
    for (const r of rows) {
      const workspaceId = r.key.slice(WORKSPACE_PREFIX.length);
      for (const [id, schedule] of r.scheduled ?? []) {
        if (typeof id === 'string' && schedule && Array.isArray(schedule.days) && Array.isArray(schedule.times)) out.push({ id: id.toLowerCase(), workspaceId, schedule });
      }
    }
    if (out.length > 0) yield out;
  }
}

/** What the scanner recorded of one model and its workspace (names, capacity), or null. */
export async function scannedModel(q: Reader, tenantRef: string, workspaceId: string, modelId: string): Promise<{ name: string; workspaceName: string | null; capacityId: string | null } | null> {
  const { rows } = await q.query<{ name: string | null; workspace_name: string | null; capacity_id: string | null }>(
    `SELECT (SELECT d->>'name' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(value->'datasets') = 'array' THEN value->'datasets' ELSE '[]'::jsonb END) AS d
              WHERE lower(d->>'id') = $4 LIMIT 1) AS name,
            value->>'name' AS workspace_name, lower(value->>'capacityId') AS capacity_id
       FROM collector_state WHERE tenant_ref = $1 AND collector = $2 AND key = $3`,
    [tenantRef, SCANNER, WORKSPACE_PREFIX + workspaceId, modelId],
  );
  const r = rows[0];
  return r ? { name: r.name ?? modelId, workspaceName: r.workspace_name, capacityId: r.capacity_id } : null;
}

/**
 * Reading a scan result (`GET admin/workspaces/scanResult/{id}`) and what happens to a slice whose
 * scan failed: the parts of the scanner that need no run state.
 */
import type { RefreshSchedule } from '../../platform/refresh-schedule.js';
import { textOf, textsOf } from '../../platform/values.js';
import type { PendingScan, ScanCursor, ScannedDataset } from './scan-catalog.js';

/** A slice whose scan failed this many times is set aside (named in the status) so the rest goes on. */
export const MAX_SLICE_ATTEMPTS = 3;

export interface ScanResult {
  workspaces?: {
    id?: unknown;
    name?: unknown;
    capacityId?: unknown;
    datasets?: { id?: unknown; name?: unknown; refreshSchedule?: Partial<RefreshSchedule>; datasourceUsages?: { datasourceInstanceId?: unknown }[] }[];
  }[];
  datasourceInstances?: { datasourceId?: unknown; gatewayId?: unknown }[];
}


/** A workspace of a scan result, its duplicates merged (one entry per id, datasets by id). */
interface ResultWorkspace {
  name: string;
  capacityId: string | null;
  datasets: Map<string, ScannedDataset>;
}

/**
 * The described workspaces of a result, by id: a workspace or a model the platform names twice is
 * one (the later entry's fields win), so the commit writes each row once.
 */
export function workspacesOf(scan: PendingScan, result: ScanResult): Map<string, ResultWorkspace> {
  const gatewayOf = new Map<string, string>();
  for (const d of Array.isArray(result.datasourceInstances) ? result.datasourceInstances : []) {
    const id = textOf(d?.datasourceId).toLowerCase();
    const gw = textOf(d?.gatewayId).toLowerCase();
    if (id && gw) gatewayOf.set(id, gw);
  }
  const out = new Map<string, ResultWorkspace>();
  for (const w of Array.isArray(result.workspaces) ? result.workspaces : []) {
    const id = textOf(w?.id).toLowerCase();
    if (!id || !scan.workspaceIds.includes(id)) continue;
    const entry = out.get(id) ?? { name: id, capacityId: null, datasets: new Map() };
    entry.name = textOf(w.name) || entry.name;
    entry.capacityId = textOf(w.capacityId).toLowerCase() || entry.capacityId;
    for (const d of Array.isArray(w.datasets) ? w.datasets : []) {
      const dataset = datasetOf(d, gatewayOf);
      if (dataset) entry.datasets.set(dataset.id, dataset);
    }
    out.set(id, entry);
  }
  return out;
}

function datasetOf(d: NonNullable<NonNullable<ScanResult['workspaces']>[number]['datasets']>[number], gatewayOf: Map<string, string>): ScannedDataset | null {
  const dsId = textOf(d?.id).toLowerCase();
  if (!dsId) return null;
  const s = d.refreshSchedule;
  const schedule =
    s?.enabled === true && Array.isArray(s.days) && Array.isArray(s.times) ? { days: textsOf(s.days), times: textsOf(s.times), enabled: true, localTimeZoneId: textOf(s.localTimeZoneId) || 'UTC' } : null;
  const usages = Array.isArray(d.datasourceUsages) ? d.datasourceUsages : [];
  const datasourceIds = [...new Set(usages.map((u) => textOf(u?.datasourceInstanceId).toLowerCase()).filter(Boolean))];
  const gatewayIds = [...new Set(datasourceIds.flatMap((x) => (gatewayOf.has(x) ? [gatewayOf.get(x)!] : [])))];
  return { id: dsId, name: textOf(d.name) || dsId, schedule, datasourceIds, gatewayIds };
}

/**
 * A scan that failed or expired: its workspaces go to the back of the queue (the other slices go
 * first: a back-off), each counting an attempt; one that failed MAX_SLICE_ATTEMPTS times is set
 * aside in `cursor.failed` (shown in the tenant view) until the next full scan lists it again, so
 * the queue empties, the full scan finishes and gone workspaces are still forgotten.
 */
export function requeueFailed(cursor: ScanCursor, scan: PendingScan): void {
  const queued = new Set(cursor.queue);
  cursor.attempts ??= {};
  const attempts = cursor.attempts;
  for (const id of scan.workspaceIds) {
    if (queued.has(id)) continue;
    attempts[id] = (attempts[id] ?? 0) + 1;
    if (attempts[id]! >= MAX_SLICE_ATTEMPTS) {
      delete attempts[id];
      cursor.failed = [...new Set([...(cursor.failed ?? []), id])].slice(-FAILED_KEPT);
      continue;
    }
    cursor.queue.push(id);
  }
}

/** How many set-aside workspaces the cursor names (the count is kept whole in the status). */
const FAILED_KEPT = 1_000;


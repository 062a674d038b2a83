/**
 * Admin mode: the models whose schedule fell due (refresh-due.ts) are hot — each run reads their
 * latest refresh (`GET /groups/{ws}/datasets/{id}/refreshes?$top=1`, the Power BI family, not the
 * admin refreshables cap) until a finished result that started after the slot is seen, within
 * DUE_SHARE of the run's Power BI budget: never read first, then the longest unread. A model the
 * principal may not read, or still without a result HOT_MAX_MS after its slot, is left to the
 * refreshables pages, which keep covering every model.
 */
import type { TenantRow } from '../../connection/tenant-row.js';
import type { EntityState, StateChange } from '../../engine/output.js';
import type { Reader } from '../../engine/reader.js';
import { BudgetExhaustedError } from '../../platform/budget.js';
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import { type CallBudget, RunBudgetSpent } from '../../platform/run-budget.js';
import { buildDueIndex, DUE_INDEX_KEY, type DueIndex, fallenDue, HOT_PREFIX, type HotModel } from './refresh-due.js';
import type { RefreshEntry } from './refresh-history.js';
import { readHistory } from './refresh-reads.js';

/** Share of the run's Power BI budget the hot models' reads may take (data sources take up to half). */
export const DUE_SHARE = 0.4;
/** A model stays hot at most this long after its slot (a refresh that runs longer is seen by the pages). */
export const HOT_MAX_MS = 3 * 3_600_000;
/** A scheduled refresh starts at its slot; one that started a little earlier (clocks) still counts as its run. */
const STARTED_SLACK_MS = 60_000;
const FINAL = new Set(['Completed', 'Failed', 'Disabled', 'Cancelled']);

export interface DueRead {
  /** State changes: the index (when rebuilt, and how far it was checked) and the hot set. */
  changes: StateChange[];
  /** The result after the slot, per model that showed one. */
  seen: { modelId: string; workspaceId: string; latest: RefreshEntry }[];
  /** Latest-refresh reads made. */
  reads: number;
  /** Models hot after the run (due and no result seen yet). */
  hot: number;
  /** The hourly budget was spent during the reads. */
  hourSpent: boolean;
}

interface DueRun {
  client: PlatformClient;
  tenant: TenantRow;
  reader: Reader;
  entities: EntityState;
  state: Map<string, unknown>;
  budget: CallBudget;
  intervalSeconds: number;
  now: Date;
}

/** Turns the slots since the last run hot, then reads as many hot models' latest refresh as the share allows. */
export async function readDueModels(run: DueRun): Promise<DueRead> {
  const { now } = run;
  const out: DueRead = { changes: [], seen: [], reads: 0, hot: 0, hourSpent: false };
  let index = (run.state.get(DUE_INDEX_KEY) as DueIndex | undefined) ?? null;
  const built = await buildDueIndex(run.reader, run.tenant, index, now);
  if (built) {
    index = built.index;
    out.changes.push(...built.changes);
  }
  if (!index) return out;
  const before = new Map<string, string>();
  const hot = new Map<string, HotModel>();
  for (const [key, v] of await run.entities.all<HotModel>(HOT_PREFIX)) {
    hot.set(key.slice(HOT_PREFIX.length), v);
    before.set(key.slice(HOT_PREFIX.length), JSON.stringify(v));
  }
  for (const [id, h] of await fallenDue(run.entities, index, run.intervalSeconds, now)) {
    const prev = hot.get(id);
    if (!prev || Date.parse(prev.dueAt) < Date.parse(h.dueAt)) hot.set(id, h);
  }
  for (const [id, h] of hot) if (now.getTime() - Date.parse(h.dueAt) > HOT_MAX_MS) hot.delete(id);
  await readHot(run, hot, out);
  for (const id of before.keys()) if (!hot.has(id)) out.changes.push({ key: HOT_PREFIX + id, value: null });
  for (const [id, h] of hot) if (before.get(id) !== JSON.stringify(h)) out.changes.push({ key: HOT_PREFIX + id, value: h });
  out.changes.push({ key: DUE_INDEX_KEY, value: { ...index, checkedTo: now.toISOString() } });
  out.hot = hot.size;
  return out;
}

/** Never read first, then the one read longest ago, then the oldest slot. */
function readOrder([a, x]: [string, HotModel], [b, y]: [string, HotModel]): number {
  return (x.readAt ?? '').localeCompare(y.readAt ?? '') || x.dueAt.localeCompare(y.dueAt) || a.localeCompare(b);
}

async function readHot(run: DueRun, hot: Map<string, HotModel>, out: DueRead): Promise<void> {
  const room = Math.max(1, Math.floor(run.budget.total * DUE_SHARE));
  for (const [id, h] of [...hot].sort(readOrder).slice(0, room)) {
    let latest: RefreshEntry | undefined;
    try {
      latest = (await readHistory(run.client, run.budget, h.workspaceId, id, 1))[0];
    } catch (err) {
      if (err instanceof RunBudgetSpent) break;
      if (err instanceof BudgetExhaustedError) {
        out.hourSpent = true;
        break;
      }
      if (!isResourceRefusal(err)) throw err;
      // Not readable with this principal (or gone): the refreshables pages cover it.
      hot.delete(id);
      continue;
    }
    out.reads++;
    if (latest && FINAL.has(latest.status) && Date.parse(latest.startTime) >= Date.parse(h.dueAt) - STARTED_SLACK_MS) {
      hot.delete(id);
      out.seen.push({ modelId: id, workspaceId: h.workspaceId, latest });
    } else hot.set(id, { ...h, readAt: run.now.toISOString() });
  }
}

/**
 * Admin mode: when each scheduled model's refresh falls due, from the schedules the scanner
 * recorded. The index is kept in the refreshes collector's state in buckets of ten minutes of the
 * UTC day (`due:b:<n>`, entries [model id, workspace id, UTC minute of the day, UTC weekdays as a
 * bit mask]), built again when the scan catalog changed (at most every REBUILD_MIN_MS) and every
 * day (daylight saving moves UTC times). Each run reads only the buckets its window crosses — the
 * time since the last run — and the models whose slot fell in it become hot (`hot:<id>`): the
 * run reads their latest refresh (refresh-hot.ts) until a result after the slot is seen.
 */
import type { TenantRow } from '../../connection/tenant-row.js';
import type { EntityState, StateChange } from '../../engine/output.js';
import type { Reader } from '../../engine/reader.js';
import { lastSlotAtOrBefore, type RefreshSchedule } from '../../platform/refresh-schedule.js';
import { scanCatalogVersion } from '../scanner/scan-catalog.js';
import { readScannedSchedules } from '../scanner/scan-schedules.js';

export const DUE_INDEX_KEY = 'due:index';
export const DUE_BUCKET_PREFIX = 'due:b:';
export const HOT_PREFIX = 'hot:';
const BUCKET_MINUTES = 10;
const BUCKETS = 1440 / BUCKET_MINUTES;
const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** A changed catalog rebuilds the index at most this often (a rebuild reads every scanned schedule). */
export const REBUILD_MIN_MS = 15 * 60_000;
/** The index is rebuilt at least daily: daylight saving moves a local schedule's UTC time. */
const REBUILD_EVERY_MS = DAY_MS;
/** A run looks back at most this far for slots (after a pause, older slots are left to the refreshables pages). */
const WINDOW_MAX_MS = 2 * 3_600_000;

export interface DueIndex {
  /** The scan catalog version the index was built from. */
  version: string | null;
  builtAt: string;
  /** Slots up to this time were turned hot. */
  checkedTo: string | null;
  /** Scheduled models in the index. */
  models: number;
}

/** [model id, workspace id, UTC minute of the day, UTC weekdays (bit 0 = Sunday)]. */
type DueEntry = [string, string, number, number];

/** A model whose schedule fell due and whose result after the slot was not seen yet. */
export interface HotModel {
  workspaceId: string;
  dueAt: string;
  /** When the run last read its latest refresh (null: not yet). */
  readAt: string | null;
}

/** The UTC slots of a schedule in the week after `from`: UTC minute of the day → weekdays mask. */
export function weeklySlots(s: RefreshSchedule, from: Date): Map<number, number> {
  const out = new Map<number, number>();
  let at = lastSlotAtOrBefore(s, new Date(from.getTime() + WEEK_MS));
  while (at && at.getTime() > from.getTime()) {
    const minute = Math.floor((at.getTime() % DAY_MS) / 60_000);
    out.set(minute, (out.get(minute) ?? 0) | (1 << at.getUTCDay()));
    at = lastSlotAtOrBefore(s, new Date(at.getTime() - 1));
  }
  return out;
}

/** Whether the index is due for a rebuild: none yet, the catalog changed (not more often than REBUILD_MIN_MS), or a day passed. */
export function rebuildDue(index: DueIndex | null, version: string | null, now: Date): boolean {
  if (version === null) return false;
  if (!index) return true;
  const age = now.getTime() - Date.parse(index.builtAt);
  return age >= REBUILD_EVERY_MS || (index.version !== version && age >= REBUILD_MIN_MS);
}

/** Builds the index from the scanner's schedules: the bucket keys to write (empty ones deleted) and the new index mark. */
export async function buildDueIndex(reader: Reader, tenant: TenantRow, prev: DueIndex | null, now: Date): Promise<{ index: DueIndex; changes: StateChange[] } | null> {
  const version = await scanCatalogVersion(reader, tenant.id);
  if (!rebuildDue(prev, version, now)) return null;
  const listed = tenant.workspaces ? new Set(tenant.workspaces.map((w) => w.toLowerCase())) : null;
  const buckets: DueEntry[][] = Array.from({ length: BUCKETS }, () => []);
  // Schedules repeat (a tenant has a handful of distinct ones): their slots are worked out once.
  const slotsOf = new Map<string, Map<number, number>>();
  let models = 0;
  for await (const page of readScannedSchedules(reader, tenant.id)) {
    for (const m of page) {
      if (listed && !listed.has(m.workspaceId)) continue;
      const sig = JSON.stringify([m.schedule.days, m.schedule.times, m.schedule.localTimeZoneId]);
      const slots = slotsOf.get(sig) ?? weeklySlots({ ...m.schedule, enabled: true }, now);
      slotsOf.set(sig, slots);
      if (slots.size > 0) models++;
      for (const [minute, days] of slots) buckets[Math.floor(minute / BUCKET_MINUTES)]!.push([m.id, m.workspaceId, minute, days]);
    }
  }
  const changes: StateChange[] = buckets.map((entries, b) => ({ key: `${DUE_BUCKET_PREFIX}${b}`, value: entries.length > 0 ? entries : null }));
  return { index: { version, builtAt: now.toISOString(), checkedTo: prev?.checkedTo ?? null, models }, changes };
}

/** The bucket numbers the window (from, to] crosses (it is at most WINDOW_MAX_MS long). */
function bucketsOf(from: number, to: number): number[] {
  const out = new Set<number>();
  for (let t = Math.floor(from / 60_000) * 60_000; t <= to; t += BUCKET_MINUTES * 60_000) out.add(Math.floor((t % DAY_MS) / 60_000 / BUCKET_MINUTES));
  out.add(Math.floor((to % DAY_MS) / 60_000 / BUCKET_MINUTES));
  return [...out];
}

/** The slot of an entry in (from, to], if there is one. */
function slotIn(entry: DueEntry, from: number, to: number): number | null {
  const day = Math.floor(to / DAY_MS) * DAY_MS;
  let at = day + entry[2] * 60_000;
  if (at > to) at -= DAY_MS;
  return at > from && (entry[3] & (1 << new Date(at).getUTCDay())) !== 0 ? at : null;
}

/**
 * The models whose slot fell in the window since the last run (at most WINDOW_MAX_MS back): each
 * becomes hot with that slot as its due time, replacing an older one.
 */
export async function fallenDue(entities: EntityState, index: DueIndex, intervalSeconds: number, now: Date): Promise<Map<string, HotModel>> {
  const to = now.getTime();
  const from = Math.max(index.checkedTo ? Date.parse(index.checkedTo) : to - intervalSeconds * 1000, to - WINDOW_MAX_MS);
  const out = new Map<string, HotModel>();
  if (from >= to) return out;
  const keys = bucketsOf(from, to).map((b) => `${DUE_BUCKET_PREFIX}${b}`);
  for (const entries of (await entities.read<DueEntry[]>(keys)).values()) {
    for (const e of entries) {
      const at = slotIn(e, from, to);
      const prev = out.get(e[0]);
      if (at !== null && (!prev || Date.parse(prev.dueAt) < at)) out.set(e[0], { workspaceId: e[1], dueAt: new Date(at).toISOString(), readAt: null });
    }
  }
  return out;
}

/**
 * The freshness collector's checks, each within its share of the hourly caps: schedules read in
 * turns, models judged against their newest slot and maximum age, mirrored tables against theirs.
 */
import type { SignalInput } from '../../../alerts/signals.js';
import { HOURLY_CAPS } from '../../platform/budget.js';
import type { MaxAgeOf } from '../../connection/freshness-settings.js';
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import { lastSlotAtOrBefore, type RefreshSchedule } from '../../platform/refresh-schedule.js';
import { pickForRun, ROTATION_KEY, type RotationState } from '../../engine/rotation.js';
import { type CallBudget, runBudget } from '../../platform/run-budget.js';
import type { RunProgress } from '../../engine/collector-behind.js';
import * as T from '../../messages/titles.js';
import {
  base,
  type CausesFor,
  type FreshnessRun,
  type MirrorState,
  missedSignal,
  type ModelState,
  REFRESH_MISSED,
  type RefreshRow,
  staleModelSignal,
  staleTableSignal,
  type TableRow,
} from './freshness-verdicts.js';

/** A model's schedule is read again after 6 hours. */
const SCHEDULE_EVERY_MS = 6 * 3_600_000;
/** Newest refreshes read per model: enough to find the last completed one after a few failures. */
const REFRESHES_TOP = 10;
/** Share of the Power BI cap the schedule reads spend. */
const SCHEDULE_SHARE = 0.05;

/** 2. Schedules: those never read or read long ago, within this run's share of the cap (in turns). */
export async function readDueSchedules(run: FreshnessRun, client: PlatformClient, rotation: RotationState | undefined, intervalSeconds: number): Promise<void> {
  const nowMs = run.now.getTime();
  const due = [...run.models].filter(([, m]) => !m.scanned && (m.scheduleReadAt === null || nowMs - Date.parse(m.scheduleReadAt) >= SCHEDULE_EVERY_MS));
  const pick = pickForRun(due, {
    key: ([id]) => id,
    isHot: ([, m]) => m.scheduleReadAt === null,
    budget: runBudget(HOURLY_CAPS.powerbi, SCHEDULE_SHARE, intervalSeconds),
    state: rotation,
    now: run.now,
  });
  for (const [id, m] of pick.poll) {
    let schedule: RefreshSchedule | null = null;
    try {
      const s = await client.json<Partial<RefreshSchedule>>({ family: 'powerbi', audience: 'powerbi', url: client.powerBi(`/groups/${encodeURIComponent(m.workspaceId)}/datasets/${encodeURIComponent(id)}/refreshSchedule`) });
      if (s?.enabled && Array.isArray(s.days) && Array.isArray(s.times)) schedule = { days: s.days, times: s.times, enabled: true, localTimeZoneId: s.localTimeZoneId ?? 'UTC' };
    } catch (err) {
      if (!isResourceRefusal(err)) throw err;
    }
    run.models.set(id, { ...m, schedule, scheduleReadAt: run.now.toISOString() });
    run.changedModels.add(id);
  }
  run.changes.push({ key: ROTATION_KEY, value: pick.next });
}

/**
 * 3. Models: judge a due slot, follow an open miss, check the age where a maximum applies. A slot
 * to judge or a missed slot comes first; age checks take what is left of the budget, and a read
 * past it waits for the next run (counted as deferred).
 */
export async function checkModels(run: FreshnessRun, client: PlatformClient, graceMinutes: number, maxAgeOf: MaxAgeOf, causesFor: CausesFor, calls: CallBudget): Promise<RunProgress> {
  const { now } = run;
  const work = [...run.models].map(([id, m]) => ({ id, m, ...modelNeeds(m, id, graceMinutes, maxAgeOf, now) })).filter((w) => w.read || w.releaseStale || w.releaseMissed);
  work.sort((a, b) => Number(b.slotWork) - Number(a.slotWork) || (a.id < b.id ? -1 : 1));
  const progress = { polled: 0, deferred: 0 };
  for (const w of work) {
    let m = w.m;
    if (w.releaseMissed) {
      run.signals.push({ ...base(w.id, m, REFRESH_MISSED, now), kind: 'recovery', ...T.refreshNoLongerScheduled(m.name, m.missedSlot) });
      m = { ...m, missedSlot: null };
    }
    if (w.read && !calls.tryTake(1)) progress.deferred++;
    else if (w.read) {
      progress.polled++;
      let rows: RefreshRow[] | null = null;
      try {
        const a = await client.json<{ value?: RefreshRow[] }>({ family: 'powerbi', audience: 'powerbi', url: `${client.powerBi(`/groups/${encodeURIComponent(m.workspaceId)}/datasets/${encodeURIComponent(w.id)}/refreshes`)}?$top=${REFRESHES_TOP}` });
        rows = a?.value ?? [];
      } catch (err) {
        if (!isResourceRefusal(err)) throw err;
      }
      if (rows) m = judgeModel(w.id, m, rows, w.slot, w.maxAge, graceMinutes, now, causesFor(w.id, m.capacityId), run.signals);
    }
    // No maximum age applies any more: an open DataStale is released.
    if (w.releaseStale && m.stale) {
      m = { ...m, stale: false };
      run.signals.push(staleModelSignal(w.id, m, 'recovery', now, null, []));
    }
    if (m !== w.m) {
      run.models.set(w.id, m);
      run.changedModels.add(w.id);
    }
  }
  return progress;
}

/** What a model needs this run: a read of its refreshes (and why), or only a stale release. */
function modelNeeds(m: ModelState, id: string, graceMinutes: number, maxAgeOf: MaxAgeOf, now: Date) {
  const slotAt = m.schedule ? lastSlotAtOrBefore(m.schedule, now) : null;
  const graceOver = slotAt !== null && now.getTime() >= slotAt.getTime() + graceMinutes * 60_000;
  const slot = graceOver && slotAt!.toISOString() !== m.judgedSlot ? slotAt : null;
  // A miss of a model no longer scheduled (schedule disabled or gone) is released, not followed.
  const releaseMissed = m.missedSlot !== null && m.schedule === null;
  const slotWork = slot !== null || (m.missedSlot !== null && !releaseMissed);
  const maxAge = maxAgeOf(id, m.workspaceId);
  const ageDue = maxAge !== null && (m.lastCompletedAt === null || now.getTime() - Date.parse(m.lastCompletedAt) > maxAge * 60_000);
  return { slot, slotWork, maxAge, read: slotWork || ageDue, releaseStale: maxAge === null && m.stale, releaseMissed };
}

/** Applies a model's newest refreshes to its remembered state; pushes the signals that follow. */
function judgeModel(id: string, m: ModelState, rows: RefreshRow[], slot: Date | null, maxAge: number | null, graceMinutes: number, now: Date, causes: { sourceType: string; sourceId: string }[], signals: SignalInput[]): ModelState {
  const completedEnds = rows.filter((r) => r.status === 'Completed' && r.endTime && Number.isFinite(Date.parse(r.endTime))).map((r) => Date.parse(r.endTime!));
  const newest = Math.max(m.lastCompletedAt ? Date.parse(m.lastCompletedAt) : Number.NEGATIVE_INFINITY, ...completedEnds);
  const next: ModelState = { ...m, lastCompletedAt: Number.isFinite(newest) ? new Date(newest).toISOString() : null };
  const completedAfter = (at: Date) => completedEnds.some((end) => end >= at.getTime());

  if (slot !== null) {
    next.judgedSlot = slot.toISOString();
    if (!completedAfter(slot) && next.missedSlot === null) {
      next.missedSlot = slot.toISOString();
      signals.push(missedSignal(id, next, slot, rows, graceMinutes, now, causes));
    }
  }
  if (next.missedSlot !== null && completedAfter(new Date(next.missedSlot))) {
    const end = Math.min(...completedEnds.filter((e) => e >= Date.parse(next.missedSlot!)));
    signals.push({
      ...base(id, next, REFRESH_MISSED, now),
      kind: 'recovery',
      ...T.refreshMissedCaughtUp(next.name, new Date(end).toISOString(), next.missedSlot),
    });
    next.missedSlot = null;
  }
  if (maxAge !== null) {
    const age = next.lastCompletedAt ? now.getTime() - Date.parse(next.lastCompletedAt) : null;
    const stale = age === null || age > maxAge * 60_000;
    if (stale && !m.stale) signals.push(staleModelSignal(id, next, 'failure', now, { age, maxAge }, causes));
    else if (!stale && m.stale) signals.push(staleModelSignal(id, next, 'recovery', now, { age, maxAge }, []));
    next.stale = stale;
  }
  return next;
}

/** 4. Mirrored tables, where a maximum age applies (or an incident is open); each page of tables is one call of the budget. */
export async function checkMirrors(run: FreshnessRun, client: PlatformClient, maxAgeOf: MaxAgeOf, causesFor: CausesFor, calls: CallBudget): Promise<RunProgress> {
  const { now } = run;
  const progress = { polled: 0, deferred: 0 };
  for (const [id, db] of run.mirrors) {
    const maxAge = maxAgeOf(id, db.workspaceId);
    if (maxAge === null) {
      if (db.staleTables.length === 0) continue;
      for (const table of db.staleTables) run.signals.push(staleTableSignal(id, db, table, 'recovery', now, null, []));
      run.mirrors.set(id, { ...db, staleTables: [] });
      run.changedMirrors.add(id);
      continue;
    }
    if (calls.left <= 0) {
      progress.deferred++;
      continue;
    }
    progress.polled++;
    const tables: TableRow[] = [];
    try {
      const spec = { family: 'fabric' as const, audience: 'fabric' as const, method: 'POST' as const, url: client.fabric(`/workspaces/${encodeURIComponent(db.workspaceId)}/mirroredDatabases/${encodeURIComponent(id)}/getTablesMirroringStatus`) };
      for await (const page of client.fabricPages<TableRow>(spec, 'data')) {
        calls.charge(1);
        tables.push(...page);
      }
    } catch (err) {
      if (!isResourceRefusal(err)) throw err;
      continue;
    }
    const next = judgeTables(run, id, db, tables, maxAge, causesFor);
    if (next.join('\n') !== db.staleTables.join('\n')) {
      run.mirrors.set(id, { ...db, staleTables: next });
      run.changedMirrors.add(id);
    }
  }
  return progress;
}

/** Signals of one mirrored database's tables against its maximum age; returns the stale tables, sorted. */
function judgeTables(run: FreshnessRun, id: string, db: MirrorState, tables: TableRow[], maxAge: number, causesFor: CausesFor): string[] {
  const { now } = run;
  const stale = new Set<string>();
  const seen = new Set<string>();
  for (const t of tables) {
    const name = `${t.sourceSchemaName ?? 'dbo'}.${t.sourceTableName ?? ''}`;
    seen.add(name);
    const synced = Date.parse(t.metrics?.lastSyncDateTime ?? '');
    const age = Number.isFinite(synced) ? now.getTime() - synced : null;
    const isStale = age === null || age > maxAge * 60_000;
    const was = db.staleTables.includes(name);
    if (isStale) stale.add(name);
    if (isStale && !was) run.signals.push(staleTableSignal(id, db, name, 'failure', now, { age, maxAge }, causesFor(id, db.capacityId)));
    else if (!isStale && was) run.signals.push(staleTableSignal(id, db, name, 'recovery', now, { age, maxAge }, []));
  }
  // A table no longer listed is no longer watched: its incident recovers.
  for (const name of db.staleTables) if (!seen.has(name)) run.signals.push(staleTableSignal(id, db, name, 'recovery', now, null, []));
  return [...stale].sort();
}

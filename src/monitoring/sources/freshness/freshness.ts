/**
 * freshness — data that is late or old, whatever the reason (a run that never started, a
 * refresh still running, a failure, a mirror that stopped syncing):
 * - `DataFreshness` / `RefreshMissed` (error): a semantic model with an enabled refresh schedule
 *   whose newest slot passed more than the tenant's grace period ago without a refresh that
 *   completed after it. It recovers when a refresh completes after the missed slot (a late
 *   success). Schedules are read on a slow cadence and remembered; the model's newest refreshes
 *   are read only when a slot is judged or a missed slot is open, so a quiet model costs nothing.
 * - `DataFreshness` / `DataStale` (error): where a maximum age applies (tenant, workspace or item
 *   setting; the most specific wins), a semantic model whose last completed refresh, or a
 *   mirrored table whose `lastSyncDateTime`, is older than it. Fresh data recovers it.
 * A capacity that is not active (or an offline gateway the model reads through, when the lineage
 * knows it) is named as the cause, so only the root cause pages people.
 */
import type { SignalInput } from '../../../alerts/signals.js';
import type { Collector } from '../../engine/collector.js';
import { HOURLY_CAPS } from '../../platform/budget.js';
import { type MaxAgeOf, maxAgeResolver, readFreshnessSettings } from './freshness-settings.js';
import { itemsBehindGateways, type LineageChanges } from '../../lineage/lineage.js';
import type { StateChange } from '../../engine/output.js';
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import { lastSlotAtOrBefore, type RefreshSchedule } from '../../platform/refresh-schedule.js';
import { causesOf, openRootCauses } from '../../lineage/root-causes.js';
import { CATALOG_ROTATION_KEY, pickForRun, progressOf, ROTATION_KEY, type RotationState } from '../../engine/rotation.js';
import { CallBudget, runBudget } from '../../platform/run-budget.js';
import type { RunProgress } from '../../engine/collector-behind.js';
import type { TenantRow } from '../../connection/tenant-row.js';
import { readWorkspaces } from '../../platform/reads.js';
import { type CatalogRead, FALLBACK_ROTATION_KEY, readCatalogFromScan, readWorkspaceCatalogs, type SliceRead } from './freshness-scan.js';
import { awaitsFirstScan, firstScanPending, readScanCatalog, scanCatalogVersion, versionTime } from '../scanner/scan-catalog.js';
import * as T from '../../messages/titles.js';

export const FRESHNESS_SOURCE = 'DataFreshness';
export const REFRESH_MISSED = 'RefreshMissed';
export const DATA_STALE = 'DataStale';

const CATALOG_KEY = 'catalog';
/** The list of models and mirrored databases changes slowly: read again every 6 hours. */
const CATALOG_EVERY_MS = 6 * 3_600_000;
/** A model's schedule is read again after 6 hours. */
const SCHEDULE_EVERY_MS = 6 * 3_600_000;
/** Newest refreshes read per model: enough to find the last completed one after a few failures. */
const REFRESHES_TOP = 10;
/** Shares of the families' hourly caps this collector spends (the refreshes collector needs the rest). */
const SCHEDULE_SHARE = 0.05;
const REFRESH_SHARE = 0.15;
const MIRROR_SHARE = 0.1;
/** Share of the Power BI and Fabric caps each run's slice of the catalog pass may spend. */
const CATALOG_SHARE = 0.1;

/** When the catalog was last read whole, and whether a pass over the workspaces is under way. */
interface CatalogMark {
  /** When the last full pass completed (ISO); null until one did. */
  readAt: string | null;
  scanVersion?: string;
  /** A pass is under way: the next run reads the next slice. */
  passing?: boolean;
}

interface ModelState {
  name: string;
  workspaceId: string;
  workspaceName: string;
  capacityId: string | null;
  schedule: RefreshSchedule | null;
  scheduleReadAt: string | null;
  /** Its schedule comes from the admin scan (scanner collector), not from a read of its own. */
  scanned?: boolean;
  /** End of the newest completed refresh seen (ISO). */
  lastCompletedAt: string | null;
  /** The newest slot already judged (completed in time, or missed). */
  judgedSlot: string | null;
  /** The slot whose RefreshMissed incident is open. */
  missedSlot: string | null;
  stale: boolean;
}

interface MirrorState {
  name: string;
  workspaceId: string;
  workspaceName: string;
  capacityId: string | null;
  /** Tables (schema.table) with an open DataStale incident. */
  staleTables: string[];
}

interface RefreshRow {
  status?: string;
  startTime?: string;
  endTime?: string;
}

interface TableRow {
  sourceSchemaName?: string;
  sourceTableName?: string;
  metrics?: { lastSyncDateTime?: string };
}

const modelKey = (id: string) => `model:${id}`;
const mirrorKey = (id: string) => `mirror:${id}`;
const tableId = (dbId: string, table: string) => `${dbId}/${table.toLowerCase()}`;

/**
 * The next slice of a catalog pass over the tenant's readable workspaces (member mode, or admin
 * mode without the scan): the workspace listing, then as many workspaces' models and mirrored
 * databases as this run's share of the caps reaches. A workspace not reached keeps what was known
 * of it; one no longer listed loses its models and mirrors.
 */
async function readCatalogSlice(client: PlatformClient, tenant: TenantRow, rotation: RotationState | undefined, intervalSeconds: number, now: Date): Promise<{ read: CatalogRead; slice: SliceRead; progress: RunProgress }> {
  const powerbi = new CallBudget(runBudget(HOURLY_CAPS.powerbi, CATALOG_SHARE, intervalSeconds));
  const fabric = new CallBudget(runBudget(HOURLY_CAPS.fabric, CATALOG_SHARE, intervalSeconds));
  // Member mode lists on `fabric` (charged here); admin mode's listing is on `fabric-admin`.
  const workspaces = await readWorkspaces(client, tenant, tenant.mode === 'admin' ? undefined : fabric);
  const slice = await readWorkspaceCatalogs(client, workspaces, { powerbi, fabric, rotation, now });
  const read: CatalogRead = { models: slice.models, mirrors: slice.mirrors, modelsOf: slice.modelsOf, known: new Set(workspaces.map((w) => w.id)), mirrorsRead: true, mirrorsOf: slice.mirrorsOf };
  return { read, slice, progress: progressOf(workspaces, () => false, (w) => slice.reached.has(w.id)) };
}

/** What one run works on: the remembered models and mirrors, what changed, and its output. */
interface FreshnessRun {
  now: Date;
  models: Map<string, ModelState>;
  mirrors: Map<string, MirrorState>;
  changedModels: Set<string>;
  changedMirrors: Set<string>;
  signals: SignalInput[];
  changes: StateChange[];
}

type CausesFor = (id: string, capacityId: string | null) => { sourceType: string; sourceId: string }[];

export const freshnessCollector: Collector = {
  name: 'freshness',
  async run({ ctx, tenant, client, state, intervalSeconds, reportProgress, commit, firstPassGoesOn }) {
    const settings = await readFreshnessSettings(ctx.db, tenant.id);
    const maxAgeOf = maxAgeResolver(settings);
    const run: FreshnessRun = { now: ctx.clock.now(), models: new Map(), mirrors: new Map(), changedModels: new Set(), changedMirrors: new Set(), signals: [], changes: [] };
    // Where each item runs, for root-cause correlation: committed with the run (lineage).
    const placed: LineageChanges = {};
    for (const [key, value] of state) {
      if (key.startsWith('model:')) run.models.set(key.slice(6), value as ModelState);
      else if (key.startsWith('mirror:')) run.mirrors.set(key.slice(7), value as MirrorState);
    }

    const catalog = state.get(CATALOG_KEY) as CatalogMark | undefined;
    const catalogDue = !catalog?.readAt || catalog.passing === true || run.now.getTime() - Date.parse(catalog.readAt) >= CATALOG_EVERY_MS;
    let catalogProgress: RunProgress = { polled: 0, deferred: 0 };
    const keepPlaced = (placements: Placement[]) => {
      placed.placements = placements;
    };
    // Admin mode, once the scanner described the tenant: the catalog comes from its scan.
    const scanVersion = tenant.mode === 'admin' ? await scanCatalogVersion(ctx.db, tenant.id) : null;
    const fallback = state.get(FALLBACK_ROTATION_KEY) as RotationState | undefined;
    if (scanVersion !== null && (catalogDue || scanVersion !== catalog?.scanVersion || (fallback?.cold ?? 0) > 0)) {
      // What the scanner changed since the version applied last; all of it when the catalog is due (or none was applied).
      const scan = await readScanCatalog(ctx.db, tenant.id, scanVersion, catalogDue ? null : versionTime(catalog?.scanVersion));
      if (scan) {
        const read = await readCatalogFromScan(client, scan, { withMirrors: catalogDue, intervalSeconds, rotation: fallback, now: run.now });
        run.changes.push({ key: FALLBACK_ROTATION_KEY, value: read.rotation });
        refreshCatalog(run, read, { readAt: catalogDue ? run.now.toISOString() : catalog!.readAt, scanVersion: scan.version }, keepPlaced);
      }
    } else if (scanVersion === null && catalogDue && !(await awaitsFirstScan(ctx.db, tenant, run.now))) {
      const pass = await readCatalogSlice(client, tenant, state.get(CATALOG_ROTATION_KEY) as RotationState | undefined, intervalSeconds, run.now);
      run.changes.push({ key: CATALOG_ROTATION_KEY, value: pass.slice.rotation });
      // The pass ends when its slice reached the last workspace; until then the next run goes on.
      refreshCatalog(run, pass.read, pass.slice.completed ? { readAt: run.now.toISOString() } : { readAt: catalog?.readAt ?? null, passing: true }, keepPlaced);
      catalogProgress = pass.progress;
    }
    await readDueSchedules(run, client, state.get(ROTATION_KEY) as RotationState | undefined, intervalSeconds);

    const roots = await openRootCauses(ctx.db, tenant.org_id);
    // Only gateways with an open incident can be a cause: the items behind those are all the lineage this run needs.
    const behind = await itemsBehindGateways(ctx.db, tenant.id, roots.gateways);
    const causesFor: CausesFor = (id, capacityId) => causesOf(roots, { gatewayIds: behind.get(id) ?? [], capacityId });
    const models = await checkModels(run, client, settings.graceMinutes, maxAgeOf, causesFor, new CallBudget(runBudget(HOURLY_CAPS.powerbi, REFRESH_SHARE, intervalSeconds)));
    const mirrors = await checkMirrors(run, client, maxAgeOf, causesFor, new CallBudget(runBudget(HOURLY_CAPS.fabric, MIRROR_SHARE, intervalSeconds)));
    reportProgress({ polled: models.polled + mirrors.polled + catalogProgress.polled, deferred: models.deferred + mirrors.deferred + catalogProgress.deferred });

    for (const id of run.changedModels) if (run.models.has(id)) run.changes.push({ key: modelKey(id), value: run.models.get(id) });
    for (const id of run.changedMirrors) if (run.mirrors.has(id)) run.changes.push({ key: mirrorKey(id), value: run.mirrors.get(id) });
    // A new admin connection's catalog comes from the first full scan: until it is complete,
    // what this collector finds is still found at connection.
    if (await firstScanPending(ctx.db, tenant, run.now)) firstPassGoesOn();
    await commit(run.signals, run.changes, placed);
  },
  releaseAll(state, now) {
    return [...state].flatMap(([key, value]) => {
      if (key.startsWith('model:')) return modelGoneSignals(key.slice(6), value as ModelState, now);
      if (key.startsWith('mirror:')) return mirrorGoneSignals(key.slice(7), value as MirrorState, now);
      return [];
    });
  },
};

type Placement = { itemId: string; itemType: string; itemName: string; workspaceId: string; capacityId: string | null };

/**
 * 1. The catalog, on a slow cadence (or from the admin scan when it changed): new items are
 * remembered, gone ones release their incidents. Only what the read reaches can be gone.
 */
function refreshCatalog(run: FreshnessRun, read: CatalogRead, mark: CatalogMark, keepPlaced: (placed: Placement[]) => void): void {
  const { now, models, mirrors } = run;
  const seenModels = new Set(read.models.map((m) => m.id));
  const seenMirrors = new Set(read.mirrors.map((m) => m.id));
  const gone = (workspaceId: string) => read.known !== null && !read.known.has(workspaceId);
  const reached = (workspaceId: string) => read.modelsOf === null || read.modelsOf.has(workspaceId) || gone(workspaceId);
  const mirrorsReached = (workspaceId: string) => read.mirrorsRead && (!read.mirrorsOf || read.mirrorsOf.has(workspaceId) || gone(workspaceId));
  for (const m of read.models) {
    const prev = models.get(m.id);
    let next: ModelState = prev
      ? { ...prev, name: m.name, workspaceId: m.workspaceId, workspaceName: m.workspaceName, capacityId: m.capacityId }
      : { name: m.name, workspaceId: m.workspaceId, workspaceName: m.workspaceName, capacityId: m.capacityId, schedule: null, scheduleReadAt: null, lastCompletedAt: null, judgedSlot: null, missedSlot: null, stale: false };
    // The scan's schedule stands for a read of the model's own (kept current by incremental scans).
    if (m.schedule !== undefined) next = { ...next, schedule: m.schedule, scheduleReadAt: prev?.scanned && JSON.stringify(prev.schedule) === JSON.stringify(m.schedule) ? prev.scheduleReadAt : now.toISOString(), scanned: true };
    else if (next.scanned) next = { ...next, scanned: undefined, scheduleReadAt: null };
    models.set(m.id, next);
    if (!prev || JSON.stringify(prev) !== JSON.stringify(next)) run.changedModels.add(m.id);
  }
  for (const m of read.mirrors) {
    const prev = mirrors.get(m.id);
    const next = { name: m.name, workspaceId: m.workspaceId, workspaceName: m.workspaceName, capacityId: m.capacityId, staleTables: prev?.staleTables ?? [] };
    mirrors.set(m.id, next);
    if (!prev || JSON.stringify(prev) !== JSON.stringify(next)) run.changedMirrors.add(m.id);
  }
  for (const [id, prev] of models) {
    if (seenModels.has(id) || !reached(prev.workspaceId)) continue;
    run.signals.push(...modelGoneSignals(id, prev, now));
    models.delete(id);
    run.changes.push({ key: modelKey(id), value: null });
  }
  for (const [id, prev] of mirrors) {
    if (seenMirrors.has(id) || !mirrorsReached(prev.workspaceId)) continue;
    run.signals.push(...mirrorGoneSignals(id, prev, now));
    mirrors.delete(id);
    run.changes.push({ key: mirrorKey(id), value: null });
  }
  run.changes.push({ key: CATALOG_KEY, value: mark });
  // Where each item runs, for root-cause correlation (the lineage keeps data sources apart); the
  // scanner already placed the models it described.
  keepPlaced([
    ...read.models.filter((m) => m.schedule === undefined).map((m) => ({ itemId: m.id, itemType: 'SemanticModel', itemName: m.name, workspaceId: m.workspaceId, capacityId: m.capacityId })),
    ...read.mirrors.map((m) => ({ itemId: m.id, itemType: 'MirroredDatabase', itemName: m.name, workspaceId: m.workspaceId, capacityId: m.capacityId })),
  ]);
}

/** 2. Schedules: those never read or read long ago, within this run's share of the cap (in turns). */
async function readDueSchedules(run: FreshnessRun, client: PlatformClient, rotation: RotationState | undefined, intervalSeconds: number): Promise<void> {
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
async function checkModels(run: FreshnessRun, client: PlatformClient, graceMinutes: number, maxAgeOf: MaxAgeOf, causesFor: CausesFor, calls: CallBudget): Promise<RunProgress> {
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

/** 4. Mirrored tables, where a maximum age applies (or an incident is open); each page of tables is one call of the budget. */
async function checkMirrors(run: FreshnessRun, client: PlatformClient, maxAgeOf: MaxAgeOf, causesFor: CausesFor, calls: CallBudget): Promise<RunProgress> {
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

function base(id: string, m: Pick<ModelState, 'name' | 'workspaceName'>, kind: string, now: Date) {
  return { sourceType: FRESHNESS_SOURCE, sourceId: id, sourceName: m.name, notificationKind: kind, severity: 'error' as const, workspaceName: m.workspaceName, occurredAt: now };
}

function missedSignal(id: string, m: ModelState, slot: Date, rows: RefreshRow[], graceMinutes: number, now: Date, causes: { sourceType: string; sourceId: string }[]): SignalInput {
  const since = rows.filter((r) => Date.parse(r.startTime ?? '') >= slot.getTime());
  const why = since.some((r) => r.status === 'Unknown') ? 'running' : since.some((r) => r.status === 'Failed') ? 'failed' : 'none';
  return {
    ...base(id, m, REFRESH_MISSED, now),
    kind: 'failure',
    ...T.refreshMissed(m.name, m.workspaceName, slot.toISOString(), graceMinutes, why),
    causes,
  };
}

function staleModelSignal(id: string, m: ModelState, kind: 'failure' | 'recovery', now: Date, age: { age: number | null; maxAge: number } | null, causes: { sourceType: string; sourceId: string }[]): SignalInput {
  const b = { ...base(id, m, DATA_STALE, now), kind };
  if (kind === 'recovery') {
    return { ...b, ...T.modelFresh(m.name, age ? { ageMs: age.age ?? 0, maxAge: age.maxAge } : null) };
  }
  return { ...b, ...T.modelStale(m.name, m.workspaceName, age?.maxAge, age?.age ?? null), causes };
}

function staleTableSignal(dbId: string, db: MirrorState, table: string, kind: 'failure' | 'recovery', now: Date, age: { age: number | null; maxAge: number } | null, causes: { sourceType: string; sourceId: string }[]): SignalInput {
  const name = `${db.name} / ${table}`;
  const b = { sourceType: FRESHNESS_SOURCE, sourceId: tableId(dbId, table), sourceName: name, notificationKind: DATA_STALE, severity: 'error' as const, workspaceName: db.workspaceName, occurredAt: now, kind };
  if (kind === 'recovery') {
    return { ...b, ...T.tableFresh(name, age ? { ageMs: age.age ?? 0, maxAge: age.maxAge } : null) };
  }
  return { ...b, ...T.tableStale(name, db.workspaceName, age?.maxAge, age?.age ?? null), causes };
}

/** A model no longer watched: its open incidents recover. */
function modelGoneSignals(id: string, m: ModelState, now: Date): SignalInput[] {
  const gone = { kind: 'recovery' as const, ...T.semanticModelGone(m.name) };
  const out: SignalInput[] = [];
  if (m.missedSlot) out.push({ ...base(id, m, REFRESH_MISSED, now), ...gone });
  if (m.stale) out.push({ ...base(id, m, DATA_STALE, now), ...gone });
  return out;
}

function mirrorGoneSignals(id: string, db: MirrorState, now: Date): SignalInput[] {
  return db.staleTables.map((t) => ({ ...staleTableSignal(id, db, t, 'recovery', now, null, []), ...T.mirroredTableGone(`${db.name} / ${t}`) }));
}

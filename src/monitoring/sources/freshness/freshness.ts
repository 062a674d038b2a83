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
import type { Collector } from '../../engine/collector.js';
import { HOURLY_CAPS } from '../../platform/budget.js';
import { maxAgeResolver, readFreshnessSettings } from '../../connection/freshness-settings.js';
import { itemsBehindGateways, type LineageChanges } from '../../lineage/lineage.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { causesOf, openRootCauses } from '../../lineage/root-causes.js';
import { CATALOG_ROTATION_KEY, progressOf, ROTATION_KEY, type RotationState } from '../../engine/rotation.js';
import { CallBudget, runBudget } from '../../platform/run-budget.js';
import type { RunProgress } from '../../engine/collector-behind.js';
import type { TenantRow } from '../../connection/tenant-row.js';
import { readWorkspaces } from '../../platform/reads.js';
import { type CatalogRead, FALLBACK_ROTATION_KEY, readCatalogFromScan, readWorkspaceCatalogs, type SliceRead } from './freshness-scan.js';
import { awaitsFirstScan, firstScanPending, readScanCatalog, scanCatalogVersion, versionTime } from '../scanner/scan-catalog.js';
import { checkMirrors, checkModels, readDueSchedules } from './freshness-checks.js';
import { type CausesFor, type FreshnessRun, type MirrorState, mirrorGoneSignals, mirrorKey, modelGoneSignals, type ModelState, modelKey } from './freshness-verdicts.js';

export { DATA_STALE, FRESHNESS_SOURCE, REFRESH_MISSED } from './freshness-verdicts.js';

const CATALOG_KEY = 'catalog';
/** The list of models and mirrored databases changes slowly: read again every 6 hours. */
const CATALOG_EVERY_MS = 6 * 3_600_000;
/** Shares of the families' hourly caps this collector spends (the refreshes collector needs the rest). */
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

export const freshnessCollector: Collector = {
  name: 'freshness',
  async run({ ctx, tenant, client, state, reader, intervalSeconds, reportProgress, commit, firstPassGoesOn }) {
    const settings = await readFreshnessSettings(reader, tenant.id);
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
    const scanVersion = tenant.mode === 'admin' ? await scanCatalogVersion(reader, tenant.id) : null;
    const fallback = state.get(FALLBACK_ROTATION_KEY) as RotationState | undefined;
    if (scanVersion !== null && (catalogDue || scanVersion !== catalog?.scanVersion || (fallback?.cold ?? 0) > 0)) {
      // What the scanner changed since the version applied last; all of it when the catalog is due (or none was applied).
      const scan = await readScanCatalog(reader, tenant.id, scanVersion, catalogDue ? null : versionTime(catalog?.scanVersion));
      if (scan) {
        const read = await readCatalogFromScan(client, scan, { withMirrors: catalogDue, intervalSeconds, rotation: fallback, now: run.now });
        run.changes.push({ key: FALLBACK_ROTATION_KEY, value: read.rotation });
        refreshCatalog(run, read, { readAt: catalogDue ? run.now.toISOString() : catalog!.readAt, scanVersion: scan.version }, keepPlaced);
      }
    } else if (scanVersion === null && catalogDue && !(await awaitsFirstScan(reader, tenant, run.now))) {
      const pass = await readCatalogSlice(client, tenant, state.get(CATALOG_ROTATION_KEY) as RotationState | undefined, intervalSeconds, run.now);
      run.changes.push({ key: CATALOG_ROTATION_KEY, value: pass.slice.rotation });
      // The pass ends when its slice reached the last workspace; until then the next run goes on.
      refreshCatalog(run, pass.read, pass.slice.completed ? { readAt: run.now.toISOString() } : { readAt: catalog?.readAt ?? null, passing: true }, keepPlaced);
      catalogProgress = pass.progress;
    }
    await readDueSchedules(run, client, state.get(ROTATION_KEY) as RotationState | undefined, intervalSeconds);

    const roots = await openRootCauses(reader, tenant.org_id);
    // Only gateways with an open incident can be a cause: the items behind those are all the lineage this run needs.
    const behind = await itemsBehindGateways(reader, tenant.id, roots.gateways);
    const causesFor: CausesFor = (id, capacityId) => causesOf(roots, { gatewayIds: behind.get(id) ?? [], capacityId });
    const models = await checkModels(run, client, settings.graceMinutes, maxAgeOf, causesFor, new CallBudget(runBudget(HOURLY_CAPS.powerbi, REFRESH_SHARE, intervalSeconds)));
    const mirrors = await checkMirrors(run, client, maxAgeOf, causesFor, new CallBudget(runBudget(HOURLY_CAPS.fabric, MIRROR_SHARE, intervalSeconds)));
    reportProgress({ polled: models.polled + mirrors.polled + catalogProgress.polled, deferred: models.deferred + mirrors.deferred + catalogProgress.deferred });

    for (const id of run.changedModels) if (run.models.has(id)) run.changes.push({ key: modelKey(id), value: run.models.get(id) });
    for (const id of run.changedMirrors) if (run.mirrors.has(id)) run.changes.push({ key: mirrorKey(id), value: run.mirrors.get(id) });
    // A new admin connection's catalog comes from the first full scan: until it is complete,
    // what this collector finds is still found at connection.
    if (await firstScanPending(reader, tenant, run.now)) firstPassGoesOn();
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


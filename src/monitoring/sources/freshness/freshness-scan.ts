/**
 * Freshness's catalog read in slices. readWorkspaceCatalogs is the one way a workspace's models
 * (and mirrored databases) are listed: in turns over the workspaces (rotation.ts), within a run's
 * CallBudget, so a full pass over a large tenant takes several runs and no run exceeds its share.
 * In admin mode once the scanner (scanner.ts) has described the tenant: the semantic models and
 * their refresh schedules come from the scan (no call), the mirrored databases from the tenant's
 * one admin items listing, and only the workspaces the scan could not describe are read that way.
 */
import { HOURLY_CAPS } from '../../platform/budget.js';
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import type { RefreshSchedule } from '../../platform/refresh-schedule.js';
import { pickForRun, type RotationState } from '../../engine/rotation.js';
import { CallBudget, runBudget } from '../../platform/run-budget.js';
import type { ScanCatalog } from '../scanner/scan-catalog.js';
import { listMirroredDatabasesAsAdmin } from '../mirroring/mirroring-reads.js';

/** Share of the Power BI cap the per-workspace reads of undescribed workspaces may spend. */
export const FALLBACK_SHARE = 0.02;
/** Collector-state key of the undescribed workspaces' turns. */
export const FALLBACK_ROTATION_KEY = 'fallbackRotation';

export interface CatalogItem {
  id: string;
  name: string;
  workspaceId: string;
  workspaceName: string;
  capacityId: string | null;
  /** The scan's schedule (undefined: not from the scan; the schedule is read model by model). */
  schedule?: RefreshSchedule | null;
}

/** What one catalog read found, and how far it reaches. */
export interface CatalogRead {
  models: CatalogItem[];
  mirrors: CatalogItem[];
  /** Workspaces whose models were all read: a remembered model of them not listed is gone. null: every workspace. */
  modelsOf: Set<string> | null;
  /** The workspaces known (null: every workspace was read): a model of a workspace no longer known is gone. */
  known: Set<string> | null;
  /** Whether the mirrored databases were listed (a remembered one not listed is gone). */
  mirrorsRead: boolean;
  /** Workspaces whose mirrored databases were all read (null/absent: every workspace, when mirrorsRead). */
  mirrorsOf?: Set<string> | null;
}

export interface WorkspaceRef {
  id: string;
  name: string;
  capacityId: string | null;
}

/** One slice of a catalog pass: what the workspaces read hold, and the turns' state. */
export interface SliceRead {
  models: CatalogItem[];
  mirrors: CatalogItem[];
  /** Workspaces whose models were listed (a refused one is not). */
  modelsOf: Set<string>;
  /** Workspaces whose mirrored databases were listed. */
  mirrorsOf: Set<string>;
  /** Workspaces this run got to (read or refused). */
  reached: Set<string>;
  rotation: RotationState;
  /** The slice reached the end of the workspaces: a full pass completed in this run. */
  completed: boolean;
}

/**
 * Reads the next slice of the workspaces' catalogs — `GET /groups/{ws}/datasets` on `powerbi`
 * and, when `fabric` is given, `GET /workspaces/{ws}/mirroredDatabases` (every page charged) —
 * as far as the budgets reach, from the cursor in `rotation`. A workspace the run did not get to
 * keeps its turn for the next run.
 */
export async function readWorkspaceCatalogs(
  client: PlatformClient,
  workspaces: WorkspaceRef[],
  opts: { powerbi: CallBudget; fabric: CallBudget | null; rotation: RotationState | undefined; now: Date },
): Promise<SliceRead> {
  const { powerbi, fabric } = opts;
  const pickOf = (budget: number) => pickForRun(workspaces, { key: (w) => w.id, isHot: () => false, budget, state: opts.rotation, now: opts.now });
  // A pass ends at the last workspace (no wrapping round to the first ones in the same run): the
  // run that completes it is what marks the catalog read whole.
  const start = workspaces.length === 0 ? 0 : Math.min(opts.rotation?.cursor ?? 0, workspaces.length) % workspaces.length;
  let pick = pickOf(Math.min(workspaces.length - start, fabric ? Math.min(powerbi.left, fabric.left) : powerbi.left));
  const out: SliceRead = { models: [], mirrors: [], modelsOf: new Set(), mirrorsOf: new Set(), reached: new Set(), rotation: pick.next, completed: pick.completedRotation };
  for (const w of pick.poll) {
    // Further mirror pages may have spent what the pick counted on: the rest waits its turn.
    if (powerbi.left < 1 || (fabric && fabric.left < 1)) break;
    powerbi.take();
    const place = { workspaceId: w.id, workspaceName: w.name, capacityId: w.capacityId };
    try {
      const answer = await client.json<{ value?: { id: string; name?: string }[] }>({ family: 'powerbi', audience: 'powerbi', url: client.powerBi(`/groups/${encodeURIComponent(w.id)}/datasets`) });
      for (const d of answer?.value ?? []) out.models.push({ id: d.id.toLowerCase(), name: d.name || d.id, ...place });
      out.modelsOf.add(w.id);
    } catch (err) {
      if (!isResourceRefusal(err)) throw err;
    }
    if (fabric) {
      fabric.take();
      let pages = 0;
      try {
        for await (const page of client.fabricPages<{ id: string; displayName?: string }>({ family: 'fabric', audience: 'fabric', url: client.fabric(`/workspaces/${encodeURIComponent(w.id)}/mirroredDatabases`) })) {
          if (pages++ > 0) fabric.charge(1);
          for (const m of page) out.mirrors.push({ id: m.id.toLowerCase(), name: m.displayName || m.id, ...place });
        }
        out.mirrorsOf.add(w.id);
      } catch (err) {
        if (!isResourceRefusal(err)) throw err;
      }
    }
    out.reached.add(w.id);
  }
  if (out.reached.size < pick.poll.length) {
    // Stopped early: the cursor moves only past the workspaces read.
    pick = pickOf(out.reached.size);
    out.rotation = pick.next;
    out.completed = pick.completedRotation;
  }
  return out;
}

export interface ScanCatalogRead extends CatalogRead {
  rotation: RotationState;
}

/**
 * The catalog from the scan: models of the described workspaces the catalog carries (all, or
 * those changed since the version applied last), a slice of the undescribed ones read one by one,
 * and the mirrored databases when `withMirrors` (the slow cadence). Only the workspaces whose
 * models were read can lose a model; a workspace no longer known loses all of its.
 */
export async function readCatalogFromScan(
  client: PlatformClient,
  scan: ScanCatalog,
  opts: { withMirrors: boolean; intervalSeconds: number; rotation: RotationState | undefined; now: Date },
): Promise<ScanCatalogRead> {
  const models: CatalogItem[] = [];
  const modelsOf = new Set<string>();
  for (const [id, w] of scan.described) {
    modelsOf.add(id);
    for (const d of w.datasets) models.push({ id: d.id, name: d.name, workspaceId: id, workspaceName: w.name ?? id, capacityId: w.capacityId, schedule: d.schedule });
  }
  const undescribed = [...scan.workspaces].filter(([, w]) => !w.described).map(([id, w]) => ({ id, name: w.name ?? id, capacityId: w.capacityId }));
  const slice = await readWorkspaceCatalogs(client, undescribed, {
    powerbi: new CallBudget(runBudget(HOURLY_CAPS.powerbi, FALLBACK_SHARE, opts.intervalSeconds)),
    fabric: null,
    rotation: opts.rotation,
    now: opts.now,
  });
  models.push(...slice.models);
  for (const id of slice.modelsOf) modelsOf.add(id);
  let mirrors: CatalogItem[] = [];
  if (opts.withMirrors) {
    const workspaces = [...scan.workspaces].map(([id, w]) => ({ id, name: w.name ?? id, capacityId: w.capacityId }));
    mirrors = (await listMirroredDatabasesAsAdmin(client, workspaces)).map((m) => ({ ...m, workspaceName: m.workspaceName ?? m.workspaceId }));
  }
  return { models, mirrors, modelsOf, known: new Set(scan.workspaces.keys()), mirrorsRead: opts.withMirrors, rotation: slice.rotation };
}

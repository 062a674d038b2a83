/**
 * Freshness's catalog in admin mode once the scanner (scanner.ts) has described the tenant: the
 * semantic models and their refresh schedules come from the scan (no call), the mirrored
 * databases from the tenant's one admin items listing, and only the workspaces the scan could
 * not describe are read workspace by workspace — in turns (rotation.ts), within a small share of
 * the Power BI cap, so a tenant whose scan leaves out thousands of workspaces still fits.
 */
import { HOURLY_CAPS } from '../budget.js';
import { isResourceRefusal, type PlatformClient } from '../platform-client.js';
import type { RefreshSchedule } from '../refresh-schedule.js';
import { pickForRun, type RotationState } from '../rotation.js';
import { runBudget } from '../run-budget.js';
import type { ScanCatalog } from '../scan-catalog.js';
import { listMirroredDatabasesAsAdmin } from './mirroring-reads.js';

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
}

export interface ScanCatalogRead extends CatalogRead {
  rotation: RotationState;
}

/**
 * The catalog from the scan: models of the described workspaces, a slice of the undescribed
 * ones read one by one, and the mirrored databases when `withMirrors` (the slow cadence).
 */
export async function readCatalogFromScan(
  client: PlatformClient,
  scan: ScanCatalog,
  opts: { withMirrors: boolean; intervalSeconds: number; rotation: RotationState | undefined; now: Date },
): Promise<ScanCatalogRead> {
  const models: CatalogItem[] = [];
  const modelsOf = new Set<string>();
  const undescribed: string[] = [];
  for (const [id, w] of scan.workspaces) {
    if (!w.described) {
      undescribed.push(id);
      continue;
    }
    modelsOf.add(id);
    for (const d of w.datasets) models.push({ id: d.id, name: d.name, workspaceId: id, workspaceName: w.name ?? id, capacityId: w.capacityId, schedule: d.schedule });
  }
  const pick = pickForRun(undescribed, { key: (id) => id, isHot: () => false, budget: runBudget(HOURLY_CAPS.powerbi, FALLBACK_SHARE, opts.intervalSeconds), state: opts.rotation, now: opts.now });
  for (const id of pick.poll) {
    const w = scan.workspaces.get(id)!;
    try {
      const answer = await client.json<{ value?: { id: string; name?: string }[] }>({ family: 'powerbi', audience: 'powerbi', url: client.powerBi(`/groups/${encodeURIComponent(id)}/datasets`) });
      for (const d of answer?.value ?? []) models.push({ id: d.id.toLowerCase(), name: d.name || d.id, workspaceId: id, workspaceName: w.name ?? id, capacityId: w.capacityId });
      modelsOf.add(id);
    } catch (err) {
      if (!isResourceRefusal(err)) throw err;
    }
  }
  let mirrors: CatalogItem[] = [];
  if (opts.withMirrors) {
    const workspaces = [...scan.workspaces].map(([id, w]) => ({ id, name: w.name ?? id, capacityId: w.capacityId }));
    mirrors = (await listMirroredDatabasesAsAdmin(client, workspaces)).map((m) => ({ ...m, workspaceName: m.workspaceName ?? m.workspaceId }));
  }
  return { models, mirrors, modelsOf, known: new Set(scan.workspaces.keys()), mirrorsRead: opts.withMirrors, rotation: pick.next };
}

/**
 * One admin-mode run of the refreshes collector: the refreshables pages on their paced share of
 * the endpoint's cap (refresh-admin.ts), then the models whose schedule fell due, read one by one
 * on the Power BI family (refresh-hot.ts). Both hand what they saw to `observe`.
 */
import type { TenantRow } from '../../connection/tenant-row.js';
import type { EntityState, StateChange } from '../../engine/output.js';
import type { Reader } from '../../engine/reader.js';
import { sharedCap, tenantWideCap } from '../../platform/budget.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { type CallBudget, PacedBudget } from '../../platform/run-budget.js';
import { scannedModel } from '../scanner/scan-schedules.js';
import { readAdmin } from './refresh-admin.js';
import { type DueRead, readDueModels } from './refresh-hot.js';
import type { Observation } from './refresh-reads.js';
import { modelKey, type RefreshMemory } from './refresh-state.js';

/**
 * Share of Vigia's allowance on the refreshables endpoint (its share of the documented 200/h per
 * tenant) this collector plans to use: it is the endpoint's only caller; the rest absorbs the one
 * run's worth a paced budget may go over within an hour.
 */
export const ADMIN_SHARE = 0.9;
/** The budget key of the admin refreshables endpoint (budget.ts TENANT_WIDE_CAPS). */
export const REFRESHABLES_KEY = 'powerbi-admin:refreshables';

export interface AdminRun {
  client: PlatformClient;
  tenant: TenantRow;
  reader: Reader;
  entities: EntityState;
  state: Map<string, unknown>;
  memory: RefreshMemory;
  powerbi: CallBudget;
  intervalSeconds: number;
  now: Date;
  /** Read due models one by one (off: the refreshables pages alone, as before; the bench's baseline). */
  dueReads: boolean;
}

export interface AdminRunResult {
  hourSpent: boolean;
  /** The due index and hot set's state changes (committed with the run's). */
  changes: StateChange[];
  due: DueRead | null;
}

export async function runAdmin(run: AdminRun, observe: (o: Observation) => void): Promise<AdminRunResult> {
  const { client, memory, intervalSeconds: interval, now } = run;
  // Pages are paced on the endpoint's allowance: at a short interval a run may have no page to read.
  const allowed = await client.allowedPerHour(REFRESHABLES_KEY);
  const pages = new PacedBudget(allowed * ADMIN_SHARE, interval, memory.adminPace ?? undefined, now);
  // While a 429 holds the pace lowered, the models wait longer than planned: that is being behind.
  const lowered = allowed < sharedCap(tenantWideCap(REFRESHABLES_KEY)!.perHour, client.capSharePercent);
  let hourSpent: boolean;
  try {
    hourSpent = (await readAdmin(client, run.tenant, memory, run.entities, { pages, powerbi: run.powerbi }, now, observe)).hourSpent || lowered;
  } finally {
    if (pages.left < pages.total || pages.overspent > 0 || !memory.adminPace) memory.adminPace = pages.pace();
  }
  if (!run.dueReads) return { hourSpent, changes: [], due: null };
  const due = await readDueModels({ ...run, budget: run.powerbi });
  await observeSeen(run, due, observe);
  return { hourSpent: hourSpent || due.hourSpent, changes: due.changes, due };
}

/** The results seen after a slot become observations; a model no page listed yet is placed from the scanner's catalog. */
async function observeSeen(run: AdminRun, due: DueRead, observe: (o: Observation) => void): Promise<void> {
  if (due.seen.length === 0) return;
  run.memory.load(await run.entities.read(due.seen.map((s) => modelKey(s.modelId))));
  for (const s of due.seen) {
    const scanned = await scannedModel(run.reader, run.tenant.id, s.workspaceId, s.modelId);
    if (!run.memory.models.has(s.modelId)) {
      if (!scanned) continue;
      run.memory.place(s.modelId, scanned.name, s.workspaceId, scanned.capacityId);
    }
    observe({ modelId: s.modelId, history: [s.latest], workspaceName: scanned?.workspaceName ?? null, capacityName: null });
  }
}

/**
 * scanner — Power BI's metadata scanning, in admin mode: the catalog of a large tenant (its
 * workspaces, their semantic models with refresh schedules, the data sources and gateways each
 * model reads through) for 100 workspaces a call, instead of reading each workspace.
 *
 * The flow, its state kept in the collector state and committed with each run (a run that dies
 * before its commit is done again; scans it asked for are asked again):
 * 1. Listing (`GET admin/workspaces/modified`): every workspace for a full scan (the first run,
 *    then every FULL_SCAN_EVERY_MS); otherwise only those modified since the last listing began,
 *    OVERLAP_MS earlier. The listed workspaces join the queue.
 * 2. Scans: slices of ≤ 100 queued workspaces (`POST admin/workspaces/getInfo`), at most 16 in
 *    progress (the platform's limit) and within the run's share of each documented cap.
 * 3. Each scan is polled (`scanStatus`) and read once it succeeded (`scanResult`); one still
 *    running is polled again by the next run. A scan that failed, or whose result is gone (the
 *    platform keeps it 24 hours), puts its workspaces back in the queue.
 * 4. A described workspace is stored with its models, and its models' placement and data
 *    sources go to the lineage (root causes). A workspace the result leaves out stays known but
 *    undescribed: the consumers (inventory, freshness) read it workspace by workspace, in turns.
 * A 429 (or our own hourly cap) on getInfo — or on any scanner call — ends the run's calls without
 * error; the cursor, the queue and the pending scans are kept for the next run.
 * In member mode the collector does nothing (the scanner API is admin only).
 */
import type { Collector } from '../../engine/collector.js';
import { BudgetExhaustedError } from '../../platform/budget.js';
import type { LineageChanges } from '../../lineage/lineage.js';
import type { EntityState, StateChange } from '../../engine/output.js';
import { ThrottledError, VendorAnswerError, VendorHttpError, type PlatformClient } from '../../platform/platform-client.js';
import type { RefreshSchedule } from '../../platform/refresh-schedule.js';
import { CallBudget, runBudget } from '../../platform/run-budget.js';
import {
  awaitsFirstScan,
  CURSOR_KEY,
  emptyCursor,
  type PendingScan,
  type ScanCursor,
  type ScannedDataset,
  type ScannedWorkspace,
  WORKSPACE_PREFIX,
} from './scan-catalog.js';
import { textOf } from '../../platform/values.js';
import { requeueFailed, type ScanResult, workspacesOf } from './scan-results.js';

/**
 * The per-tenant capped endpoints the scanner calls: it plans each run on what Vigia allows
 * itself there now (the connection's `capSharePercent` of the documented cap, lowered for the
 * hour after a 429 — budget.ts), the rest left to the customer's other tools.
 */
const ENDPOINT = { info: 'powerbi-admin:getInfo', result: 'powerbi-admin:scanResult', status: 'powerbi-admin:scanStatus', modified: 'powerbi-admin:modified' } as const;
/** A full scan (every workspace, not only the changed ones) this often: catches what a listing of changes missed. */
export const FULL_SCAN_EVERY_MS = 7 * 86_400_000;
/** The next incremental listing looks back this much before the last one began (clock skew). */
export const OVERLAP_MS = 2 * 60_000;
/** The platform keeps a scan's result this long after the scan was asked for. */
export const SCAN_RESULT_TTL_MS = 24 * 3_600_000;
/** `modifiedSince` must look back at least this much (the platform's documented window starts there). */
export const MODIFIED_SETTLE_MS = 30 * 60_000;
/** `modifiedSince` may look back at most 30 days; older, a full scan is done instead. */
const MODIFIED_SINCE_MAX_MS = 29 * 86_400_000;
export const WORKSPACES_PER_SCAN = 100;
export const SCANS_IN_PROGRESS = 16;
/** Rounds of polling and asking within one run (a scan usually finishes in seconds). */
const ROUNDS = 4;
/** What getInfo asks for: lineage and data-source details; no schema, expressions or users. */
const GET_INFO_QUERY = 'lineage=true&datasourceDetails=true&datasetSchema=false&datasetExpressions=false&getArtifactUsers=false';

const API = '/admin/workspaces';

interface ScanRun {
  client: PlatformClient;
  now: Date;
  cursor: ScanCursor;
  /** Every workspace the state knows (keys only; the values are read as a scan touches them). */
  known: Set<string>;
  /** The workspaces this run read from the state or wrote (a deleted one is absent; see `changed`). */
  workspaces: Map<string, ScannedWorkspace>;
  /** Whether each workspace read from the state was described then (for the described count). */
  describedBefore: Map<string, boolean>;
  entities: EntityState;
  changed: Set<string>;
  lineage: Required<LineageChanges>;
  budgets: { info: CallBudget; result: CallBudget; status: CallBudget; modified: CallBudget };
  listingSpacingMs: number;
  describedNow: number;
  /** getInfo was refused (429 or our own cap): no more scans asked for this run. */
  throttled: boolean;
}

function isThrottle(err: unknown): boolean {
  return err instanceof ThrottledError || err instanceof BudgetExhaustedError;
}

export const scannerCollector: Collector = {
  name: 'scanner',
  // 50,000 workspaces with their models at enterprise size: a run reads the ones it touches.
  entityPrefixes: [WORKSPACE_PREFIX],
  async run({ ctx, tenant, client, state, reader, entities, intervalSeconds, reportProgress, commit, firstPassGoesOn }) {
    if (tenant.mode !== 'admin') {
      await commit([], []);
      return;
    }
    const now = ctx.clock.now();
    const allowed = {
      info: await client.allowedPerHour(ENDPOINT.info),
      result: await client.allowedPerHour(ENDPOINT.result),
      status: await client.allowedPerHour(ENDPOINT.status),
      modified: await client.allowedPerHour(ENDPOINT.modified),
    };
    const budget = (perHour: number) => new CallBudget(runBudget(perHour, 1, intervalSeconds));
    const run: ScanRun = {
      client,
      now,
      cursor: { ...emptyCursor(), ...(state.get(CURSOR_KEY) as Partial<ScanCursor> | undefined) },
      known: new Set((await entities.keys(WORKSPACE_PREFIX)).map((key) => key.slice(WORKSPACE_PREFIX.length))),
      workspaces: new Map(),
      describedBefore: new Map(),
      entities,
      changed: new Set(),
      lineage: { placements: [], datasources: [], forget: [] },
      budgets: { info: budget(allowed.info), result: budget(allowed.result), status: budget(allowed.status), modified: budget(allowed.modified) },
      // The modified listing is capped at 30 an hour: at Vigia's share of it, one listing every
      // 3600 / allowed seconds at most, whatever the interval.
      listingSpacingMs: 3_600_000 / Math.max(1, allowed.modified),
      describedNow: 0,
      throttled: false,
    };
    const describedAtStart = await entities.count(WORKSPACE_PREFIX, 'described');
    const listed = tenant.workspaces ? new Set(tenant.workspaces) : null;

    // An error stops the run's calls; what it did so far (scans asked for, results read) is still
    // committed, so nothing is asked twice, then the error is reported.
    let stopped: unknown = null;
    try {
      await list(run, listed);
      for (let round = 0; round < ROUNDS; round++) {
        const read = await pollPending(run);
        const asked = await askScans(run);
        if (round > 0 && read === 0 && asked === 0 && run.cursor.pending.length === 0) break;
      }
    } catch (err) {
      // A 429 that outlasts the run (or our own cap) on any scanner call ends the run's calls
      // without error: the cursor, queue and pending scans are kept for the next run.
      if (isThrottle(err)) run.throttled = true;
      else stopped = err;
    }
    finishFullScan(run);

    const changes: StateChange[] = [];
    for (const id of run.changed) changes.push({ key: WORKSPACE_PREFIX + id, value: run.workspaces.get(id) ?? null });
    run.cursor.known = run.known.size;
    // Every changed workspace that was remembered was read first (loadWorkspaces), so its old flag is known.
    let described = describedAtStart;
    for (const id of run.changed) described += Number(run.workspaces.get(id)?.described === true) - Number(run.describedBefore.get(id) === true);
    run.cursor.described = described;
    changes.push({ key: CURSOR_KEY, value: run.cursor });
    // Taking turns through the queue is the plan; only a run that could ask for no scan at all defers it.
    reportProgress({ polled: run.describedNow, deferred: run.throttled ? run.cursor.queue.length : 0 });
    // Its first pass is its first full scan (the wait freshness gives it too).
    if (run.cursor.lastFullAt === null && (await awaitsFirstScan(reader, tenant, now))) firstPassGoesOn();
    await commit([], changes, run.lineage);
    if (stopped !== null) throw stopped;
  },
};

/** 1. The modified listing: everything for a full scan, else the changes since the last listing. */
async function list(run: ScanRun, listed: Set<string> | null): Promise<void> {
  const { cursor, now } = run;
  const nowMs = now.getTime();
  if (cursor.listedAt && nowMs - Date.parse(cursor.listedAt) < run.listingSpacingMs && nowMs >= Date.parse(cursor.listedAt)) return;
  const full =
    cursor.fullStartedAt === null &&
    (cursor.lastFullAt === null || nowMs - Date.parse(cursor.lastFullAt) >= FULL_SCAN_EVERY_MS || cursor.since === null || nowMs - Date.parse(cursor.since) > MODIFIED_SINCE_MAX_MS);
  // A full scan under way waits for its queue before the next full listing; changes are still listed.
  if (!full && cursor.since === null) return;
  run.budgets.modified.take();
  // The platform takes modifiedSince from 30 minutes to 30 days back, "to allow workspace changes
  // to take effect": a change may be listed up to 30 minutes after it was made, so every listing
  // looks back at least that far. A workspace listed again is queued once (the queue holds it).
  const query = full ? '' : `&modifiedSince=${encodeURIComponent(new Date(Math.min(Date.parse(cursor.since!), nowMs - MODIFIED_SETTLE_MS)).toISOString())}`;
  const answer = await run.client.json<{ id?: unknown }[]>({ family: 'scanner-modified', audience: 'powerbi', url: `${run.client.powerBi(`${API}/modified`)}?excludePersonalWorkspaces=true${query}` });
  // Anything but an array is not "no workspaces": read as such, a full listing would forget them all.
  if (!Array.isArray(answer)) throw new VendorAnswerError('GET /admin/workspaces/modified answered something other than a list of workspaces');
  const ids = [...new Set(answer.map((w) => textOf(w?.id).toLowerCase()))].filter((id) => id !== '' && (!listed || listed.has(id)));
  if (full) {
    // Workspaces a full listing no longer names are gone: forgotten, with their models' lineage.
    const present = new Set(ids);
    const gone = [...run.known].filter((id) => !present.has(id));
    await loadWorkspaces(run, gone);
    for (const id of gone) {
      run.lineage.forget.push(...(run.workspaces.get(id)?.datasets ?? []).map((d) => d.id));
      run.workspaces.delete(id);
      run.known.delete(id);
      run.changed.add(id);
    }
    cursor.queue = [];
    // A new full scan gives the set-aside workspaces their attempts again.
    cursor.failed = [];
    cursor.attempts = {};
    cursor.fullStartedAt = now.toISOString();
  } else {
    cursor.lastIncrementalAt = now.toISOString();
  }
  const queued = new Set(cursor.queue);
  for (const id of ids) {
    if (!run.known.has(id)) {
      run.known.add(id);
      run.workspaces.set(id, { described: false, name: null, capacityId: null, scannedAt: null, datasets: [] });
      run.changed.add(id);
    }
    if (!queued.has(id)) {
      cursor.queue.push(id);
      queued.add(id);
    }
  }
  cursor.since = new Date(nowMs - OVERLAP_MS).toISOString();
  cursor.listedAt = now.toISOString();
}

/** 2. Scans of the next slices of the queue, while slots, budget and the platform allow. */
async function askScans(run: ScanRun): Promise<number> {
  const { cursor } = run;
  let asked = 0;
  while (!run.throttled && cursor.queue.length > 0 && cursor.pending.length < SCANS_IN_PROGRESS && run.budgets.info.left > 0) {
    const slice = cursor.queue.slice(0, WORKSPACES_PER_SCAN);
    run.budgets.info.take();
    let answer: { id?: unknown; createdDateTime?: unknown } | null;
    try {
      answer = await run.client.json({ family: 'scanner-info', audience: 'powerbi', method: 'POST', url: `${run.client.powerBi(`${API}/getInfo`)}?${GET_INFO_QUERY}`, body: { workspaces: slice } });
    } catch (err) {
      if (!isThrottle(err)) throw err;
      run.throttled = true;
      break;
    }
    const id = textOf(answer?.id);
    if (!id) throw new VendorAnswerError('POST /admin/workspaces/getInfo answered without a scan id');
    cursor.queue = cursor.queue.slice(slice.length);
    // The scan's age is counted from our clock: the result's 24 hours start when it was asked for.
    cursor.pending.push({ id, createdAt: run.now.toISOString(), workspaceIds: slice });
    asked++;
  }
  return asked;
}

/** 3. Polls every pending scan once; reads the results of those that succeeded. Returns scans finished. */
async function pollPending(run: ScanRun): Promise<number> {
  const { cursor, now } = run;
  let finished = 0;
  const still: PendingScan[] = [];
  for (let i = 0; i < cursor.pending.length; i++) {
    const scan = cursor.pending[i]!;
    const done = await pollOne(run, scan, now).catch((err: unknown) => {
      // The rest of the pending scans stay as they were.
      cursor.pending = [...still, ...cursor.pending.slice(i)];
      throw err;
    });
    if (done === 'waiting') still.push(scan);
    else finished++;
  }
  cursor.pending = still;
  return finished;
}

async function pollOne(run: ScanRun, scan: PendingScan, now: Date): Promise<'waiting' | 'read' | 'redo'> {
  const redo = () => {
    requeueFailed(run.cursor, scan);
    return 'redo' as const;
  };
  if (now.getTime() - Date.parse(scan.createdAt) >= SCAN_RESULT_TTL_MS) return redo();
  if (run.budgets.status.left <= 0) return 'waiting';
  run.budgets.status.take();
  let status: string;
  try {
    const s = await run.client.json<{ status?: unknown }>({ family: 'scanner-status', audience: 'powerbi', url: run.client.powerBi(`${API}/scanStatus/${encodeURIComponent(scan.id)}`) });
    status = textOf(s?.status);
  } catch (err) {
    // The platform no longer knows the scan (expired): its workspaces are scanned again.
    if (err instanceof VendorHttpError && err.status === 404) return redo();
    throw err;
  }
  if (status === 'Failed') return redo();
  if (status !== 'Succeeded') return 'waiting';
  if (run.budgets.result.left <= 0) return 'waiting';
  run.budgets.result.take();
  let result: ScanResult | null;
  try {
    result = await run.client.json<ScanResult>({ family: 'scanner-result', audience: 'powerbi', url: run.client.powerBi(`${API}/scanResult/${encodeURIComponent(scan.id)}`) });
  } catch (err) {
    if (err instanceof VendorHttpError && err.status === 404) return redo();
    throw err;
  }
  await loadWorkspaces(run, scan.workspaceIds);
  applyResult(run, scan, result ?? {});
  return 'read';
}

/** Reads the remembered state of these workspaces, those not read or changed yet this run. */
async function loadWorkspaces(run: ScanRun, ids: readonly string[]): Promise<void> {
  const keys = ids.filter((id) => run.known.has(id) && !run.workspaces.has(id) && !run.changed.has(id)).map((id) => WORKSPACE_PREFIX + id);
  if (keys.length === 0) return;
  const read = await run.entities.read<ScannedWorkspace>(keys);
  for (const [key, w] of read) {
    const id = key.slice(WORKSPACE_PREFIX.length);
    run.workspaces.set(id, w);
    run.describedBefore.set(id, w.described === true);
  }
}

/** 4. A result: described workspaces stored with their models and lineage, the others left out. */
function applyResult(run: ScanRun, scan: PendingScan, result: ScanResult): void {
  const described = workspacesOf(scan, result);
  for (const [id, w] of described) {
    const datasets = [...w.datasets.values()];
    const prev = run.workspaces.get(id);
    const kept = new Set(datasets.map((d) => d.id));
    run.lineage.forget.push(...(prev?.datasets ?? []).filter((d) => !kept.has(d.id)).map((d) => d.id));
    run.workspaces.set(id, { described: true, name: w.name, capacityId: w.capacityId, scannedAt: scan.createdAt, datasets });
    run.changed.add(id);
    run.describedNow++;
    run.lineage.placements.push(...datasets.map((d) => ({ itemId: d.id, itemType: 'SemanticModel', itemName: d.name, workspaceId: id, capacityId: w.capacityId })));
    run.lineage.datasources.push(...datasets.map((d) => ({ itemId: d.id, gatewayIds: d.gatewayIds, datasourceIds: d.datasourceIds })));
  }
  // Left out of the result: known, not described; what an earlier scan said of it no longer holds.
  for (const id of scan.workspaceIds) {
    if (described.has(id)) continue;
    // Its models' lineage is left as it is: the per-workspace reads that now cover it keep it.
    const prev = run.workspaces.get(id);
    run.workspaces.set(id, { described: false, omitted: true, name: prev?.name ?? null, capacityId: prev?.capacityId ?? null, scannedAt: scan.createdAt, datasets: [] });
    run.changed.add(id);
  }
  for (const id of scan.workspaceIds) delete run.cursor.attempts?.[id];
}

/** A full scan is over when everything it listed was scanned (nothing queued or pending). */
function finishFullScan(run: ScanRun): void {
  const { cursor } = run;
  if (cursor.fullStartedAt !== null && cursor.queue.length === 0 && cursor.pending.length === 0) {
    cursor.lastFullAt = cursor.fullStartedAt;
    cursor.fullStartedAt = null;
  }
}

/**
 * jobs — Fabric job instances of the items that run (pipelines, notebooks, Spark job
 * definitions, dataflows, copy jobs). A `Failed` instance opens `FabricJob` / `JobFailed` (error)
 * with its failureReason; each further failure is a reoccurrence; the next `Completed` recovers.
 * `Cancelled` and `Deduped` neither fail nor recover; `NotStarted`/`InProgress` are not results
 * yet (job-results.ts keeps the per-item cursor so a run is counted once, across restarts).
 *
 * Caps: items that ran in the last 24 h or have an enabled schedule are polled every run, the
 * others take turns (rotation.ts) within this collector's share of the Fabric hourly cap. The
 * item list is read hourly and schedules on a slow cadence, both inside the same budget.
 *
 * Root cause: each item's placement (workspace, capacity) is saved in the lineage, and a failure
 * on a capacity whose CapacityNotActive incident is open names it as its cause, so only the
 * capacity pages people.
 */
import type { SignalInput } from '../../../alerts/signals.js';
import { HOURLY_CAPS } from '../../platform/budget.js';
import type { Collector } from '../../engine/collector.js';
import type { LineageChanges } from '../../lineage/lineage.js';
import type { StateChange } from '../../engine/output.js';
import { isResourceRefusal, type PlatformClient } from '../../platform/platform-client.js';
import { causesOf, openRootCauses, type OpenRootCauses } from '../../lineage/root-causes.js';
import { pickForRun, progressOf, ROTATION_KEY, type RotationState } from '../../engine/rotation.js';
import { type CallBudget, PacedBudget, type PaceState, runBudget } from '../../platform/run-budget.js';
import { type JobCursor, type JobInstance, lastStart, newResults } from './job-results.js';
import * as T from '../../messages/titles.js';
import { listRunnableItems, type RunnableItem } from './runnable-items.js';
import { inPool } from '../../platform/pool.js';
import type { TenantRow } from '../../connection/tenant-row.js';

export const JOB_FAILED_KIND = 'JobFailed';
export const JOB_SOURCE_TYPE = 'FabricJob';

/**
 * Share of the Fabric hourly cap (7,200) this collector may spend: it is the only collector whose
 * calls grow with the number of items (thousands of pipelines); capacity, gateway, mirroring and
 * data sources poll tens of resources and share the rest.
 */
export const JOBS_SHARE = 0.4;
/** Part of a run's budget that reads schedules (the rest polls job instances). */
const SCHEDULE_SHARE = 0.1;
const LIST_EVERY_MS = 3_600_000;
const SCHEDULE_EVERY_MS = 12 * 3_600_000;
const RECENT_MS = 24 * 3_600_000;
const MAX_INSTANCE_PAGES = 5;
const LISTED_KEY = 'listed';
/** The run budget's carried credit (PacedBudget). */
const PACE_KEY = 'pace';
const ITEM_PREFIX = 'item:';

/** The scheduler's job type per item kind; the job type of a seen instance wins. */
const DEFAULT_JOB_TYPE: Record<string, string> = {
  DataPipeline: 'Pipeline',
  Notebook: 'RunNotebook',
  SparkJobDefinition: 'sparkjob',
  Dataflow: 'Execute',
  CopyJob: 'CopyJob',
};

interface ItemMemory extends Omit<RunnableItem, 'id'> {
  jobType?: string;
  cursor?: JobCursor;
  failing?: boolean;
  /** Start of the newest instance seen (ISO). */
  lastRunAt?: string | null;
  scheduled?: boolean;
  scheduleCheckedAt?: string;
  /** The principal may not read this item's jobs (admin mode, not a workspace member); retried after the next listing. */
  denied?: boolean;
}

type Items = Map<string, ItemMemory>;

function remembered(state: Map<string, unknown>): Items {
  const out: Items = new Map();
  for (const [key, value] of state) if (key.startsWith(ITEM_PREFIX)) out.set(key.slice(ITEM_PREFIX.length), value as ItemMemory);
  return out;
}

function isHot(m: ItemMemory, now: Date): boolean {
  if (m.scheduled) return true;
  return !!m.lastRunAt && now.getTime() - Date.parse(m.lastRunAt) < RECENT_MS;
}

function jobTypeOf(m: ItemMemory): string {
  return m.jobType || DEFAULT_JOB_TYPE[m.type] || 'DefaultJob';
}

function itemPath(id: string, m: ItemMemory): string {
  return `/workspaces/${encodeURIComponent(m.workspaceId)}/items/${encodeURIComponent(id)}`;
}

/** Whether the item has an enabled schedule of its job type; pages read are added to `spent`. */
async function readScheduled(client: PlatformClient, id: string, m: ItemMemory, spent: CallBudget): Promise<boolean> {
  const url = client.fabric(`${itemPath(id, m)}/jobs/${encodeURIComponent(jobTypeOf(m))}/schedules`);
  let enabled = false;
  for await (const page of client.fabricPages<{ enabled?: boolean }>({ family: 'fabric', audience: 'fabric', url })) {
    spent.charge(1);
    if (page.some((s) => s.enabled === true)) enabled = true;
  }
  return enabled;
}

async function readInstances(client: PlatformClient, id: string, m: ItemMemory, spent: CallBudget): Promise<JobInstance[]> {
  const out: JobInstance[] = [];
  let pages = 0;
  for await (const page of client.fabricPages<JobInstance>({ family: 'fabric', audience: 'fabric', url: client.fabric(`${itemPath(id, m)}/jobs/instances`) })) {
    spent.charge(1);
    out.push(...page.filter((i) => typeof i?.id === 'string' && i.id !== ''));
    // ~100 runs are kept; a few pages cover them, and the newest come first.
    if (++pages >= MAX_INSTANCE_PAGES) break;
  }
  return out;
}

function occurredAt(i: JobInstance, now: Date): Date {
  const t = Date.parse(i.endTimeUtc ?? i.startTimeUtc ?? '');
  return Number.isFinite(t) && t <= now.getTime() ? new Date(t) : now;
}

function base(id: string, m: ItemMemory) {
  return {
    sourceType: JOB_SOURCE_TYPE,
    sourceId: id,
    sourceName: m.name,
    notificationKind: JOB_FAILED_KIND,
    severity: 'error' as const,
    workspaceName: m.workspaceName,
    capacityName: m.capacityName,
  };
}

function failureText(i: JobInstance): string {
  const code = i.failureReason?.errorCode || 'UnknownError';
  const message = (i.failureReason?.message ?? '').trim();
  return message ? `${code}: ${message}` : code;
}

/** The signals of one item's new results, in order; `m.failing` follows them. */
function resultSignals(id: string, m: ItemMemory, results: JobInstance[], roots: OpenRootCauses, now: Date): SignalInput[] {
  const out: SignalInput[] = [];
  for (const r of results) {
    if (r.status === 'Failed') {
      out.push({
        ...base(id, m),
        kind: 'failure',
        occurredAt: occurredAt(r, now),
        ...T.jobFailed(m.type, m.name, m.workspaceName, failureText(r)),
        causes: causesOf(roots, { capacityId: m.capacityId }),
      });
      m.failing = true;
    } else if (r.status === 'Completed' && m.failing) {
      out.push({ ...base(id, m), kind: 'recovery', occurredAt: occurredAt(r, now), ...T.jobSucceeded(m.type, m.name) });
      m.failing = false;
    }
  }
  return out;
}

/** An item no longer listed: its incident, if open, recovers. */
function goneSignals(id: string, m: ItemMemory, now: Date): SignalInput[] {
  if (!m.failing) return [];
  return [{ ...base(id, m), kind: 'recovery', occurredAt: now, ...T.jobGone(m.type, m.name) }];
}

/** The hourly listing: items placed (and kept in the lineage), vanished ones forgotten with their incidents. */
async function relist(client: PlatformClient, tenant: TenantRow, items: Map<string, ItemMemory>, spent: PacedBudget, out: { signals: SignalInput[]; changes: StateChange[]; lineage: LineageChanges }, now: Date): Promise<void> {
  const listing = await listRunnableItems(client, tenant);
  spent.charge(listing.fabricCalls);
  const seen = new Set<string>();
  for (const { id, ...placement } of listing.items) {
    seen.add(id);
    // Unchanged items keep the same JSON (no write); a refusal is retried after each list.
    const next: ItemMemory = { ...items.get(id), ...placement };
    delete next.denied;
    items.set(id, next);
  }
  const gone = [...items.keys()].filter((id) => !seen.has(id));
  for (const id of gone) {
    out.signals.push(...goneSignals(id, items.get(id)!, now));
    items.delete(id);
    out.changes.push({ key: ITEM_PREFIX + id, value: null });
  }
  out.lineage.placements = listing.items.map((i) => ({ itemId: i.id, itemType: i.type, itemName: i.name, workspaceId: i.workspaceId, capacityId: i.capacityId }));
  out.lineage.forget = gone;
  out.changes.push({ key: LISTED_KEY, value: { at: now.toISOString() } });
}

/** Schedules never read, then the oldest reads, at most `count`; an item whose schedule is refused is not watched. */
async function readDueSchedules(client: PlatformClient, watched: [string, ItemMemory][], count: number, spent: PacedBudget, now: Date): Promise<void> {
  const due = watched
    .filter(([, m]) => !m.scheduleCheckedAt || now.getTime() - Date.parse(m.scheduleCheckedAt) >= SCHEDULE_EVERY_MS)
    .sort(([a, x], [b, y]) => (x.scheduleCheckedAt ?? '').localeCompare(y.scheduleCheckedAt ?? '') || a.localeCompare(b))
    .slice(0, count);
  await inPool(due, async ([id, m]) => {
    try {
      m.scheduled = await readScheduled(client, id, m, spent);
    } catch (err) {
      if (!isResourceRefusal(err)) throw err;
      spent.charge(1);
      m.scheduled = false;
      m.denied = true;
    }
    m.scheduleCheckedAt = now.toISOString();
  });
}

export const jobsCollector: Collector = {
  name: 'jobs',
  async run({ ctx, tenant, client, state, reader, commit, intervalSeconds, reportProgress }) {
    const now = ctx.clock.now();
    const budget = runBudget(HOURLY_CAPS.fabric, JOBS_SHARE, intervalSeconds);
    // One paced budget pays every Fabric call: the hourly listing (one call per workspace in
    // member mode) waits for a run with credit, and what it took beyond the run's share is paid
    // back by the next runs' polls.
    const spent = new PacedBudget(HOURLY_CAPS.fabric * JOBS_SHARE, intervalSeconds, state.get(PACE_KEY) as PaceState | undefined, now);
    const items = remembered(state);
    const before = new Map([...items].map(([id, m]) => [id, JSON.stringify(m)]));
    const signals: SignalInput[] = [];
    const changes: StateChange[] = [];
    const lineage: LineageChanges = {};

    // 1. The item list, hourly: placements into the lineage, vanished items forgotten.
    const listed = state.get(LISTED_KEY) as { at: string } | undefined;
    if (!listed || (now.getTime() - Date.parse(listed.at) >= LIST_EVERY_MS && spent.left > 0)) await relist(client, tenant, items, spent, { signals, changes, lineage }, now);

    // 2. Schedules, on a slow cadence: never read first, then the oldest reads.
    const watched = [...items].filter(([, m]) => !m.denied);
    await readDueSchedules(client, watched, Math.min(Math.max(1, Math.floor(budget * SCHEDULE_SHARE)), spent.left), spent, now);

    // 3. Job instances: the hot items every run, the others in turns (and the hot ones too when
    // they alone exceed the budget: rotation.ts keeps a floor for the others).
    const pollable = watched.filter(([, m]) => !m.denied);
    const pick = pickForRun(
      pollable,
      { key: ([id]) => id, isHot: ([, m]) => isHot(m, now), budget: spent.left, state: state.get(ROTATION_KEY) as RotationState | undefined, now },
    );
    const polled: { id: string; m: ItemMemory; results: JobInstance[] }[] = [];
    const reached = new Set<string>();
    await inPool(pick.poll, async ([id, m]) => {
      let instances: JobInstance[];
      try {
        instances = await readInstances(client, id, m, spent);
      } catch (err) {
        if (!isResourceRefusal(err)) throw err;
        m.denied = true;
        reached.add(id);
        return;
      }
      reached.add(id);
      const { results, cursor } = newResults(instances, m.cursor);
      m.cursor = cursor;
      m.lastRunAt = lastStart(instances) ?? m.lastRunAt ?? null;
      if (instances[0]?.jobType) m.jobType = instances[0].jobType;
      polled.push({ id, m, results });
    });
    const failing = polled.some((p) => p.results.some((r) => r.status === 'Failed'));
    const roots = failing ? await openRootCauses(reader, tenant.org_id) : { gateways: new Set<string>(), capacities: new Set<string>() };
    for (const p of polled.sort((a, b) => a.id.localeCompare(b.id))) signals.push(...resultSignals(p.id, p.m, p.results, roots, now));

    for (const [id, m] of items) if (before.get(id) !== JSON.stringify(m)) changes.push({ key: ITEM_PREFIX + id, value: m });
    changes.push({ key: ROTATION_KEY, value: pick.next });
    changes.push({ key: PACE_KEY, value: spent.pace() });
    reportProgress(progressOf(pollable, ([, m]) => isHot(m, now), ([id]) => reached.has(id)));
    await commit(signals, changes, lineage);
  },
  releaseOnly: [{ prefix: ITEM_PREFIX, flag: 'failing' }],
  releaseAll(state, now) {
    return [...remembered(state)].flatMap(([id, m]) => goneSignals(id, m, now));
  },
};

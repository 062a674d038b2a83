/**
 * activity — what changed in the tenant, from its activity log (admin mode; `GET
 * /v1.0/myorg/admin/activityevents`, documented cap 200 requests an hour per tenant). Each run
 * continues a pass over the log: windows inside one UTC day (activity-windows.ts), every
 * `continuationUri` followed until it is null or `lastResultSet` is true, each pass starting 60
 * minutes before the end of the last because events arrive late. Calls are taken from a paced
 * budget on Vigia's share of the endpoint's cap (lowered for an hour after a 429); where a run
 * stops — its budget, the hour's share, a 429 — the pass (window and continuation) is in the
 * collector's state, committed with the changes read, so the next run (or the next process)
 * resumes there. Only change activities are kept (activity-catalog.ts), de-duplicated by record
 * id, in `tenant_changes` (src/monitoring/changes/store.ts) for the connection's
 * `changeRetentionDays`. Malformed records, a page without its array and a window the platform
 * refuses (400) are skipped and counted (rejected-rows.ts); the pass goes on.
 * In member mode the log cannot be read: the collector makes no call (the check says why).
 */
import { createHash } from 'node:crypto';
import { changesArrived } from '../../changes/arrive.js';
import type { TenantChange } from '../../changes/store.js';
import type { Collector, CollectorRun } from '../../engine/collector.js';
import { REJECTED_KEY, rejectedRelease, rejectedStep, type RejectedMemory } from '../../engine/rejected-rows.js';
import { BudgetExhaustedError } from '../../platform/budget.js';
import { EndpointThrottledError, VendorAnswerError, VendorHttpError } from '../../platform/platform-client.js';
import { PacedBudget, RunBudgetSpent, type PaceState } from '../../platform/run-budget.js';
import { RejectedRows } from '../utilization/figure-checks.js';
import { countUnknownObjects } from './activity-known.js';
import { readRecord } from './activity-records.js';
import { newPass, type Pass, windowOf, windowUrl } from './activity-windows.js';

export const ACTIVITY_KEY = 'powerbi-admin:activityevents';
const CURSOR_KEY = 'cursor';
const DAY_MS = 86_400_000;

/** What the collector remembers between runs. */
export interface ActivityCursor {
  /** The end of the last complete pass (ISO); null before the first. */
  readTo: string | null;
  /** The pass under way, or null. */
  pass: Pass | null;
  pace: PaceState | null;
  /** Records of the last run that were not changes (views, exports…), for the status. */
  ignored?: number;
  /** Changes of the last run to an object the connection's lineage does not know (kept all the same). */
  unknownObjects?: number;
  /** Digests of the malformed records the last run met: the next pass re-reads them and does not count them again. */
  rejects?: string[];
}

/** Malformed records remembered from one run to the next (the overlap re-reads them), at most this many. */
const REJECTS_KEPT = 1_000;

/** What one run read. */
class Reading {
  readonly changes = new Map<string, TenantChange>();
  readonly rejected = new RejectedRows();
  /** Malformed records this run met (by a digest of the record), to count each once across the overlapping passes. */
  readonly rejects = new Set<string>();
  ignored = 0;

  constructor(private readonly rejectedBefore: ReadonlySet<string>) {}

  /** A malformed record: skipped always, counted only the first time a pass meets it. */
  rejectRecord(record: unknown, reason: string): void {
    const key = createHash('sha256').update(JSON.stringify(record) ?? 'undefined').digest('base64url').slice(0, 22);
    if (!this.rejectedBefore.has(key) && !this.rejects.has(key)) this.rejected.add(reason);
    if (this.rejects.size < REJECTS_KEPT) this.rejects.add(key);
  }
  /** The run stopped for the hour's share or a 429 (not only its own budget). */
  hourSpent = false;
}

interface Page {
  activityEventEntities?: unknown;
  continuationUri?: unknown;
  lastResultSet?: unknown;
}

/** The continuation to follow, or null at the end of the window; a link to another origin is refused. */
function nextOf(page: Page, base: string, reading: Reading): string | null {
  if (page.lastResultSet === true) return null;
  const next = page.continuationUri;
  if (typeof next !== 'string' || next === '') return null;
  try {
    if (new URL(next).origin === new URL(base).origin) return next;
  } catch {
    // not a URL: refused below
  }
  reading.rejected.add('a continuationUri to another origin or not a URL (window ended there)');
  return null;
}

/** Reads the pass to its end (or throws when the budget ends first); `pass` is advanced in place. */
async function readPass(run: CollectorRun, pass: Pass, budget: PacedBudget, reading: Reading): Promise<void> {
  const base = run.client.powerBi('/admin/activityevents');
  for (let w = windowOf(pass); w; w = windowOf(pass)) {
    budget.take();
    let page: Page | null;
    try {
      page = await run.client.json<Page>({ family: 'powerbi-admin', audience: 'powerbi', url: pass.next ?? windowUrl(base, w) });
    } catch (err) {
      // A window the platform refuses (one that crosses a UTC day, a day older than it keeps), or
      // a page that is not JSON: the rest of the window is skipped and counted, the pass goes on.
      if (err instanceof VendorHttpError && err.status === 400) {
        reading.rejected.add(`the platform refused the window ${w.start.toISOString()}–${w.end.toISOString()} (400${err.code ? ` ${err.code}` : ''})`);
      } else if (err instanceof VendorAnswerError) {
        reading.rejected.add(`an unusable page in the window ${w.start.toISOString()}–${w.end.toISOString()} (${err.message})`);
      } else throw err;
      page = { lastResultSet: true };
    }
    const records = page?.activityEventEntities;
    if (page !== null && records !== undefined && !Array.isArray(records)) reading.rejected.add('a page whose activityEventEntities is not an array');
    for (const record of Array.isArray(records) ? records : []) {
      const verdict = readRecord(record);
      reading.rejected.read++;
      if ('keep' in verdict) reading.changes.set(verdict.keep.recordId, verdict.keep);
      else if ('reject' in verdict) reading.rejectRecord(record, verdict.reject);
      else reading.ignored++;
    }
    const next = page ? nextOf(page, base, reading) : null;
    pass.next = next;
    if (!next) pass.at = w.after.toISOString();
  }
}

/** A run that stops for its budget or the hour's share keeps its pass; any other failure is the run's. */
function stopsForTheHour(err: unknown, reading: Reading): void {
  if (err instanceof BudgetExhaustedError || err instanceof EndpointThrottledError) reading.hourSpent = true;
  else if (!(err instanceof RunBudgetSpent)) throw err;
}

export const activityCollector: Collector = {
  name: 'activity',
  async run(run) {
    const { ctx, tenant, client, state, write, commit } = run;
    // Member mode cannot read the log (admin API): nothing to call; the tenant's check says so.
    if (tenant.mode !== 'admin') return commit([], []);
    const now = ctx.clock.now();
    const prev = (state.get(CURSOR_KEY) as ActivityCursor | undefined) ?? { readTo: null, pass: null, pace: null };
    const pass: Pass = prev.pass ? { ...prev.pass } : newPass(prev.readTo, now);
    const budget = new PacedBudget(await client.allowedPerHour(ACTIVITY_KEY), run.intervalSeconds, prev.pace ?? undefined, now);
    const reading = new Reading(new Set(prev.rejects ?? []));
    let done = false;
    try {
      await readPass(run, pass, budget, reading);
      done = true;
    } catch (err) {
      stopsForTheHour(err, reading);
    }
    const changes = [...reading.changes.values()];
    const unknownObjects = await countUnknownObjects(run.reader, tenant.id, changes);
    const cursor: ActivityCursor = { readTo: done ? pass.to : prev.readTo, pass: done ? null : pass, pace: budget.pace(), ignored: reading.ignored, unknownObjects, rejects: [...reading.rejects] };
    const before = new Date(now.getTime() - tenant.change_retention_days * DAY_MS);
    write(async (q) => {
      await changesArrived(q, { orgId: tenant.org_id, tenantRef: tenant.id, changes, receivedAt: now, keepFrom: before });
    });
    const rejected = { count: reading.rejected.count, note: reading.rejected.note() };
    const step = rejectedStep(state.get(REJECTED_KEY) as RejectedMemory | undefined, rejected, 'activity', tenant, now);
    // A pass left for later because the hour's share is spent is behind; one left for the run's own budget is paced.
    run.reportProgress({ polled: reading.rejected.read, deferred: done || !reading.hourSpent ? 0 : 1, rejected: rejected.count, rejectedNote: rejected.note });
    await commit(step.signals, [{ key: CURSOR_KEY, value: cursor }, ...step.changes]);
  },
  releaseAll(state, now) {
    return rejectedRelease(state, 'activity', now);
  },
};

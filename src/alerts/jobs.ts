import type { BackgroundJob } from '../background-job.js';
import type { AppContext } from '../context.js';
import type { RecordedEvent } from './events.js';
import { escalateDue } from './escalation.js';
import { releaseDue } from './release.js';
import { txWithRetry } from '../db/retry.js';
import { compactAlertMetrics } from './metrics-rollup.js';
import { compactAlertCounts } from './rollup.js';

type JobCtx = Pick<AppContext, 'db' | 'clock' | 'config'>;

/** Every 5 s, so an escalation fires well within 15 s of becoming due (the documented bound, docs/alerts.md). */
export const ALERT_JOB_INTERVAL_MS = 5_000;

/** One escalation pass (all organizations); batches until nothing is due. */
export async function runEscalationPass(ctx: JobCtx): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (;;) {
    const now = ctx.clock.now();
    const batch = await txWithRetry(ctx.db, (q) => escalateDue(q, ctx.config.baseUrl, now));
    all.push(...batch);
    if (batch.length < 500) return all;
  }
}

/** One release pass: incidents whose silence ended or whose causes resolved. */
export async function runReleasePass(ctx: JobCtx): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (;;) {
    const now = ctx.clock.now();
    const batch = await txWithRetry(ctx.db, (q) => releaseDue(q, ctx.config.baseUrl, now));
    all.push(...batch);
    if (batch.length < 500) return all;
  }
}

/**
 * Folds the count rollup's pending deltas (written by the alerts triggers, migration 031) for
 * every organization that has any, so the rollup stays small even for an organization that
 * never lists its alerts. Returns how many organizations were compacted.
 */
export async function runRollupCompactionPass(ctx: Pick<AppContext, 'db'>): Promise<number> {
  const { rows } = await ctx.db.query<{ org_id: string }>(
    `SELECT DISTINCT org_id FROM alert_counts WHERE pending
     UNION SELECT DISTINCT org_id FROM alert_counts_daily WHERE pending`,
  );
  let done = 0;
  for (const { org_id } of rows) if (await compactAlertCounts(ctx.db, org_id)) done++;
  // The metrics rollup (migration 070) is folded the same way; it counts toward `done` only
  // for organizations the count rollup did not already list.
  const metrics = await ctx.db.query<{ org_id: string }>(
    `SELECT DISTINCT org_id FROM alert_metrics_rollup WHERE pending
     UNION SELECT DISTINCT org_id FROM alert_durations_rollup WHERE pending`,
  );
  const counted = new Set(rows.map((r) => r.org_id));
  for (const { org_id } of metrics.rows) if ((await compactAlertMetrics(ctx.db, org_id)) && !counted.has(org_id)) done++;
  return done;
}

/** The rollup is compacted every this many job ticks (12 × 5 s = once a minute). */
const COMPACTION_EVERY_TICKS = 12;

/**
 * Periodic alert work: release first (a released incident can then escalate on a later pass),
 * then escalation. Passes never overlap in one process; stop() waits for the one in flight.
 */
export async function startAlertJobs(ctx: AppContext): Promise<BackgroundJob> {
  let stopped = false;
  let running = false;
  let inFlight: Promise<void> = Promise.resolve();
  let ticks = 0;
  const tick = async (): Promise<void> => {
    try {
      await runReleasePass(ctx);
      await runEscalationPass(ctx);
      if (ticks++ % COMPACTION_EVERY_TICKS === 0) await runRollupCompactionPass(ctx);
    } catch (err) {
      ctx.log.error({ err }, 'alert job pass failed');
    }
  };
  const timer = setInterval(() => {
    // A slow pass is not stacked up behind: the next tick simply skips.
    if (stopped || running) return;
    running = true;
    inFlight = tick().finally(() => {
      running = false;
    });
  }, ALERT_JOB_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await inFlight;
    },
  };
}

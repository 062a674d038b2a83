/**
 * The end of a collector run: its schedule row records the run (duration, calls, throttled
 * calls, error), the self-watch problem and the collector-behind count, moves to the next
 * interval, and the self-watch transitions are signalled — in one transaction, fenced by the
 * run's lease.
 */
import { errorCodeOf } from '../messages/errors.js';
import type { AppContext } from '../../context.js';
import { txWithRetry } from '../../db/retry.js';
import type { SignalInput } from '../../alerts/signals.js';
import type { TenantRow } from '../connection/tenant-row.js';
import { collectorBehindDetail, collectorCaughtUp } from '../messages/titles.js';
import type { RunStats } from '../platform/platform-client.js';
import { behindStep, collectorBehindSignal, type RunProgress } from './collector-behind.js';
import type { ClaimedRow } from './lease.js';
import { applySignalsIn } from './output.js';
import { opensAtOnce, problemCause, problemDetail, problemOf, tenantSignal, type TenantProblem } from './self-watch.js';

export interface RunOutcome {
  row: ClaimedRow;
  tenant: TenantRow;
  startedAt: Date;
  durationMs: number;
  stats: RunStats;
  error: unknown;
  progress: RunProgress | null;
}

/** The text kept as `lastError` and in Tenant incidents: our own messages, never a credential. */
export function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.slice(0, 1000);
}

/** Once per interval from the slot it was due at; after a pause, from this run (missed runs are not caught up). */
function nextRunAt(row: ClaimedRow, startedAt: Date, intervalSeconds: number): Date {
  const intervalMs = intervalSeconds * 1000;
  let nextMs = new Date(row.next_run_at).getTime() + intervalMs;
  if (nextMs < startedAt.getTime()) nextMs = startedAt.getTime() + intervalMs;
  return new Date(nextMs);
}

/** The self-watch problem the schedule row keeps after a run, and the signals it calls for. */
interface ProblemStep {
  kind: TenantProblem | null;
  since: Date | null;
  reported: boolean;
  cause: string | null;
  /** Open the incident now (a failure signal). */
  open: boolean;
  /** The open incident's failure changed its cause: restate its message. */
  restate: boolean;
  /** The run succeeded and had reported a problem: it recovers unless another collector still has it. */
  recover: boolean;
}

/**
 * An open problem (reported) ends only with a run that succeeds. A run that fails otherwise
 * keeps it — with another cause, or even another problem, the open incident's message is
 * restated with what the run met (the cause is written into the open incident), never
 * recovered: nothing recovered. A failure that is no self-watch problem leaves it as it is.
 */
export function problemStep(row: Pick<ClaimedRow, 'problem_kind' | 'problem_since' | 'problem_reported' | 'problem_cause' | 'interval_seconds'>, error: unknown, startedAt: Date, end: Date): ProblemStep {
  const none = { kind: null, since: null, reported: false, cause: null, open: false, restate: false };
  if (!error) return { ...none, recover: row.problem_kind !== null && row.problem_reported };
  const problem = problemOf(error);
  if (row.problem_kind && row.problem_reported) {
    const keep = { kind: row.problem_kind, since: row.problem_since, reported: true, open: false, recover: false };
    if (!problem) return { ...keep, cause: row.problem_cause, restate: false };
    const cause = problemCause(error);
    return { ...keep, cause, restate: cause !== row.problem_cause };
  }
  if (!problem) return { ...none, recover: false };
  const cause = problemCause(error);
  const since = row.problem_kind === problem ? row.problem_since! : startedAt;
  const open = opensAtOnce(problem, cause) || end.getTime() - new Date(since).getTime() > 2 * row.interval_seconds * 1000;
  return { kind: problem, since, reported: open, cause, open, restate: false, recover: false };
}

/** Records the run on its schedule row and signals the self-watch transitions, in one transaction. */
export async function recordRun(ctx: AppContext, run: RunOutcome): Promise<void> {
  const { row, tenant, startedAt, durationMs, stats, error, progress } = run;
  const end = ctx.clock.now();
  const message = error ? errorText(error) : null;
  // The same failure as a code and its facts: the console and the CLI say it in their language (messages/errors.ts).
  const coded = error ? errorCodeOf(error) : null;
  const step = problemStep(row, error, startedAt, end);
  const runSignals: SignalInput[] = [];
  if (step.open || step.restate) {
    const failure = tenantSignal('failure', step.kind!, tenant, problemDetail(error, row.collector), end);
    runSignals.push(step.restate ? { ...failure, restatesMessage: true } : failure);
  }
  // The interval its budget honours (collector-behind.ts): the next run is that far away, and being behind is measured against it.
  const intervalSeconds = Math.max(row.interval_seconds, progress?.effectiveIntervalSeconds ?? 0);
  const behind = behindStep({ since: row.behind_since, runs: row.behind_runs, reported: row.behind_reported }, progress, error !== null, startedAt, end, intervalSeconds);
  if (behind.raise) {
    const detail = collectorBehindDetail(row.collector, progress!.deferred, progress!.polled, behind.next.runs, new Date(behind.next.since!).toISOString());
    runSignals.push(collectorBehindSignal('failure', row.collector, tenant, detail, end));
  }
  const next = nextRunAt(row, startedAt, intervalSeconds);
  await txWithRetry(ctx.db, async (q) => {
    const { rows } = await q.query(
      `UPDATE collector_schedules SET locked_until = NULL, locked_by = NULL, last_run_at = $4,
         last_success_at = CASE WHEN $5::boolean THEN $6 ELSE last_success_at END,
         last_duration_ms = $7, last_calls = $8, last_throttled_calls = $9, last_error = $10,
         next_run_at = CASE WHEN next_run_at <> $11 THEN next_run_at ELSE $12 END,
         problem_kind = $13, problem_since = $14, problem_reported = $15, problem_cause = $22,
         last_polled = CASE WHEN $16::boolean THEN $17 ELSE last_polled END,
         last_deferred = CASE WHEN $16::boolean THEN $18 ELSE last_deferred END,
         behind_since = $19, behind_runs = $20, behind_reported = $21, last_rejected = $23, last_rejected_note = $24,
         last_error_code = $25, last_error_params = $26::jsonb
       WHERE tenant_ref = $1 AND collector = $2 AND locked_by = $3 AND locked_until > clock_timestamp() RETURNING tenant_ref`,
      [
        row.tenant_ref, row.collector, row.locked_by, startedAt, !error, end, durationMs, stats.calls, stats.throttledCalls,
        message, row.next_run_at, next, step.kind, step.since, step.reported,
        progress !== null, progress?.polled ?? null, progress?.deferred ?? null, behind.next.since, behind.next.runs, behind.next.reported, step.cause,
        progress?.rejected ?? null, progress?.rejectedNote ?? null,
        coded?.code ?? null, coded ? JSON.stringify(coded.params) : null,
      ],
    );
    if (rows.length === 0) return; // the lease was lost (or the tenant deleted): the row is not this run's to record
    const signals = [...runSignals]; // afresh on each attempt: a rolled-back attempt's recoveries would apply twice
    if (step.recover) {
      const others = await q.query('SELECT 1 FROM collector_schedules WHERE tenant_ref = $1 AND problem_kind = $2 AND problem_reported AND enabled LIMIT 1', [
        row.tenant_ref,
        row.problem_kind,
      ]);
      if (others.rows.length === 0) signals.push(tenantSignal('recovery', row.problem_kind!, tenant, `${row.collector} works again`, end));
    }
    if (behind.caughtUp) {
      const others = await q.query('SELECT 1 FROM collector_schedules WHERE tenant_ref = $1 AND behind_reported AND enabled LIMIT 1', [row.tenant_ref]);
      if (others.rows.length === 0) signals.push(collectorBehindSignal('recovery', row.collector, tenant, collectorCaughtUp(row.collector), end));
    }
    await applySignalsIn(q, ctx, tenant.org_id, signals, end);
  });
}

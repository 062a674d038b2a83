/**
 * The delivery worker: a claim/timer loop around three parts.
 *   HeldRows      (held-rows.ts)      — the rows this worker leased, ready or running, and its bounds;
 *   runHeldRow    (attempt-runner.ts) — one attempt through the guarded client;
 *   OutcomeWriter (outcome-writer.ts) — finished attempts written back through the outbox in batches.
 * The loop claims due rows (outbox claim: SKIP LOCKED, lease, per-organization budget shared by
 * all instances) while there is room, then sets a timer for the earliest due row. It wakes on
 * NOTIFY (new or released rows), on that timer, when enough slots free up, and on a slow safety
 * poll. Any number of workers may share a database: SKIP LOCKED and leases keep them apart; a
 * crashed worker's rows come back when its lease ends (at worst a second send with the same
 * Idempotency-Key).
 */
import type { AppContext } from '../context.js';
import { newId } from '../ids.js';
import { claimDue, cycleStart, nextDueTime, onDeliveriesDue, paceRateLimitedRows, releaseLeases, type ClaimedRow } from '../outbox/index.js';
import { runHeldRow, type AttemptRunnerDeps } from './attempt-runner.js';
import { createGuardedSend, type GuardedSend } from './guarded-http.js';
import { HeldRows } from './held-rows.js';
import { OutcomeWriter } from './outcome-writer.js';
import { maxAttempts } from './retry-policy.js';
import { openWorkerDb } from './worker-db.js';

export interface Worker {
  stop(): Promise<void>;
}

export interface DispatcherOptions {
  /** Attempts in flight in this worker at once. */
  maxInFlight?: number;
  /** Attempts in flight per destination in this worker at once. */
  perDestination?: number;
  /**
   * Leased rows kept ready beyond the attempts in flight (default half of maxInFlight), so a
   * freed slot starts its next attempt at once instead of waiting for a claim round trip. They
   * are leased like rows in flight; a graceful stop gives back the ones never started.
   */
  prefetch?: number;
  /** Rows written back per batch at most. */
  writeBatch?: number;
  /** Longest sleep without a wake-up, as a safety net (ms). */
  idlePollMs?: number;
  send?: GuardedSend;
}

export interface Dispatcher extends Worker {
  readonly workerId: string;
  /** Look for due work now (tests with a ManualClock call it after moving time). */
  poke(): void;
  /** Resolves when no attempt is in flight and no outcome waits to be written. */
  idle(): Promise<void>;
  /**
   * One full pass: claim what is due now, send it, write the outcomes. Resolves when that work
   * is done — a test can then assert that nothing (more) happened without sleeping.
   */
  pass(): Promise<void>;
}

/** The loop's mode: `running` claims and sends; `stopping` only lets work in flight finish. */
type LoopMode = 'running' | 'stopping';

/** Retry a failed claim pass after this long. */
const PASS_RETRY_MS = 1_000;
/** Due rows exist that we could not take (their destination is busy elsewhere): poll this often. */
const BUSY_POLL_MS = 250;

export async function startDispatcher(ctx: AppContext, opts: DispatcherOptions = {}): Promise<Dispatcher> {
  const workerId = newId('wrk');
  const maxInFlight = opts.maxInFlight ?? 64;
  const perDestination = opts.perDestination ?? 16;
  const idlePollMs = opts.idlePollMs ?? 15_000;
  const held = new HeldRows({ maxInFlight, perDestination, prefetch: Math.max(0, opts.prefetch ?? Math.floor(maxInFlight / 2)) });
  const refillAt = Math.max(1, Math.floor(maxInFlight / 4));
  const destRefill = Math.max(1, Math.floor(perDestination / 4));
  const send = opts.send ?? createGuardedSend(ctx);
  const log = ctx.log.child({ component: 'dispatcher', workerId });
  const db = openWorkerDb(ctx);
  const runner: AttemptRunnerDeps = {
    ctx,
    db,
    send,
    log,
    workerId,
    // A lease outlives every call a delivery can make (connectors may make a few) plus margin.
    leaseMs: ctx.config.deliveryTimeoutMs * 4 + 5_000,
    attemptBudget: maxAttempts(ctx.config.retryScheduleMs),
  };
  const writer = new OutcomeWriter({
    db,
    log,
    workerId,
    scheduleMs: ctx.config.retryScheduleMs,
    autoDisableAfterMs: ctx.config.autoDisableAfterMs,
    now: () => ctx.clock.now(),
    batchSize: opts.writeBatch ?? 200,
    onRetryScheduled: () => wake(),
  });

  let mode: LoopMode = 'running';
  /** The claim loop in progress, and whether it must run once more when it ends. */
  let pumping: Promise<void> | null = null;
  let pumpAgain = false;
  /** The last claim left due rows behind (bound, cap or capacity): a freed slot should claim. */
  let backlog = false;
  let timer: NodeJS.Timeout | undefined;
  const running = new Set<Promise<void>>();

  /** Resolves when no attempt runs and no outcome waits to be written (checked again after each wait). */
  const idle = async (): Promise<void> => {
    while (running.size > 0 || !writer.idle) {
      await Promise.all([...running]);
      await writer.drained();
    }
  };

  function setTimer(ms: number): void {
    if (mode !== 'running') return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void wake(), Math.max(0, Math.min(ms, idlePollMs)));
  }

  /** Starts the claim loop, or asks the running one to go round once more. Resolves when it ends. */
  function wake(): Promise<void> {
    if (mode !== 'running') return Promise.resolve();
    if (pumping) {
      pumpAgain = true;
      return pumping;
    }
    pumping = (async () => {
      do {
        pumpAgain = false;
        await claimPass();
      } while (pumpAgain && mode === 'running');
    })().finally(() => {
      pumping = null;
    });
    return pumping;
  }

  /** Claims until there is no room or nothing is due, then sets the timer for the next due row. */
  async function claimPass(): Promise<void> {
    try {
      const capped = await claimWhileRoom();
      if (mode === 'running' && held.room > 0) await scheduleNextDue(capped);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'dispatch pass failed; retrying');
      setTimer(PASS_RETRY_MS);
    }
  }

  /** Returns whether some organization hit its cap. */
  async function claimWhileRoom(): Promise<boolean> {
    let capped = false;
    while (mode === 'running' && held.room > 0) {
      const limit = held.room;
      const now = ctx.clock.now();
      const { busy, partial } = held.destinationSlots();
      const claim = await claimDue(db, {
        workerId,
        now,
        limit,
        leaseMs: runner.leaseMs,
        busyDestinations: busy,
        partialDestinations: partial,
        perDestination: held.destHold,
        cycleSeconds: ctx.config.cycleSeconds,
        orgCapPerCycle: ctx.config.orgCapPerCycle,
      });
      capped ||= claim.capped;
      backlog = claim.more;
      const cycle = cycleStart(now, ctx.config.cycleSeconds);
      // Rate-limited destinations: rows over their limit go back until their slot (separate step).
      const sendable = await paceRateLimitedRows(db, claim.rows, { workerId, now, cycle });
      for (const row of sendable) held.hold(row, cycle.getTime());
      startReady();
      // Fewer rows than asked for: nothing more is claimable now; skip an empty claim.
      if (claim.rows.length < limit) break;
    }
    return capped;
  }

  async function scheduleNextDue(capped: boolean): Promise<void> {
    const nowDate = ctx.clock.now();
    const cycle = cycleStart(nowDate, ctx.config.cycleSeconds);
    const due = await nextDueTime(db, cycle, ctx.config.orgCapPerCycle);
    const now = nowDate.getTime();
    let nextAt = due.next ? due.next.getTime() : now + idlePollMs;
    // An organization over its cap gets its turn back when the next cycle starts.
    if (due.capped || capped) nextAt = Math.min(nextAt, cycle.getTime() + ctx.config.cycleSeconds * 1000);
    // Due rows we could not take (their destination is at its bound): a completion wakes us;
    // poll slowly in case they belong to another worker's busy destination.
    setTimer(nextAt <= now ? BUSY_POLL_MS : nextAt - now + 5);
  }

  function startReady(): void {
    if (mode !== 'running') return;
    for (const { row, waitedMs } of held.startable()) {
      const p = runOne(row, waitedMs);
      running.add(p);
      void p.finally(() => running.delete(p));
    }
  }

  async function runOne(row: ClaimedRow, waitedMs: number): Promise<void> {
    try {
      const finished = await runHeldRow(runner, row, waitedMs);
      if (finished) writer.push(finished);
    } catch (err) {
      // performAttempt turns failures into outcomes; this is a bug guard: the lease brings the row back.
      log.error({ err: (err as Error).message, deliveryId: row.id }, 'attempt crashed; the row returns when its lease ends');
    } finally {
      const heldAtDest = held.finish(row);
      startReady();
      // Claim again once a useful number of slots is free (or the worker is idle), so a busy
      // worker claims in batches instead of one row per finished attempt.
      const free = held.room;
      if (backlog && (held.running === 0 || free % refillAt === 0 || (held.destHold - heldAtDest) % destRefill === 0)) void wake();
    }
  }

  /** Rows leased but never started go back at once: lease cleared, attempt count and budget restored. */
  async function giveBack(): Promise<void> {
    const rows = held.takeReady();
    if (rows.length === 0) return;
    const cycle = cycleStart(ctx.clock.now(), ctx.config.cycleSeconds);
    const refundable = rows.filter((r) => r.chargedCycle === cycle.getTime()).map((r) => r.row.id);
    try {
      await releaseLeases(db, rows.map((r) => r.row.id), refundable, workerId, cycle);
    } catch (err) {
      // The leases end on their own; those rows come back then (attempt counted once more).
      log.warn({ err: (err as Error).message, rows: rows.length }, 'giving back unstarted rows failed; their leases will expire');
    }
  }

  const unlisten = await onDeliveriesDue(ctx.db, () => void wake()).catch((err) => {
    log.warn({ err: (err as Error).message }, 'LISTEN unavailable; polling only');
    return async () => {};
  });

  void wake();

  return {
    workerId,
    poke: () => void wake(),
    idle,
    async pass() {
      await wake();
      await idle();
    },
    async stop() {
      if (mode === 'stopping') return;
      mode = 'stopping';
      writer.stopping();
      if (timer) clearTimeout(timer);
      await unlisten().catch(() => undefined);
      // Graceful: let the attempts in flight finish and their outcomes be written; rows leased
      // but never started are given back at once.
      await pumping;
      await giveBack();
      await idle();
      if (!opts.send) await send.close().catch(() => undefined);
      await db.close().catch(() => undefined);
    },
  };
}

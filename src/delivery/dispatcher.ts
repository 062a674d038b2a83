/**
 * The delivery worker: a claim/timer loop around three parts.
 *   HeldRows      (held-rows.ts)      — the rows this worker leased, ready or running, and its bounds;
 *   runHeldRow    (attempt-runner.ts) — one attempt through the guarded client;
 *   OutcomeWriter (outcome-writer.ts) — finished attempts written back through the outbox in batches.
 * The loop claims due rows (claim-pass.ts; outbox claim: SKIP LOCKED, lease, per-organization
 * budget shared by all instances) while there is room, then sets a timer for the earliest due row. It wakes on
 * NOTIFY (new or released rows), on that timer, when enough slots free up, and on a slow safety
 * poll. Any number of workers may share a database: SKIP LOCKED and leases keep them apart; a
 * crashed worker's rows come back when its lease ends (at worst a second send with the same
 * Idempotency-Key).
 */
import type { AppContext } from '../context.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { cycleStart, onDeliveriesDue, releaseLeases, type ClaimedRow } from '../outbox/index.js';
import { claimWhileRoom, nextWakeMs } from './claim-pass.js';
import { runHeldRow, type AttemptRunnerDeps } from './attempt-runner.js';
import { createGuardedSend, type GuardedSend } from './guarded-http.js';
import { closeDeliverers } from './deliverers.js';
import { HeldRows } from './held-rows.js';
import { OutcomeWriter } from './outcome-writer.js';
import { maxAttempts } from './retry-policy.js';
import { RESCUE_EVERY_MS, rescueStrandedWaiting } from './rescuer.js';
import { openWorkerDb, type WorkerDb } from './worker-db.js';

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
  /** How often the rescuer of stranded held connector events runs (ms; it also runs at start). */
  rescueEveryMs?: number;
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

class DispatchLoop implements Dispatcher {
  readonly workerId = newId('wrk');
  private mode: LoopMode = 'running';
  /** The claim loop in progress, and whether it must go round once more when it ends. */
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  /** The last claim left due rows behind (bound, cap or capacity): a freed slot should claim. */
  private backlog = false;
  private timer: NodeJS.Timeout | undefined;
  private rescueTimer: NodeJS.Timeout | undefined;
  private rescuing: Promise<void> = Promise.resolve();
  private readonly running = new Set<Promise<void>>();
  private unlisten: () => Promise<void> = async () => {};

  private readonly held: HeldRows;
  private readonly writer: OutcomeWriter;
  private readonly runner: AttemptRunnerDeps;
  private readonly log: Logger;
  private readonly db: WorkerDb;
  private readonly idlePollMs: number;
  /** Claim again after this many free slots overall, or at one destination (batches, not one row per attempt). */
  private readonly refillAt: number;
  private readonly destRefill: number;

  constructor(
    private readonly ctx: AppContext,
    private readonly opts: DispatcherOptions,
  ) {
    const maxInFlight = opts.maxInFlight ?? 64;
    const perDestination = opts.perDestination ?? 16;
    this.idlePollMs = opts.idlePollMs ?? 15_000;
    this.held = new HeldRows({ maxInFlight, perDestination, prefetch: Math.max(0, opts.prefetch ?? Math.floor(maxInFlight / 2)) });
    this.refillAt = Math.max(1, Math.floor(maxInFlight / 4));
    this.destRefill = Math.max(1, Math.floor(perDestination / 4));
    this.log = ctx.log.child({ component: 'dispatcher', workerId: this.workerId });
    this.db = openWorkerDb(ctx);
    this.runner = {
      ctx,
      db: this.db,
      send: opts.send ?? createGuardedSend(ctx),
      log: this.log,
      workerId: this.workerId,
      // A lease outlives every call a delivery can make (connectors may make a few) plus margin.
      leaseMs: ctx.config.deliveryTimeoutMs * 4 + 5_000,
      attemptBudget: maxAttempts(ctx.config.retryScheduleMs),
    };
    this.writer = new OutcomeWriter({
      db: this.db,
      log: this.log,
      workerId: this.workerId,
      scheduleMs: ctx.config.retryScheduleMs,
      autoDisableAfterMs: ctx.config.autoDisableAfterMs,
      now: () => ctx.clock.now(),
      batchSize: opts.writeBatch ?? 200,
      onRetryScheduled: () => void this.wake(),
    });
  }

  async start(): Promise<void> {
    this.unlisten = await onDeliveriesDue(this.ctx.db, () => void this.wake()).catch((err) => {
      this.log.warn({ err: (err as Error).message }, 'LISTEN unavailable; polling only');
      return async () => {};
    });
    this.rescue();
    this.rescueTimer = setInterval(() => this.rescue(), this.opts.rescueEveryMs ?? RESCUE_EVERY_MS);
    this.rescueTimer.unref();
    void this.wake();
  }

  /** One pass of the rescuer (queued behind the previous one, never two at once). */
  private rescue(): void {
    if (this.mode !== 'running') return;
    this.rescuing = this.rescuing.then(async () => {
      if (this.mode !== 'running') return;
      try {
        const { released, abandoned } = await rescueStrandedWaiting(this.db, this.ctx.clock.now());
        if (released + abandoned > 0) this.log.warn({ released, abandoned }, 'rescued held connector events that nothing would have released');
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'rescuing held connector events failed; retrying at the next pass');
      }
    });
  }

  poke(): void {
    void this.wake();
  }

  async idle(): Promise<void> {
    // Checked again after each wait: a finished attempt may start a ready row.
    while (this.running.size > 0 || !this.writer.idle) {
      await Promise.all([...this.running]);
      await this.writer.drained();
    }
  }

  async pass(): Promise<void> {
    await this.wake();
    await this.idle();
  }

  async stop(): Promise<void> {
    if (this.mode === 'stopping') return;
    this.mode = 'stopping';
    this.writer.stopping();
    if (this.timer) clearTimeout(this.timer);
    if (this.rescueTimer) clearInterval(this.rescueTimer);
    await this.unlisten().catch(() => undefined);
    await this.rescuing;
    // Graceful: let the attempts in flight finish and their outcomes be written; rows leased
    // but never started are given back at once.
    await this.pumping;
    await this.giveBack();
    await this.idle();
    if (!this.opts.send) await this.runner.send.close().catch(() => undefined);
    await closeDeliverers(this.ctx).catch(() => undefined);
    await this.db.close().catch(() => undefined);
  }

  /** Starts the claim loop, or asks the running one to go round once more. Resolves when it ends. */
  private wake(): Promise<void> {
    if (this.mode !== 'running') return Promise.resolve();
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        await this.claimPass();
      } while (this.pumpAgain && this.mode === 'running');
    })().finally(() => {
      this.pumping = null;
    });
    return this.pumping;
  }

  /** Claims until there is no room or nothing is due, then sets the timer for the next due row. */
  private async claimPass(): Promise<void> {
    try {
      const capped = await this.claimWhileRoom();
      if (this.mode === 'running' && this.held.room > 0) await this.scheduleNextDue(capped);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'dispatch pass failed; retrying');
      this.setTimer(PASS_RETRY_MS);
    }
  }

  /** Returns whether some organization hit its cap. */
  private async claimWhileRoom(): Promise<boolean> {
    const deps = { ctx: this.ctx, db: this.db, held: this.held, workerId: this.workerId, leaseMs: this.runner.leaseMs };
    return claimWhileRoom(deps, () => this.mode === 'running', (more) => {
      this.backlog = more;
      this.startReady();
    });
  }

  private async scheduleNextDue(capped: boolean): Promise<void> {
    this.setTimer(await nextWakeMs(this.ctx, this.db, { backlog: this.backlog, capped, idlePollMs: this.idlePollMs, busyPollMs: BUSY_POLL_MS }));
  }

  private setTimer(ms: number): void {
    if (this.mode !== 'running') return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.wake(), Math.max(0, Math.min(ms, this.idlePollMs)));
  }

  private startReady(): void {
    if (this.mode !== 'running') return;
    for (const { row, waitedMs } of this.held.startable()) {
      const p = this.runOne(row, waitedMs);
      this.running.add(p);
      void p.finally(() => this.running.delete(p));
    }
  }

  private async runOne(row: ClaimedRow, waitedMs: number): Promise<void> {
    try {
      for (const finished of await runHeldRow(this.runner, row, waitedMs)) this.writer.push(finished);
    } catch (err) {
      // performAttempt turns failures into outcomes; this is a bug guard: the lease brings the row back.
      this.log.error({ err: (err as Error).message, deliveryId: row.id }, 'attempt crashed; the row returns when its lease ends');
    } finally {
      const heldAtDest = this.held.finish(row);
      this.startReady();
      // Claim again once a useful number of slots is free (or the worker is idle), so a busy
      // worker claims in batches instead of one row per finished attempt.
      const { held } = this;
      const refill = held.running === 0 || held.room % this.refillAt === 0 || (held.destHold - heldAtDest) % this.destRefill === 0;
      if (this.backlog && refill) void this.wake();
    }
  }

  /** Rows leased but never started go back at once: lease cleared, attempt count and budget restored. */
  private async giveBack(): Promise<void> {
    const rows = this.held.takeReady();
    if (rows.length === 0) return;
    const cycle = cycleStart(this.ctx.clock.now(), this.ctx.config.cycleSeconds);
    const refundable = rows.filter((r) => r.chargedCycle === cycle.getTime()).map((r) => r.row.id);
    try {
      await releaseLeases(this.db, rows.map((r) => r.row.id), refundable, this.workerId, cycle);
    } catch (err) {
      // The leases end on their own; those rows come back then (attempt counted once more).
      this.log.warn({ err: (err as Error).message, rows: rows.length }, 'giving back unstarted rows failed; their leases will expire');
    }
  }
}

export async function startDispatcher(ctx: AppContext, opts: DispatcherOptions = {}): Promise<Dispatcher> {
  const loop = new DispatchLoop(ctx, opts);
  await loop.start();
  return loop;
}

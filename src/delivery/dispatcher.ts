/**
 * The delivery worker (ARCHITECTURE §3). A small loop around three batch operations:
 *   claim  — lease due rows (claim.ts), bounded by free capacity, per-destination slots and the
 *            organizations' shared per-cycle budget;
 *   send   — attempts run concurrently through the guarded client (attempt.ts);
 *   write  — finished attempts are written back in batches (outcomes.ts).
 * It wakes on NOTIFY (new or released rows), on a timer set to the earliest due row or lease
 * expiry, when capacity frees up, and on a slow safety poll. Any number of workers may share a
 * database: SKIP LOCKED and leases keep them apart; a crashed worker's rows come back when its
 * lease ends (at worst a second send with the same Idempotency-Key).
 */
import type { AppContext } from '../context.js';
import { newId } from '../ids.js';
import { recordAttempt } from '../metrics.js';
import { performAttempt } from './attempt.js';
import { claimDue, cycleStart, type ClaimedRow } from './claim.js';
import { DELIVERY_CHANNEL } from './fanout.js';
import { createGuardedSend, type GuardedSend } from './guarded-http.js';
import { applyOutcomes, needsTransaction, type FinishedAttempt } from './outcomes.js';
import { purgeOldDeliveries } from './retention.js';
import { maxAttempts } from './retry-policy.js';
import { openWorkerDb } from './worker-db.js';
import { preparedQuery } from './prepared.js';

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
  /** Rows written back per transaction at most. */
  writeBatch?: number;
  /** Longest sleep without a wake-up, as a safety net (ms). */
  idlePollMs?: number;
  /** How often old history is purged (ms); 0 disables. */
  retentionEveryMs?: number;
  send?: GuardedSend;
}

export interface Dispatcher extends Worker {
  readonly workerId: string;
  /** Look for due work now (tests with a ManualClock call it after moving time). */
  poke(): void;
  /** Resolves when nothing is in flight and no outcome waits to be written. */
  idle(): Promise<void>;
}

export async function startDispatcher(ctx: AppContext, opts: DispatcherOptions = {}): Promise<Dispatcher> {
  const workerId = newId('wrk');
  const maxInFlight = opts.maxInFlight ?? 64;
  const perDestination = opts.perDestination ?? 16;
  const writeBatch = opts.writeBatch ?? 200;
  const idlePollMs = opts.idlePollMs ?? 15_000;
  const retentionEveryMs = opts.retentionEveryMs ?? 3_600_000;
  const schedule = ctx.config.retryScheduleMs;
  const budget = maxAttempts(schedule);
  // A lease outlives every call a delivery can make (connectors may make a few) plus margin.
  const leaseMs = ctx.config.deliveryTimeoutMs * 4 + 5_000;
  const prefetch = Math.max(0, opts.prefetch ?? Math.floor(maxInFlight / 2));
  /** Rows of one destination this worker may hold (in flight + ready). */
  const destHold = perDestination + Math.min(prefetch, Math.floor(perDestination / 2));
  const refillAt = Math.max(1, Math.floor(maxInFlight / 4));
  const destRefill = Math.max(1, Math.floor(perDestination / 4));
  const send = opts.send ?? createGuardedSend(ctx);
  const log = ctx.log.child({ component: 'dispatcher', workerId });
  const db = openWorkerDb(ctx);

  let stopping = false;
  let inFlight = 0;
  const inFlightByDest = new Map<string, number>();
  const inFlightIds = new Set<string>();
  /** Leased, not started yet (in claim order). Their ids are in inFlightIds too. */
  let ready: ClaimedRow[] = [];
  /** Rows held per destination: in flight + ready (the claim's per-destination slots). */
  const heldByDest = new Map<string, number>();
  /** Start of the budget cycle each ready row was charged to (for the refund on give-back). */
  const chargedCycle = new Map<string, number>();
  /** When each ready row was leased (performance.now()). */
  const heldAt = new Map<string, number>();
  /**
   * A ready row that waited longer than this for a slot gets its lease renewed before its
   * attempt, so the lease still outlives every call the attempt can make (the lease is
   * 4 × timeout + 5 s; a row that waited under 5 s has at least 4 × timeout left).
   */
  const renewAfterMs = 5_000;
  const pendingWrites: FinishedAttempt[] = [];
  let pumping = false;
  /** The last claim left due rows behind (bound, cap or capacity): a freed slot should claim. */
  let backlog = false;
  let pumpAgain = false;
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let idleWaiters: (() => void)[] = [];

  const checkIdle = () => {
    if (inFlight === 0 && ready.length === 0 && pendingWrites.length === 0 && !flushing) {
      const w = idleWaiters;
      idleWaiters = [];
      for (const f of w) f();
    }
  };

  const schedule_ = (ms: number) => {
    if (stopping) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => wake(), Math.max(0, Math.min(ms, idlePollMs)));
  };

  function wake(): void {
    if (stopping) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    void pump();
  }

  async function pump(): Promise<void> {
    pumping = true;
    try {
      do {
        pumpAgain = false;
        await pumpOnce();
      } while (pumpAgain && !stopping);
    } finally {
      pumping = false;
    }
  }

  /** Claims until capacity is full or nothing is due, then sets the timer for the next due row. */
  async function pumpOnce(): Promise<void> {
    let capped = false;
    try {
      while (!stopping && inFlight + ready.length < maxInFlight + prefetch) {
        const limitAsked = maxInFlight + prefetch - inFlight - ready.length;
        const busy = [...heldByDest].filter(([, n]) => n >= destHold).map(([id]) => id);
        const now = ctx.clock.now();
        const partial = new Map<string, number>();
        for (const [id, n] of heldByDest) if (n < destHold) partial.set(id, destHold - n);
        const claim = await claimDue(db, {
          workerId,
          now,
          limit: limitAsked,
          leaseMs,
          busyDestinations: busy,
          partialDestinations: partial,
          perDestination: destHold,
          cycleSeconds: ctx.config.cycleSeconds,
          orgCapPerCycle: ctx.config.orgCapPerCycle,
        });
        capped ||= claim.capped;
        backlog = claim.more;
        const charged = cycleStart(now, ctx.config.cycleSeconds).getTime();
        for (const row of claim.rows) if (hold(row)) chargedCycle.set(row.id, charged);
        startReady();
        // Fewer rows than asked for: nothing more is claimable now; skip an empty claim.
        if (claim.rows.length < limitAsked) break;
      }
      if (stopping) return;
      if (inFlight + ready.length >= maxInFlight + prefetch) return; // a completion will wake us
      const nowDate = ctx.clock.now();
      const cycle = cycleStart(nowDate, ctx.config.cycleSeconds);
      const { rows } = await preparedQuery<{ next: Date | null; capped: boolean }>(
        db,
        'next_due',
        `SELECT (SELECT min(CASE WHEN d.locked_until > d.next_attempt_at THEN d.locked_until ELSE d.next_attempt_at END)
                   FROM deliveries d WHERE d.status = 'pending'
                    AND NOT EXISTS (SELECT 1 FROM delivery_org_budget b
                                     WHERE b.org_id = d.org_id AND b.cycle_start = $1 AND b.used >= $2)) AS next,
                EXISTS (SELECT 1 FROM delivery_org_budget b WHERE b.cycle_start = $1 AND b.used >= $2) AS capped`,
        [cycle, ctx.config.orgCapPerCycle],
      );
      const now = nowDate.getTime();
      let nextAt = rows[0]?.next ? new Date(rows[0].next).getTime() : now + idlePollMs;
      // An organization over its cap gets its turn back when the next cycle starts.
      if (rows[0]?.capped || capped) nextAt = Math.min(nextAt, cycle.getTime() + ctx.config.cycleSeconds * 1000);
      // Due rows we could not take (their destination is at its bound): a completion wakes us;
      // poll slowly in case they belong to another worker's busy destination.
      schedule_(nextAt <= now ? 250 : nextAt - now + 5);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'dispatch pass failed; retrying');
      schedule_(1_000);
    }
  }

  function hold(row: ClaimedRow): boolean {
    // Our own lease ran out while the attempt was still running or waiting (a very slow call,
    // or a clock jump): the row came back to us. Never send it twice from one worker; the
    // running attempt's outcome is written under the same worker id.
    if (inFlightIds.has(row.id)) return false;
    inFlightIds.add(row.id);
    heldByDest.set(row.destination_id, (heldByDest.get(row.destination_id) ?? 0) + 1);
    ready.push(row);
    heldAt.set(row.id, performance.now());
    return true;
  }

  /** Starts ready rows, in claim order, while the worker and their destination have free slots. */
  function startReady(): void {
    if (ready.length === 0 || inFlight >= maxInFlight || stopping) return;
    const keep: ClaimedRow[] = [];
    for (const row of ready) {
      if (inFlight < maxInFlight && (inFlightByDest.get(row.destination_id) ?? 0) < perDestination) start(row);
      else keep.push(row);
    }
    ready = keep;
  }

  function start(row: ClaimedRow): void {
    chargedCycle.delete(row.id);
    const waited = performance.now() - (heldAt.get(row.id) ?? performance.now());
    heldAt.delete(row.id);
    inFlight++;
    inFlightByDest.set(row.destination_id, (inFlightByDest.get(row.destination_id) ?? 0) + 1);
    void runHeld(row, waited).finally(() => {
      inFlightIds.delete(row.id);
      inFlight--;
      const n = (inFlightByDest.get(row.destination_id) ?? 1) - 1;
      if (n <= 0) inFlightByDest.delete(row.destination_id);
      else inFlightByDest.set(row.destination_id, n);
      const h = (heldByDest.get(row.destination_id) ?? 1) - 1;
      if (h <= 0) heldByDest.delete(row.destination_id);
      else heldByDest.set(row.destination_id, h);
      startReady();
      // Claim again once a useful number of slots is free (or the worker is idle), so a busy
      // worker claims in batches instead of one row per finished attempt.
      // (Every refillAt-th free slot overall, or every destRefill-th at this destination.)
      const free = maxInFlight + prefetch - inFlight - ready.length;
      if (backlog && (inFlight === 0 || free % refillAt === 0 || (destHold - Math.max(0, h)) % destRefill === 0)) wake();
      checkIdle();
    });
  }

  async function runHeld(row: ClaimedRow, waitedMs: number): Promise<void> {
    if (waitedMs > renewAfterMs) {
      try {
        const { rows } = await db.query(
          `UPDATE deliveries SET locked_until = $3 WHERE id = $1 AND locked_by = $2 AND status = 'pending' RETURNING id`,
          [row.id, workerId, new Date(ctx.clock.now().getTime() + leaseMs)],
        );
        if (rows.length === 0) return; // the lease was lost meanwhile: another worker owns the row
      } catch (err) {
        // Cannot renew: do not send on a lease that may run out; the row comes back when it ends.
        log.warn({ err: (err as Error).message }, 'renewing the lease of a ready row failed; leaving it to the lease expiry');
        return;
      }
    }
    return run(row);
  }

  async function run(row: ClaimedRow): Promise<void> {
    const budgetAttempt = row.attempts - row.attempt_base;
    if (budgetAttempt > budget) {
      // Only reachable when a worker died mid-attempt on the last attempt of the budget.
      pendingWrites.push({
        id: row.id,
        destinationId: row.destination_id,
        alertId: row.alert_id,
        kind: row.kind,
        event: row.event,
        attempt: row.attempts,
        budgetAttempt,
        result: { outcome: 'retry', error: 'attempt outcome unknown' },
        startedAt: ctx.clock.now(),
        durationMs: 0,
      });
      requestFlush();
      return;
    }
    const outcome = await performAttempt(ctx, send, {
      id: row.id,
      event: row.event,
      body: row.body,
      kind: row.kind,
      url: row.url,
      config: row.config,
      destinationId: row.destination_id,
      credentialsSealed: row.credentials_sealed,
      signingSecretSealed: row.signing_secret_sealed,
      signatureScheme: row.signature_scheme,
      ref: row.ref,
      attempt: budgetAttempt,
      previousOutcomeUnknown: row.previous_unknown,
    });
    pendingWrites.push({
      id: row.id,
      destinationId: row.destination_id,
      alertId: row.alert_id,
      kind: row.kind,
      event: row.event,
      attempt: row.attempts,
      budgetAttempt,
      result: outcome.result,
      startedAt: outcome.startedAt,
      durationMs: outcome.durationMs,
    });
    requestFlush();
  }

  /** Write-back runs one batch at a time; attempts finishing meanwhile join the next batch. */
  function requestFlush(): void {
    if (flushing) return;
    flushing = (async () => {
      await new Promise((r) => setImmediate(r)); // let siblings of this batch finish first
      while (pendingWrites.length > 0) {
        const batch = pendingWrites.splice(0, writeBatch);
        try {
          const write = { workerId, now: ctx.clock.now(), scheduleMs: schedule };
          // Connector batches also store references and release held events: one transaction.
          const results = needsTransaction(batch)
            ? await db.tx((q) => applyOutcomes(q, batch, write))
            : await applyOutcomes(db, batch, write);
          if (results.some((r) => r.status === 'pending')) retryScheduled = true;
          for (let i = 0; i < batch.length; i++) {
            const r = results[i]!;
            const status = r.status === 'pending' ? 'retry' : r.status;
            recordAttempt(batch[i]!.kind, status, batch[i]!.durationMs);
          }
        } catch (err) {
          // Database unavailable: keep the outcomes and try again; the leases protect the rows.
          pendingWrites.unshift(...batch);
          log.warn({ err: (err as Error).message }, 'writing outcomes failed; retrying');
          await new Promise((r) => setTimeout(r, 1_000));
          if (stopping && Date.now() > stopDeadline) {
            log.error({ lost: pendingWrites.length }, 'giving up writing outcomes at shutdown; leases will expire');
            pendingWrites.length = 0;
          }
        }
      }
    })().finally(() => {
      flushing = null;
      if (pendingWrites.length > 0) requestFlush();
      // A retry's due time may now be the earliest one: recompute the timer.
      if (retryScheduled) {
        retryScheduled = false;
        wake();
      }
      checkIdle();
    });
  }

  async function giveBack(): Promise<void> {
    const rows = ready;
    ready = [];
    for (const row of rows) {
      inFlightIds.delete(row.id);
      heldAt.delete(row.id);
      const h = (heldByDest.get(row.destination_id) ?? 1) - 1;
      if (h <= 0) heldByDest.delete(row.destination_id);
      else heldByDest.set(row.destination_id, h);
    }
    if (rows.length === 0) return;
    // Rows charged to the organization's current cycle are refunded to its budget.
    const cycle = cycleStart(ctx.clock.now(), ctx.config.cycleSeconds);
    const refundable = rows.filter((r) => chargedCycle.get(r.id) === cycle.getTime()).map((r) => r.id);
    for (const r of rows) chargedCycle.delete(r.id);
    try {
      await db.query(
        `WITH back AS (
           UPDATE deliveries SET attempts = attempts - 1, locked_until = NULL, locked_by = NULL
            WHERE id = ANY($1::text[]) AND locked_by = $2 AND status = 'pending'
           RETURNING id, org_id),
         refund AS (
           UPDATE delivery_org_budget b SET used = GREATEST(0, b.used - x.n)
             FROM (SELECT org_id, count(*)::int AS n FROM back WHERE id = ANY($4::text[]) GROUP BY org_id) x
            WHERE b.org_id = x.org_id AND b.cycle_start = $3)
         SELECT CASE WHEN EXISTS (SELECT 1 FROM back) THEN (SELECT 1 FROM pg_notify('${DELIVERY_CHANNEL}', '')) END AS notified`,
        [rows.map((r) => r.id), workerId, cycle, refundable],
      );
    } catch (err) {
      // The leases end on their own; those rows come back then (attempt counted once more).
      log.warn({ err: (err as Error).message, rows: rows.length }, 'giving back unstarted rows failed; their leases will expire');
    }
  }

  let stopDeadline = Infinity;
  let retryScheduled = false;
  const unlisten = await ctx.db.listen(DELIVERY_CHANNEL, () => wake()).catch((err) => {
    log.warn({ err: (err as Error).message }, 'LISTEN unavailable; polling only');
    return async () => {};
  });

  let retentionTimer: NodeJS.Timeout | undefined;
  const retention = async () => {
    try {
      const purged = await purgeOldDeliveries(ctx.db, ctx.clock.now());
      if (purged > 0) log.info({ purged }, 'purged delivery history older than 30 days');
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'history purge failed');
    }
  };
  if (retentionEveryMs > 0) {
    retentionTimer = setInterval(() => void retention(), retentionEveryMs);
    retentionTimer.unref();
    setTimeout(() => void retention(), 5_000).unref();
  }

  wake();

  return {
    workerId,
    poke: wake,
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        checkIdle();
      }),
    async stop() {
      if (stopping) return;
      stopping = true;
      stopDeadline = Date.now() + 15_000;
      if (timer) clearTimeout(timer);
      if (retentionTimer) clearInterval(retentionTimer);
      await unlisten().catch(() => undefined);
      // Graceful: let the attempts in flight finish and their outcomes be written; rows leased
      // but never started are given back (lease cleared, attempt count restored) at once.
      while (pumping) await new Promise((r) => setTimeout(r, 10));
      await giveBack();
      await new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        checkIdle();
      });
      if (!opts.send) await send.close().catch(() => undefined);
      await db.close().catch(() => undefined);
    },
  };
}

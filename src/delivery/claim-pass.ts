/**
 * The dispatcher's claiming (dispatcher.ts): lease due rows while the worker has room, and
 * work out when to look again. Kept apart from the loop's timers and lifecycle so each reads
 * on its own.
 */
import type { AppContext } from '../context.js';
import { claimDue, cycleStart, nextDueTime } from '../outbox/index.js';
import type { HeldRows } from './held-rows.js';
import type { WorkerDb } from './worker-db.js';

export interface ClaimDeps {
  ctx: AppContext;
  db: WorkerDb;
  held: HeldRows;
  workerId: string;
  leaseMs: number;
}

/**
 * Claims until there is no room or nothing more is due. After each claim, `claimed(more)` is told
 * whether that claim left due rows behind (the loop's backlog, read by attempts finishing
 * meanwhile) and starts the ready rows. Returns whether some organization hit its per-cycle cap.
 */
export async function claimWhileRoom(deps: ClaimDeps, running: () => boolean, claimed: (more: boolean) => void): Promise<boolean> {
  const { ctx, held } = deps;
  let capped = false;
  while (running() && held.room > 0) {
    const limit = held.room;
    const now = ctx.clock.now();
    const { busy, partial } = held.destinationSlots();
    const claim = await claimDue(deps.db, {
      workerId: deps.workerId,
      now,
      limit,
      leaseMs: deps.leaseMs,
      busyDestinations: busy,
      partialDestinations: partial,
      perDestination: held.destHold,
      cycleSeconds: ctx.config.cycleSeconds,
      orgCapPerCycle: ctx.config.orgCapPerCycle,
    });
    capped ||= claim.capped;
    const cycle = cycleStart(now, ctx.config.cycleSeconds);
    // The claim already paced rate-limited destinations and skipped disabled ones: every row it leased may be sent.
    for (const row of claim.rows) held.hold(row, cycle.getTime());
    claimed(claim.more);
    // Fewer rows than asked for: nothing more is claimable now; skip an empty claim (unless
    // the claim spent its candidates on skipping a disabled destination's rows).
    if (claim.rows.length < limit && claim.skipped === 0) break;
  }
  return capped;
}

/** How long until the next claim pass (ms). */
export async function nextWakeMs(
  ctx: AppContext,
  db: WorkerDb,
  s: { backlog: boolean; capped: boolean; idlePollMs: number; busyPollMs: number },
): Promise<number> {
  // The claim just left due rows behind for want of a destination slot (no organization cap
  // involved): the next-due query would answer "now", so skip its O(pending) scan.
  if (s.backlog && !s.capped) return s.busyPollMs;
  const { config } = ctx;
  const nowDate = ctx.clock.now();
  const cycle = cycleStart(nowDate, config.cycleSeconds);
  const due = await nextDueTime(db, cycle, config.orgCapPerCycle);
  const now = nowDate.getTime();
  let nextAt = due.next ? due.next.getTime() : now + s.idlePollMs;
  // An organization over its cap gets its turn back when the next cycle starts.
  if (due.capped || s.capped) nextAt = Math.min(nextAt, cycle.getTime() + config.cycleSeconds * 1000);
  // Due rows we could not take (their destination is at its bound): a completion wakes us;
  // poll slowly in case they belong to another worker's busy destination.
  return nextAt <= now ? s.busyPollMs : nextAt - now + 5;
}

/**
 * A run's call budget: the one way a collector plans its calls. A run may spend `share` of a
 * family's hourly cap, spread over the runs of an hour at the collector's interval (runBudget);
 * every call of the run — listings, pages, per-resource reads — is taken from its CallBudget
 * before it is made, so a run never spends more than its share however large the tenant.
 */

/**
 * Calls one run may spend: `share` of the family's hourly cap, spread over the runs of an hour
 * at the collector's interval (at least one call, so a tiny cap still makes progress).
 */
export function runBudget(hourlyCap: number, share: number, intervalSeconds: number): number {
  return Math.max(1, Math.floor((hourlyCap * share * intervalSeconds) / 3600));
}

/** The run spent the calls it may make; what was read so far is still applied. */
export class RunBudgetSpent extends Error {
  constructor() {
    super('the run spent its share of the hourly budget');
    this.name = 'RunBudgetSpent';
  }
}

export class CallBudget {
  private spent = 0;
  constructor(readonly total: number) {}

  get left(): number {
    return Math.max(0, this.total - this.spent);
  }

  /** Calls charged beyond the total (a listing longer than the run's share). */
  get overspent(): number {
    return Math.max(0, this.spent - this.total);
  }

  /** Takes one call, or throws RunBudgetSpent. */
  take(): void {
    if (this.spent >= this.total) throw new RunBudgetSpent();
    this.spent++;
  }

  /** Records calls already made beyond what was taken (further pages of a listing). */
  charge(n: number): void {
    this.spent += Math.max(0, n);
  }

  /** Takes `n` calls if they all fit; false (nothing taken) otherwise. */
  tryTake(n: number): boolean {
    if (this.spent + n > this.total) return false;
    this.spent += n;
    return true;
  }
}

/** What a paced budget carries from one run to the next (kept in the collector's state). */
export interface PaceState {
  /** Calls of credit left (negative: calls a run spent beyond its credit, paid back by the next runs). */
  credit: number;
  /** When the credit was counted (ISO). */
  at: string;
}

/**
 * A CallBudget whose share of an hourly allowance accrues between runs and whose unspent or
 * overspent part is carried to the next run — for an allowance under one call a run (an admin
 * endpoint's share at a short interval: 100 refreshables pages an hour every 5 s) and for a run
 * whose listing costs more than its share (the excess is paid back by the next runs). Credit
 * accrues at `perHour` for the time since the last run, up to one interval's worth (at least one
 * call), so a long pause does not turn into a burst. Over any hour the calls stay within
 * `perHour` plus one run's worth.
 */
export class PacedBudget extends CallBudget {
  private readonly credit: number;

  /**
   * `extra`: calls this run may spend beyond its credit (paid back by the next runs, like any
   * overspending). `carry`: credit kept beyond one interval's worth, so that the fraction of a
   * call a short interval accrues is not lost (1: a run at 1.5 calls an interval spends 1, then 2).
   */
  constructor(perHour: number, intervalSeconds: number, prev: PaceState | undefined, private readonly now: Date, extra = 0, carry = 0) {
    const full = Math.max(1, (perHour * intervalSeconds) / 3600 + carry);
    let credit = full;
    if (prev && Number.isFinite(prev.credit) && Number.isFinite(Date.parse(prev.at))) {
      const elapsed = Math.max(0, now.getTime() - Date.parse(prev.at)) / 1000;
      credit = Math.min(full, prev.credit + (perHour * elapsed) / 3600);
    }
    super(Math.max(0, Math.floor(credit)) + Math.max(0, Math.floor(extra)));
    this.credit = credit;
  }

  /** The state to keep for the next run: the credit left after what this run spent. */
  pace(): PaceState {
    return { credit: Math.round((this.credit - (this.total - this.left) - this.overspent) * 1000) / 1000, at: this.now.toISOString() };
  }
}

/**
 * Listings that do not change every run (workspaces, capacities, gateways and their data
 * sources) are kept in the collector's state and read again after this long: often enough that a
 * new or removed resource shows within minutes, rarely enough that a short interval's small budget
 * goes to the resources themselves.
 */
export const LISTING_REFRESH_MS = 5 * 60_000;

/** Whether a listing read at `listedAt` (ISO) is to be read again at `now`. */
export function listingIsDue(listedAt: string | undefined, now: Date): boolean {
  if (!listedAt) return true;
  const at = Date.parse(listedAt);
  return !Number.isFinite(at) || now.getTime() - at >= LISTING_REFRESH_MS || now.getTime() < at;
}

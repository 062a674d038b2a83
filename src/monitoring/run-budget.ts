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

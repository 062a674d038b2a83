/**
 * Hourly API budgets per tenant directory and API family, shared by every instance. Before each
 * vendor call the caller takes one unit: in one transaction, under an advisory lock of the
 * (directory, family), the calls of the last 60 minutes are counted and, below the cap, this
 * call is recorded. So no 60-minute window ever holds more calls than the cap, however many
 * instances run and however the platform aligns its own window.
 */
import type { Database } from '../db/index.js';

export type ApiFamily = 'token' | 'powerbi' | 'powerbi-admin' | 'fabric' | 'fabric-admin' | 'arm' | 'cost' | 'kusto';

/**
 * Calls per hour we allow ourselves per family. The admin families keep the tightest documented
 * cap of what we call in them (Power BI admin capacities 200/h; Fabric admin workspaces 200/h);
 * the others have no documented hourly cap and get a ceiling that stops a runaway loop.
 */
export const HOURLY_CAPS: Record<ApiFamily, number> = {
  token: 600,
  powerbi: 7_200,
  'powerbi-admin': 200,
  fabric: 7_200,
  'fabric-admin': 200,
  arm: 3_600,
  cost: 120,
  // Eventhouse queries of the utilization collector: a few per run; the customer's own limit is
  // per cluster (cores x 10 concurrent), this stops a runaway loop.
  kusto: 1_800,
};

/** The hourly cap of a family was reached; `retryAt` is when the oldest counted call leaves the window. */
export class BudgetExhaustedError extends Error {
  constructor(
    readonly family: ApiFamily,
    readonly cap: number,
    readonly retryAt: Date,
  ) {
    super(`the hourly budget of ${cap} ${family} calls is spent until ${retryAt.toISOString()}`);
    this.name = 'BudgetExhaustedError';
  }
}

const LOCK_SEED = 4417;
const HOUR_MS = 3_600_000;

/** Takes one call of `family` for `directoryId` at `now`, or throws BudgetExhaustedError. */
export async function takeCall(db: Database, directoryId: string, family: ApiFamily, now: Date, caps = HOURLY_CAPS): Promise<void> {
  const since = new Date(now.getTime() - HOUR_MS);
  const cap = caps[family];
  const oldest = await db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, $2))', [`${directoryId}/${family}`, LOCK_SEED]);
    await q.query('DELETE FROM tenant_api_calls WHERE directory_id = $1 AND family = $2 AND at <= $3', [directoryId, family, since]);
    const { rows } = await q.query<{ n: number; oldest: Date | null }>(
      'SELECT count(*)::int AS n, min(at) AS oldest FROM tenant_api_calls WHERE directory_id = $1 AND family = $2',
      [directoryId, family],
    );
    if (rows[0]!.n >= cap) return rows[0]!.oldest;
    await q.query('INSERT INTO tenant_api_calls (directory_id, family, at) VALUES ($1, $2, $3)', [directoryId, family, now]);
    return null;
  });
  if (oldest) throw new BudgetExhaustedError(family, cap, new Date(new Date(oldest).getTime() + HOUR_MS));
}

/** Calls counted in the last hour per family (for the metrics and the check). */
export async function callsInLastHour(db: Database, directoryId: string, now: Date): Promise<Partial<Record<ApiFamily, number>>> {
  const { rows } = await db.query<{ family: ApiFamily; n: number }>(
    'SELECT family, count(*)::int AS n FROM tenant_api_calls WHERE directory_id = $1 AND at > $2 GROUP BY family',
    [directoryId, new Date(now.getTime() - HOUR_MS)],
  );
  return Object.fromEntries(rows.map((r) => [r.family, r.n]));
}

/**
 * Hourly API budgets per tenant directory and API family, shared by every instance. Before each
 * vendor call the caller takes one unit with ONE statement: the (directory, family) row of
 * 10-second counters drops what is older than the hour, and the current bucket gains one only
 * while the hour's sum is below the cap. Takers serialize on that row's lock and each sees the
 * latest counters, so no 60-minute window ever holds more calls than the cap, however many
 * instances run and however the platform aligns its own window. A window is counted from the
 * start of the bucket an hour back, so a slot frees up to 10 s later than the exact hour.
 */
import type { Queryable } from '../db/index.js';

export type ApiFamily = 'token' | 'powerbi' | 'powerbi-admin' | 'fabric' | 'fabric-admin' | 'arm' | 'cost' | 'kusto' | ScannerFamily;

/**
 * Power BI's metadata scanning (the scanner collector) documents a cap per operation, so each is
 * its own family: getInfo 500/h, scanResult 500/h, scanStatus 10,000/h, modified 30/h.
 */
export type ScannerFamily = 'scanner-info' | 'scanner-result' | 'scanner-status' | 'scanner-modified';

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
  'scanner-info': 500,
  'scanner-result': 500,
  'scanner-status': 10_000,
  'scanner-modified': 30,
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

const BUCKET_MS = 10_000;
/** Buckets before the current one that a call made now can share a 60-minute window with. */
const WINDOW_BUCKETS = 3_600_000 / BUCKET_MS;

const bucketOf = (at: Date) => Math.floor(at.getTime() / BUCKET_MS);

// $3 current bucket, $4 cap. Only buckets of the window are kept (later ones, from an instance
// whose clock runs ahead, too). Without a row, the first call creates it.
const TAKE_SQL = `
INSERT INTO tenant_api_budget AS b (directory_id, family, buckets, counts)
SELECT $1, $2, ARRAY[$3::bigint], ARRAY[1] WHERE $4::int > 0
ON CONFLICT (directory_id, family) DO UPDATE SET (buckets, counts) = (
  SELECT array_agg(k ORDER BY k), array_agg(n ORDER BY k) FROM (
    SELECT k, sum(n)::int AS n FROM (
      SELECT k, n FROM unnest(b.buckets, b.counts) AS u(k, n) WHERE k >= $3::bigint - ${WINDOW_BUCKETS}
      UNION ALL SELECT $3::bigint, 1
    ) kept GROUP BY k
  ) merged)
WHERE (SELECT coalesce(sum(n), 0) FROM unnest(b.buckets, b.counts) AS u(k, n) WHERE k >= $3::bigint - ${WINDOW_BUCKETS}) < $4::int
RETURNING 1`;

/** Takes one call of `family` for `directoryId` at `now`, or throws BudgetExhaustedError. */
export async function takeCall(db: Queryable, directoryId: string, family: ApiFamily, now: Date, caps = HOURLY_CAPS): Promise<void> {
  const cap = caps[family];
  const bucket = bucketOf(now);
  const { rows } = await db.query(TAKE_SQL, [directoryId, family, bucket, cap]);
  if (rows.length > 0) return;
  // Refused (the rare path): the window frees when its oldest bucket leaves it.
  const { rows: held } = await db.query<{ oldest: string | null }>(
    `SELECT min(k)::text AS oldest FROM tenant_api_budget, unnest(buckets, counts) AS u(k, n)
      WHERE directory_id = $1 AND family = $2 AND n > 0 AND k >= $3::bigint - ${WINDOW_BUCKETS}`,
    [directoryId, family, bucket],
  );
  const oldest = held[0]?.oldest != null ? Number(held[0].oldest) : bucket;
  throw new BudgetExhaustedError(family, cap, new Date((oldest + WINDOW_BUCKETS + 1) * BUCKET_MS));
}

/** Calls counted in the last hour per (directory, family), for /metrics and measurements. */
export async function callsInLastHour(db: Queryable, now: Date): Promise<{ directoryId: string; family: ApiFamily; calls: number }[]> {
  const { rows } = await db.query<{ directory_id: string; family: ApiFamily; n: number }>(
    `SELECT directory_id, family, coalesce(sum(n), 0)::int AS n FROM tenant_api_budget, unnest(buckets, counts) AS u(k, n)
      WHERE k >= $1::bigint - ${WINDOW_BUCKETS} GROUP BY directory_id, family`,
    [bucketOf(now)],
  );
  return rows.map((r) => ({ directoryId: r.directory_id, family: r.family, calls: Number(r.n) }));
}

/**
 * Hourly API budgets per tenant directory, shared by every instance. A budget key is an API
 * family ('powerbi') or, for an endpoint the platform caps per tenant (TENANT_WIDE_CAPS), the
 * family and the endpoint ('powerbi-admin:refreshables'). Before each vendor call the caller
 * takes one unit with ONE statement per key: the (directory, key) row of 10-second counters drops
 * what is older than the hour, and the current bucket gains one only while the hour's sum is
 * below the cap. Takers serialize on that row's lock and each sees the latest counters, so no
 * 60-minute window ever holds more calls than the cap, however many instances run and however the
 * platform aligns its own window. A window is counted from the start of the bucket an hour back,
 * so a slot frees up to 10 s later than the exact hour.
 *
 * The per-tenant caps are shared with every other tool the customer runs against the tenant, so
 * Vigia allows itself only its share of each (the connection's `capSharePercent`, default 50 %).
 * A 429 on such an endpoint says the tenant's whole cap is spent: recordThrottle lowers Vigia's
 * cap on it for the next hour, on the same row, so every instance slows down at once.
 */
import type { Queryable } from '../../db/index.js';

export type ApiFamily = 'token' | 'powerbi' | 'powerbi-admin' | 'fabric' | 'fabric-admin' | 'arm' | 'cost' | 'kusto' | ScannerFamily;

/**
 * Power BI's metadata scanning (the scanner collector) documents a cap per operation, so each is
 * its own family: getInfo 500/h, scanResult 500/h, scanStatus 10,000/h, modified 30/h.
 */
export type ScannerFamily = 'scanner-info' | 'scanner-result' | 'scanner-status' | 'scanner-modified';

/**
 * Calls per hour Vigia allows itself per family: its own ceilings that stop a runaway loop. The
 * platform's per-tenant caps are per endpoint (TENANT_WIDE_CAPS), counted beside the family; the
 * admin families' ceilings are above the sum of Vigia's shares of their endpoints' caps (a scan
 * polls scanStatus often), so the endpoint caps are what keep Vigia inside the tenant's limits.
 */
export const HOURLY_CAPS: Record<ApiFamily, number> = {
  token: 600,
  powerbi: 7_200,
  'powerbi-admin': 2_000,
  fabric: 7_200,
  'fabric-admin': 400,
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

/** An endpoint whose hourly cap the platform documents per tenant (all tools of the tenant together). */
export interface TenantWideCap {
  /** Budget key: `family:endpoint`. */
  key: string;
  family: ApiFamily;
  /** Matches the end of the URL's path (no query), so a base path of a sovereign cloud or the simulator does not matter. */
  pattern: RegExp;
  /** The documented cap, calls per hour per tenant. */
  perHour: number;
}

/**
 * The documented per-tenant caps of the admin endpoints Vigia calls or may call (Power BI and
 * Fabric REST descriptions, "Limitations"; vendor-specs/README.md).
 */
export const TENANT_WIDE_CAPS: readonly TenantWideCap[] = [
  { key: 'powerbi-admin:groups', family: 'powerbi-admin', pattern: /\/v1\.0\/myorg\/admin\/groups$/i, perHour: 50 },
  { key: 'powerbi-admin:capacities', family: 'powerbi-admin', pattern: /\/v1\.0\/myorg\/admin\/capacities$/i, perHour: 200 },
  { key: 'powerbi-admin:refreshables', family: 'powerbi-admin', pattern: /\/v1\.0\/myorg\/admin\/capacities\/(?:[^/]+\/)?refreshables(?:\/[^/]+)?$/i, perHour: 200 },
  { key: 'powerbi-admin:activityevents', family: 'powerbi-admin', pattern: /\/v1\.0\/myorg\/admin\/activityevents$/i, perHour: 200 },
  { key: 'powerbi-admin:modified', family: 'powerbi-admin', pattern: /\/v1\.0\/myorg\/admin\/workspaces\/modified$/i, perHour: 30 },
  { key: 'powerbi-admin:getInfo', family: 'powerbi-admin', pattern: /\/v1\.0\/myorg\/admin\/workspaces\/getInfo$/i, perHour: 500 },
  { key: 'powerbi-admin:scanStatus', family: 'powerbi-admin', pattern: /\/v1\.0\/myorg\/admin\/workspaces\/scanStatus\/[^/]+$/i, perHour: 10_000 },
  { key: 'powerbi-admin:scanResult', family: 'powerbi-admin', pattern: /\/v1\.0\/myorg\/admin\/workspaces\/scanResult\/[^/]+$/i, perHour: 500 },
  { key: 'fabric-admin:workspaces', family: 'fabric-admin', pattern: /\/v1\/admin\/workspaces$/i, perHour: 200 },
  { key: 'fabric-admin:items', family: 'fabric-admin', pattern: /\/v1\/admin\/items$/i, perHour: 200 },
];

/** Vigia's share of each per-tenant cap when the connection does not set one. */
export const DEFAULT_CAP_SHARE_PERCENT = 50;

/**
 * The per-tenant capped endpoint a call goes to, if any. Matched on the path alone, whatever
 * family the caller counts the call in (a collector may keep a family of its own for an
 * endpoint): the platform's cap is the endpoint's.
 */
export function tenantWideCapOf(_family: ApiFamily, url: string): TenantWideCap | null {
  let path: string;
  try {
    path = new URL(url).pathname.replace(/\/+$/, '');
  } catch {
    return null;
  }
  return TENANT_WIDE_CAPS.find((c) => c.pattern.test(path)) ?? null;
}

/** The per-tenant capped endpoint of a budget key. */
export function tenantWideCap(key: string): TenantWideCap | null {
  return TENANT_WIDE_CAPS.find((c) => c.key === key) ?? null;
}

/** Calls per hour Vigia allows itself on a per-tenant cap: its share, at least one. */
export function sharedCap(perHour: number, sharePercent: number = DEFAULT_CAP_SHARE_PERCENT): number {
  const share = Number.isFinite(sharePercent) ? Math.min(100, Math.max(1, sharePercent)) : DEFAULT_CAP_SHARE_PERCENT;
  return Math.max(1, Math.floor((perHour * share) / 100));
}

/**
 * The hourly cap of a budget key was reached; `retryAt` is when a call fits again. `endpoint` is
 * set for a per-tenant capped endpoint, `loweredUntil` while a 429 has lowered its cap.
 */
export class BudgetExhaustedError extends Error {
  constructor(
    readonly family: ApiFamily,
    readonly cap: number,
    readonly retryAt: Date,
    readonly endpoint: string | null = null,
    readonly loweredUntil: Date | null = null,
  ) {
    super(
      loweredUntil
        ? `the platform answered 429 on ${endpoint ?? family}; Vigia lowered its pace there to ${cap} calls an hour until ${loweredUntil.toISOString()} and the next call fits at ${retryAt.toISOString()}`
        : `the hourly budget of ${cap} ${endpoint ?? family} calls is spent until ${retryAt.toISOString()}`,
    );
    this.name = 'BudgetExhaustedError';
  }
}

const BUCKET_MS = 10_000;
/** Buckets before the current one that a call made now can share a 60-minute window with. */
const WINDOW_BUCKETS = 3_600_000 / BUCKET_MS;
/**
 * How long a 429 on a per-tenant capped endpoint lowers Vigia's cap there at most: the platform's
 * Retry-After when it sends one (a 40-second wait is not an hour's), else this.
 */
export const LOWERED_FOR_MS = 3_600_000;

const bucketOf = (at: Date) => Math.floor(at.getTime() / BUCKET_MS);

// $3 current bucket, $4 cap, $5 now (a cap lowered by a 429 holds until lowered_until). Only
// buckets of the window are kept (later ones, from an instance whose clock runs ahead, too).
// Without a row, the first call creates it.
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
WHERE (SELECT coalesce(sum(n), 0) FROM unnest(b.buckets, b.counts) AS u(k, n) WHERE k >= $3::bigint - ${WINDOW_BUCKETS})
      < CASE WHEN b.lowered_until > $5::timestamptz THEN least($4::int, b.lowered_cap) ELSE $4::int END
RETURNING 1`;

/** Takes one call of `family` for `directoryId` at `now`, or throws BudgetExhaustedError. */
export async function takeCall(db: Queryable, directoryId: string, family: ApiFamily, now: Date, caps = HOURLY_CAPS): Promise<void> {
  await takeKey(db, directoryId, family, family, caps[family], now);
}

/**
 * Takes one call on a budget key (a family, or `family:endpoint` with Vigia's share of the
 * endpoint's per-tenant cap as `cap`), or throws BudgetExhaustedError.
 */
export async function takeKey(db: Queryable, directoryId: string, key: string, family: ApiFamily, cap: number, now: Date): Promise<void> {
  const bucket = bucketOf(now);
  const { rows } = await db.query(TAKE_SQL, [directoryId, key, bucket, cap, now]);
  if (rows.length > 0) return;
  // Refused (the rare path): when does a call fit again?
  const { rows: held } = await db.query<{ buckets: string[] | null; counts: number[] | null; lowered_cap: number | null; lowered_until: Date | null }>(
    'SELECT buckets::text[] AS buckets, counts, lowered_cap, lowered_until FROM tenant_api_budget WHERE directory_id = $1 AND family = $2',
    [directoryId, key],
  );
  const row = held[0];
  const window = (row?.buckets ?? []).map((k, i) => [Number(k), row!.counts![i] ?? 0] as const).filter(([k, n]) => n > 0 && k >= bucket - WINDOW_BUCKETS).sort((a, b) => a[0] - b[0]);
  const loweredUntil = row?.lowered_until && new Date(row.lowered_until).getTime() > now.getTime() ? new Date(row.lowered_until) : null;
  const effective = loweredUntil ? Math.min(cap, row!.lowered_cap ?? cap) : cap;
  let retryAt = freesAt(window, effective, bucket);
  // Once the lowering ends, the full cap applies: a call may fit then, before the lowered window frees.
  if (loweredUntil) retryAt = new Date(Math.min(retryAt.getTime(), Math.max(loweredUntil.getTime(), freesAt(window, cap, bucket).getTime())));
  const endpoint = key === family ? null : key;
  throw new BudgetExhaustedError(family, effective, retryAt, endpoint, loweredUntil);
}

/** When the window's calls fall below `cap` as its oldest buckets leave it. */
function freesAt(window: readonly (readonly [number, number])[], cap: number, bucket: number): Date {
  let held = window.reduce((s, [, n]) => s + n, 0);
  for (const [k, n] of window) {
    if (held < cap) break;
    held -= n;
    if (held < cap) return new Date((k + WINDOW_BUCKETS + 1) * BUCKET_MS);
  }
  return new Date((bucket + 1) * BUCKET_MS);
}

/**
 * A 429 on a per-tenant capped endpoint: the tenant's cap is spent by all its tools together, so
 * Vigia's cap on the endpoint becomes, for the next hour, half of what it counted there in the
 * hour before (at most half of what it allowed itself; at least one), and a further 429 lowers it
 * again. One statement on the endpoint's row, which every instance takes from.
 */
export async function recordThrottle(db: Queryable, directoryId: string, key: string, cap: number, now: Date, forMs = LOWERED_FOR_MS): Promise<{ loweredCap: number; loweredUntil: Date }> {
  const until = new Date(now.getTime() + Math.min(LOWERED_FOR_MS, Math.max(1_000, forMs)));
  const { rows } = await db.query<{ lowered_cap: number; lowered_until: Date }>(
    `INSERT INTO tenant_api_budget AS b (directory_id, family, buckets, counts, lowered_cap, lowered_until, throttled_at)
     VALUES ($1, $2, ARRAY[]::bigint[], ARRAY[]::int[], 1, $5, $4)
     ON CONFLICT (directory_id, family) DO UPDATE SET
       lowered_cap = greatest(1, least(
         CASE WHEN b.lowered_until > $4::timestamptz THEN least($3::int, b.lowered_cap) ELSE $3::int END,
         (SELECT coalesce(sum(n), 0) FROM unnest(b.buckets, b.counts) AS u(k, n) WHERE k >= $6::bigint - ${WINDOW_BUCKETS})::int
       ) / 2),
       lowered_until = $5, throttled_at = $4
     RETURNING lowered_cap, lowered_until`,
    [directoryId, key, cap, now, until, bucketOf(now)],
  );
  return { loweredCap: rows[0]!.lowered_cap, loweredUntil: new Date(rows[0]!.lowered_until) };
}

/** What one budget row holds now: calls of the last hour, and a lowering by a 429 if one holds. */
export interface BudgetUse {
  directoryId: string;
  key: string;
  calls: number;
  loweredCap: number | null;
  loweredUntil: Date | null;
  throttledAt: Date | null;
}

/** The budget rows of these directories (every directory when null), for the tenant view and /metrics. */
export async function readBudgetUse(db: Queryable, directoryIds: string[] | null, now: Date): Promise<BudgetUse[]> {
  const { rows } = await db.query<{ directory_id: string; family: string; n: number; lowered_cap: number | null; lowered_until: Date | null; throttled_at: Date | null }>(
    `SELECT directory_id, family, lowered_cap, lowered_until, throttled_at,
            (SELECT coalesce(sum(n), 0) FROM unnest(buckets, counts) AS u(k, n) WHERE k >= $1::bigint - ${WINDOW_BUCKETS})::int AS n
       FROM tenant_api_budget WHERE $2::text[] IS NULL OR directory_id = ANY($2::text[])`,
    [bucketOf(now), directoryIds],
  );
  return rows.map((r) => {
    const lowered = r.lowered_until !== null && new Date(r.lowered_until).getTime() > now.getTime();
    return {
      directoryId: r.directory_id,
      key: r.family,
      calls: Number(r.n),
      loweredCap: lowered ? r.lowered_cap : null,
      loweredUntil: lowered ? new Date(r.lowered_until!) : null,
      throttledAt: r.throttled_at ? new Date(r.throttled_at) : null,
    };
  });
}

/** Calls counted in the last hour per (directory, family), for /metrics and measurements. */
export async function callsInLastHour(db: Queryable, now: Date): Promise<{ directoryId: string; family: ApiFamily; calls: number }[]> {
  return (await readBudgetUse(db, null, now)).filter((u) => !u.key.includes(':') && u.calls > 0).map((u) => ({ directoryId: u.directoryId, family: u.key as ApiFamily, calls: u.calls }));
}

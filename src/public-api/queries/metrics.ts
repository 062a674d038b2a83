import { COMPACT_METRICS_AFTER_PENDING, compactAlertMetrics } from '../../alerts/metrics-rollup.js';
import type { Database, Queryable } from '../../db/index.js';

/**
 * Memory for the sorts of the two exact medians: a year of durations (~1M float8 values a
 * median) spills to temporary files under the default 4 MB work_mem; in memory the duration
 * scan measured ~30 % faster. SET LOCAL lasts only for this transaction.
 */
export const MEDIAN_WORK_MEM = '64MB';

async function withSortMemory<T>(db: Queryable, fn: (q: Queryable) => Promise<T>): Promise<T> {
  const tx = (db as Partial<Database>).tx;
  if (typeof tx !== 'function') return fn(db);
  return tx.call(db, async (q: Queryable) => {
    await q.query(`SET LOCAL work_mem = '${MEDIAN_WORK_MEM}'`);
    return fn(q);
  }) as Promise<T>;
}

export interface DurationStats {
  medianSeconds: number | null;
  meanSeconds: number | null;
  samples: number;
}
export interface SourceTypeCount {
  sourceType: string;
  incidents: number;
}
export interface NoisySource {
  sourceType: string;
  sourceName: string;
  incidents: number;
  occurrences: number;
}
export interface IncidentSummary {
  incidents: number;
  acknowledged: number;
  resolved: number;
  openUnacknowledged: number;
  silenced: number;
  correlated: number;
  reoccurrences: number;
  /** Incidents acknowledged within `ackTargetSeconds` (0 when no target was given). */
  acknowledgedWithinTarget: number;
  resolvedWithinTarget: number;
  mtta: DurationStats;
  mttr: DurationStats;
  bySourceType: SourceTypeCount[];
  noisiestSources: NoisySource[];
}

export const NOISIEST_LIMIT = 10;

/** Seconds rounded to milliseconds, so float noise of the database never shows. */
const secs = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

/**
 * The plain computation over `alerts`, kept as the reference the rollup answer is tested against
 * (and used for windows that do not start and end at UTC midnight).
 * Everything metrics and the SLA report say about the incidents created in [start, end) of one
 * organization. Definitions (docs/public-api.md):
 * - MTTA samples: incidents with acknowledged_at; duration acknowledged_at − created_at.
 * - MTTR samples: incidents with resolved_at; duration resolved_at − created_at.
 * - reoccurrences: Σ (failure_count − 1); occurrences of a source: Σ failure_count.
 * percentile_cont ignores NULLs, so the median needs no FILTER.
 */
export async function summarizeIncidentsReference(
  db: Queryable,
  orgId: string,
  start: Date,
  end: Date,
  targets: { ackSeconds: number; resolveSeconds: number } = { ackSeconds: -1, resolveSeconds: -1 },
): Promise<IncidentSummary> {
  const params = [orgId, start, end];
  const cond = 'org_id = $1 AND created_at >= $2 AND created_at < $3';
  // date_part returns float8 directly (extract returns numeric, several times slower here).
  const ack = `date_part('epoch', acknowledged_at - created_at)`;
  const res = `date_part('epoch', resolved_at - created_at)`;
  // Two scans side by side (there were three). The per-source groups carry every plain count
  // (a parallel aggregate); the totals are their sums, exact integers. The other scan computes
  // what needs the durations: the two exact medians (ordered-set aggregates do not run in
  // parallel), the means, the sample counts and the within-target counts.
  const [durations, groups] = await Promise.all([
    withSortMemory(db, (q) => q.query<Durations>(
      `SELECT count(*) FILTER (WHERE ${ack} <= $4)::int8 AS ack_within,
              count(*) FILTER (WHERE ${res} <= $5)::int8 AS res_within,
              avg(${ack}) AS ack_mean, count(acknowledged_at)::int8 AS ack_n,
              avg(${res}) AS res_mean, count(resolved_at)::int8 AS res_n,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY ${ack}) AS mtta,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY ${res}) AS mttr
         FROM alerts WHERE ${cond}`,
      [...params, targets.ackSeconds, targets.resolveSeconds],
    )),
    db.query<SourceGroup>(
      `SELECT source_type, source_name, count(*)::int8 AS incidents, sum(failure_count)::int8 AS occurrences,
              count(*) FILTER (WHERE acknowledged)::int8 AS acknowledged,
              count(*) FILTER (WHERE status = 'resolved')::int8 AS resolved,
              count(*) FILTER (WHERE status = 'open' AND NOT acknowledged)::int8 AS open_unacknowledged,
              count(*) FILTER (WHERE silenced)::int8 AS silenced,
              count(*) FILTER (WHERE correlated)::int8 AS correlated
         FROM alerts WHERE ${cond} GROUP BY source_type, source_name`,
      params,
    ),
  ]);
  const d = durations.rows[0]!;
  return assemble(groups.rows, groups.rows, {
    ackWithin: d.ack_within,
    resWithin: d.res_within,
    mtta: { medianSeconds: secs(d.mtta), meanSeconds: secs(d.ack_mean), samples: d.ack_n },
    mttr: { medianSeconds: secs(d.mttr), meanSeconds: secs(d.res_mean), samples: d.res_n },
  });
}

const DAY_MS = 86_400_000;
const isUtcMidnight = (d: Date) => d.getTime() % DAY_MS === 0;

/**
 * Everything metrics and the SLA report say about the incidents created in [start, end), read
 * from the per-day and per-month rollups of migration 070 (same definitions as summarizeIncidentsReference).
 * The counts are sums of per-day group rows; MTTA/MTTR come from the merged per-day duration
 * histograms: exact, because every sample is kept at the database's own resolution.
 */
export async function summarizeIncidents(
  db: Queryable,
  orgId: string,
  start: Date,
  end: Date,
  targets: { ackSeconds: number; resolveSeconds: number } = { ackSeconds: -1, resolveSeconds: -1 },
): Promise<IncidentSummary> {
  if (!isUtcMidnight(start) || !isUtcMidnight(end)) return summarizeIncidentsReference(db, orgId, start, end, targets);
  const pending = await db.query<{ n: number }>(
    `SELECT ((SELECT count(*) FROM alert_metrics_rollup WHERE org_id = $1 AND pending)
           + (SELECT count(*) FROM alert_durations_rollup WHERE org_id = $1 AND pending))::int8 AS n`,
    [orgId],
  );
  if (pending.rows[0]!.n > COMPACT_METRICS_AFTER_PENDING) await compactAlertMetrics(db, orgId);
  const { where, params } = periodsOf(orgId, start, end);
  const [groups, histogram] = await Promise.all([
    // Per source type every count (totals and bySourceType are their sums), and per source only
    // the candidates for the top 10: ties with the 10th on (occurrences, incidents) included, so
    // the name order of the final sort picks exactly what sorting every source would.
    db.query<SourceGroup & { part: 't' | 'n' }>(
      `WITH g AS (
         SELECT source_type, source_name, sum(incidents)::int8 AS incidents, sum(occurrences)::int8 AS occurrences,
                sum(acknowledged)::int8 AS acknowledged, sum(resolved)::int8 AS resolved,
                sum(open_unacknowledged)::int8 AS open_unacknowledged,
                sum(silenced)::int8 AS silenced, sum(correlated)::int8 AS correlated
           FROM alert_metrics_rollup WHERE ${where}
          GROUP BY source_type, source_name HAVING sum(incidents) <> 0)
       SELECT 't' AS part, source_type, '' AS source_name, sum(incidents)::int8 AS incidents,
              sum(occurrences)::int8 AS occurrences, sum(acknowledged)::int8 AS acknowledged,
              sum(resolved)::int8 AS resolved, sum(open_unacknowledged)::int8 AS open_unacknowledged,
              sum(silenced)::int8 AS silenced, sum(correlated)::int8 AS correlated
         FROM g GROUP BY source_type
       UNION ALL
       (SELECT 'n', source_type, source_name, incidents, occurrences, 0, 0, 0, 0, 0 FROM g
         ORDER BY occurrences DESC, incidents DESC FETCH FIRST ${NOISIEST_LIMIT} ROWS WITH TIES)`,
      params,
    ),
    // micros as text: a bigint beyond 2^53 must not lose precision on the way.
    db.query<{ kind: string; micros_text: string; n: number }>(
      `SELECT kind::text AS kind, micros::text AS micros_text, sum(n)::int8 AS n
         FROM alert_durations_rollup WHERE ${where}
        GROUP BY kind, micros HAVING sum(n) <> 0 ORDER BY kind, micros`,
      params,
    ),
  ]);
  const ack = histogram.rows.filter((r) => r.kind === 'a').map(toBin);
  const res = histogram.rows.filter((r) => r.kind === 'r').map(toBin);
  return assemble(groups.rows.filter((g) => g.part === 't'), groups.rows.filter((g) => g.part === 'n'), {
    ackWithin: countAtMost(ack, targets.ackSeconds),
    resWithin: countAtMost(res, targets.resolveSeconds),
    mtta: histogramStats(ack),
    mttr: histogramStats(res),
  });
}

const startOfNextUtcMonth = (d: Date) => {
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  return m.getTime() === d.getTime() ? m : new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
};
const startOfUtcMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

/**
 * The rollup rows that cover [start, end) exactly once: the whole UTC months inside it from the
 * monthly rows, the days before the first and after the last whole month from the daily rows.
 */
function periodsOf(orgId: string, start: Date, end: Date): { where: string; params: unknown[] } {
  const monthsFrom = startOfNextUtcMonth(start);
  const monthsTo = startOfUtcMonth(end);
  if (monthsFrom >= monthsTo) {
    return { where: `org_id = $1 AND span = 'd' AND period >= $2 AND period < $3`, params: [orgId, start, end] };
  }
  return {
    where: `org_id = $1 AND ((span = 'm' AND period >= $3 AND period < $4)
              OR (span = 'd' AND ((period >= $2 AND period < $3) OR (period >= $4 AND period < $5))))`,
    params: [orgId, start, monthsFrom, monthsTo, end],
  };
}

export interface Bin {
  micros: bigint;
  n: number;
}
const toBin = (r: { micros_text: string; n: number }): Bin => ({ micros: BigInt(r.micros_text), n: Number(r.n) });

function countAtMost(bins: Bin[], targetSeconds: number): number {
  const limit = BigInt(targetSeconds) * 1_000_000n;
  let n = 0;
  for (const b of bins) if (b.micros <= limit) n += b.n;
  return n;
}

/**
 * Median and mean of a histogram sorted by duration. The median interpolates like PostgreSQL's
 * percentile_cont(0.5): the value at rank (n−1)/2, halfway to the next rank when n is even. The
 * mean sums in bigint (a year of microsecond durations exceeds 2^53) and divides once.
 */
export function histogramStats(bins: Bin[]): DurationStats {
  let samples = 0;
  let total = 0n;
  for (const b of bins) {
    samples += b.n;
    total += b.micros * BigInt(b.n);
  }
  if (samples === 0) return { medianSeconds: null, meanSeconds: null, samples: 0 };
  const lowRank = Math.floor((samples - 1) / 2);
  const highRank = Math.ceil((samples - 1) / 2);
  let low: number | null = null;
  let high: number | null = null;
  let seen = 0;
  for (const b of bins) {
    seen += b.n;
    if (low === null && seen > lowRank) low = Number(b.micros) / 1e6;
    if (seen > highRank) {
      high = Number(b.micros) / 1e6;
      break;
    }
  }
  const median = low! + (high! - low!) * 0.5;
  const mean = Number(total) / 1e6 / samples;
  return { medianSeconds: secs(median), meanSeconds: secs(mean), samples };
}

/**
 * The summary from source groups: `groups` carry every count (per source or already per source
 * type: totals and bySourceType are sums either way), `noisiest` the per-source candidates for
 * the top 10 (every source, or at least the top 10 with ties).
 */
function assemble(
  groups: SourceGroup[],
  noisiest: SourceGroup[],
  d: { ackWithin: number; resWithin: number; mtta: DurationStats; mttr: DurationStats },
): IncidentSummary {
  const t = { incidents: 0, acknowledged: 0, resolved: 0, open_unacknowledged: 0, silenced: 0, correlated: 0, reoccurrences: 0 };
  for (const g of groups) {
    t.incidents += g.incidents;
    t.acknowledged += g.acknowledged;
    t.resolved += g.resolved;
    t.open_unacknowledged += g.open_unacknowledged;
    t.silenced += g.silenced;
    t.correlated += g.correlated;
    t.reoccurrences += g.occurrences - g.incidents;
  }
  const byType = new Map<string, number>();
  for (const g of groups) byType.set(g.source_type, (byType.get(g.source_type) ?? 0) + g.incidents);
  return {
    incidents: t.incidents,
    acknowledged: t.acknowledged,
    resolved: t.resolved,
    openUnacknowledged: t.open_unacknowledged,
    silenced: t.silenced,
    correlated: t.correlated,
    reoccurrences: t.reoccurrences,
    acknowledgedWithinTarget: d.ackWithin,
    resolvedWithinTarget: d.resWithin,
    mtta: d.mtta,
    mttr: d.mttr,
    bySourceType: [...byType.entries()]
      .map(([sourceType, incidents]) => ({ sourceType, incidents }))
      .sort((a, b) => b.incidents - a.incidents || compare(a.sourceType, b.sourceType)),
    noisiestSources: noisiest
      .map((g) => ({ sourceType: g.source_type, sourceName: g.source_name, incidents: g.incidents, occurrences: g.occurrences }))
      .sort(
        (a, b) =>
          b.occurrences - a.occurrences ||
          b.incidents - a.incidents ||
          compare(a.sourceType, b.sourceType) ||
          compare(a.sourceName, b.sourceName),
      )
      .slice(0, NOISIEST_LIMIT),
  };
}

interface SourceGroup {
  source_type: string;
  source_name: string;
  incidents: number;
  occurrences: number;
  acknowledged: number;
  resolved: number;
  open_unacknowledged: number;
  silenced: number;
  correlated: number;
}

interface Durations {
  ack_within: number;
  res_within: number;
  ack_mean: number | null;
  ack_n: number;
  res_mean: number | null;
  res_n: number;
  mtta: number | null;
  mttr: number | null;
}

/** Code-point order, the same on every machine (no locale collation). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

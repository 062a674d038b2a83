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

/**
 * The rollup reads are a few tens of thousands of index-ordered rows; on a busy 2-vCPU machine a
 * parallel plan (workers, a merge sort of their partial groups) measured 1.5–2× slower than one
 * process hashing them. Calling the parallel-unsafe alert_metrics_serial() (migration 071) once
 * rules parallel plans out for the statement, with no SET LOCAL and so no transaction (which a
 * read-replica router would send to the primary).
 */
const SERIAL = '(SELECT alert_metrics_serial())';

const DAY_MS = 86_400_000;
const isUtcMidnight = (d: Date) => d.getTime() % DAY_MS === 0;

/**
 * How a window is read from the rollup: 'periods' merges the whole months inside it (monthly
 * rows) and its edge days (daily rows); 'checkpoints' takes the difference of two prefix
 * checkpoints (migration 071), corrected by the daily rows between each checkpoint and the
 * window's edge. Both are exact; 'auto' picks the one that reads fewer rows.
 */
export type Strategy = 'auto' | 'periods' | 'checkpoints';

/**
 * Everything metrics and the SLA report say about the incidents created in [start, end), read
 * from the rollups of migrations 070 and 071 (same definitions as summarizeIncidentsReference).
 * The counts are sums of rollup group rows; MTTA/MTTR come from merged duration histograms:
 * exact, because every sample is kept at the database's own resolution.
 */
export async function summarizeIncidents(
  db: Queryable,
  orgId: string,
  start: Date,
  end: Date,
  targets: { ackSeconds: number; resolveSeconds: number } = { ackSeconds: -1, resolveSeconds: -1 },
  strategy: Strategy = 'auto',
): Promise<IncidentSummary> {
  if (!isUtcMidnight(start) || !isUtcMidnight(end)) return summarizeIncidentsReference(db, orgId, start, end, targets);
  // One round trip for what the choice needs: pending deltas, checkpoints, the last day with alerts.
  const stateSql = `SELECT ((SELECT count(*) FROM alert_metrics_rollup WHERE org_id = $1 AND pending)
           + (SELECT count(*) FROM alert_durations_rollup WHERE org_id = $1 AND pending))::int8 AS n,
          (SELECT max(period) FROM alert_metrics_rollup WHERE org_id = $1 AND span = 'd') AS last_day,
          (SELECT coalesce(string_agg((extract(epoch FROM upto) * 1000)::int8::text, ',' ORDER BY upto), '')
             FROM alert_metrics_checkpoints WHERE org_id = $1) AS checkpoints`;
  let state = (await db.query<State>(stateSql, [orgId])).rows[0]!;
  if (state.n > COMPACT_METRICS_AFTER_PENDING || (strategy !== 'periods' && needsCheckpoints(state))) {
    await compactAlertMetrics(db, orgId);
    state = (await db.query<State>(stateSql, [orgId])).rows[0]!;
  }
  const plan = planWindow(orgId, start, end, state, strategy);
  const [groups, histogram] = await Promise.all([
    // Per source type every count (totals and bySourceType are their sums: a source whose
    // incidents sum to zero in the window has every count zero), and per source only incidents
    // and occurrences of the candidates for the top 10: ties with the 10th on (occurrences,
    // incidents) included, so the name order of the final sort picks exactly what sorting every
    // source would.
    db.query<SourceGroup & { part: 't' | 'n' }>(
      `WITH r AS (${plan.metrics})
       SELECT 't' AS part, source_type, '' AS source_name, sum(incidents)::int8 AS incidents,
              sum(occurrences)::int8 AS occurrences, sum(acknowledged)::int8 AS acknowledged,
              sum(resolved)::int8 AS resolved, sum(open_unacknowledged)::int8 AS open_unacknowledged,
              sum(silenced)::int8 AS silenced, sum(correlated)::int8 AS correlated
         FROM r WHERE ${SERIAL} GROUP BY source_type HAVING sum(incidents) <> 0
       UNION ALL
       (SELECT 'n', source_type, source_name, sum(incidents)::int8 AS i, sum(occurrences)::int8 AS o, 0, 0, 0, 0, 0
          FROM r GROUP BY source_type, source_name HAVING sum(incidents) <> 0
         ORDER BY o DESC, i DESC FETCH FIRST ${NOISIEST_LIMIT} ROWS WITH TIES)`,
      plan.params,
    ),
    // micros as text: a bigint beyond 2^53 must not lose precision on the way. Sorted in Node
    // (a bigint sort; ORDER BY kind::text sorted by collation and cost more than the merge).
    db.query<{ kind: string; micros_text: string; n: number }>(
      `SELECT kind::text AS kind, micros::text AS micros_text, sum(n)::int8 AS n
         FROM (${plan.durations}) r WHERE ${SERIAL}
        GROUP BY kind, micros HAVING sum(n) <> 0`,
      plan.params,
    ),
  ]);
  const byMicros = (a: Bin, b: Bin) => (a.micros < b.micros ? -1 : a.micros > b.micros ? 1 : 0);
  const ack = histogram.rows.filter((r) => r.kind === 'a').map(toBin).sort(byMicros);
  const res = histogram.rows.filter((r) => r.kind === 'r').map(toBin).sort(byMicros);
  return assemble(groups.rows.filter((g) => g.part === 't'), groups.rows.filter((g) => g.part === 'n'), {
    ackWithin: countAtMost(ack, targets.ackSeconds),
    resWithin: countAtMost(res, targets.resolveSeconds),
    mtta: histogramStats(ack),
    mttr: histogramStats(res),
  });
}

interface State {
  n: number;
  last_day: Date | null;
  checkpoints: string;
}

/** No checkpoint yet while there are alerts, or the alerts reach past the last checkpoint. */
function needsCheckpoints(s: State): boolean {
  if (s.last_day === null) return false;
  const cps = checkpointsOf(s);
  return cps.length === 0 || cps[cps.length - 1]! <= s.last_day.getTime();
}
const checkpointsOf = (s: State): number[] => (s.checkpoints === '' ? [] : s.checkpoints.split(',').map(Number));

const startOfNextUtcMonth = (d: Date) => {
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  return m.getTime() === d.getTime() ? m : new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
};
const startOfUtcMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

/**
 * Rough cost, in rollup rows, of each source: a month's or a checkpoint's rows hold every source
 * group and duration seen (saturated), a day's only that day's. The choice never changes an answer.
 */
const COST = { month: 1, checkpoint: 1.3, day: 0.4 };

interface Plan {
  /** SQL yielding signed rows (source_type, source_name, incidents, …) whose sums are the window's. */
  metrics: string;
  /** SQL yielding signed rows (kind, micros, n). */
  durations: string;
  params: unknown[];
}

const M_COLS = 'incidents, occurrences, acknowledged, resolved, open_unacknowledged, silenced, correlated';
const signed = (s: string) => M_COLS.split(', ').map((c) => `${s} * ${c} AS ${c}`).join(', ');

/**
 * Days of daily rows a checkpoint at `c` costs for a window edge at `x`: the days between them,
 * not counting days after the last day with alerts (they hold no rows).
 */
function edgeDays(c: number, x: number, lastDay: number): number {
  const lo = Math.min(c, x);
  const hi = Math.min(Math.max(c, x), lastDay + DAY_MS);
  return Math.max(0, (hi - lo) / DAY_MS);
}

function planWindow(orgId: string, start: Date, end: Date, state: State, strategy: Strategy): Plan {
  const monthsFrom = startOfNextUtcMonth(start);
  const monthsTo = startOfUtcMonth(end);
  const wholeMonths = monthsFrom < monthsTo;
  const lastDay = state.last_day === null ? -Infinity : state.last_day.getTime();
  const periodsCost = wholeMonths
    ? COST.month * Math.round((monthsTo.getTime() - monthsFrom.getTime()) / (30.44 * DAY_MS)) +
      COST.day * (edgeDays(start.getTime(), monthsFrom.getTime(), lastDay) + edgeDays(monthsTo.getTime(), end.getTime(), lastDay))
    : COST.day * edgeDays(start.getTime(), end.getTime(), lastDay);
  const cps = checkpointsOf(state);
  if (strategy !== 'periods' && cps.length > 0 && lastDay !== -Infinity) {
    const nearest = (x: number) =>
      cps.reduce((best, c) => (edgeDays(c, x, lastDay) < edgeDays(best, x, lastDay) ? c : best), cps[0]!);
    const ca = nearest(start.getTime());
    const cb = nearest(end.getTime());
    const cost = 2 * COST.checkpoint + COST.day * (edgeDays(ca, start.getTime(), lastDay) + edgeDays(cb, end.getTime(), lastDay));
    if (strategy === 'checkpoints' || cost < periodsCost) return checkpointPlan(orgId, start, end, ca, cb);
  }
  return periodsPlan(orgId, start, end, monthsFrom, monthsTo, wholeMonths);
}

/**
 * The rollup rows that cover [start, end) exactly once: the whole UTC months inside it from the
 * monthly rows, the days before the first and after the last whole month from the daily rows.
 */
function periodsPlan(orgId: string, start: Date, end: Date, monthsFrom: Date, monthsTo: Date, wholeMonths: boolean): Plan {
  const where = wholeMonths
    ? `org_id = $1 AND ((span = 'm' AND period >= $3 AND period < $4)
              OR (span = 'd' AND ((period >= $2 AND period < $3) OR (period >= $4 AND period < $5))))`
    : `org_id = $1 AND span = 'd' AND period >= $2 AND period < $3`;
  return {
    metrics: `SELECT source_type, source_name, ${M_COLS} FROM alert_metrics_rollup WHERE ${where}`,
    durations: `SELECT kind, micros, n FROM alert_durations_rollup WHERE ${where}`,
    params: wholeMonths ? [orgId, start, monthsFrom, monthsTo, end] : [orgId, start, end],
  };
}

/**
 * [start, end) as P(end) − P(start), P(x) the sums of the daily rows before x:
 * P(x) = checkpoint(c) + (pending daily rows before c) ± (daily rows between c and x).
 * Parameters: $2/$3 the checkpoints for end and start; daily rows in [$4, $5) count with sign $6
 * (end side) and rows in [$7, $8) with sign $9 (start side).
 */
function checkpointPlan(orgId: string, start: Date, end: Date, ca: number, cb: number): Plan {
  const e = end.getTime();
  const s = start.getTime();
  // End side: P(end) = P(cb) + D[cb, end) when cb ≤ end, else P(cb) − D[end, cb).
  const endRange = cb <= e ? [new Date(cb), end, 1] : [end, new Date(cb), -1];
  // Start side: −P(start) = −P(ca) − D[ca, start) when ca ≤ start, else −P(ca) + D[start, ca).
  const startRange = ca <= s ? [new Date(ca), start, -1] : [start, new Date(ca), 1];
  // One branch per source with its own index condition (a join with a VALUES list of the
  // checkpoints and ranges was planned as a scan of the whole rollup).
  const branches = (table: string, cols: (sign: string) => string) =>
    [
      `SELECT ${cols('1')} FROM ${table.replace('rollup', 'prefix')} WHERE org_id = $1 AND upto = $2`,
      `SELECT ${cols('-1')} FROM ${table.replace('rollup', 'prefix')} WHERE org_id = $1 AND upto = $3`,
      `SELECT ${cols('1')} FROM ${table} WHERE org_id = $1 AND pending AND span = 'd' AND period < $2`,
      `SELECT ${cols('-1')} FROM ${table} WHERE org_id = $1 AND pending AND span = 'd' AND period < $3`,
      `SELECT ${cols('$6::int')} FROM ${table} WHERE org_id = $1 AND span = 'd' AND period >= $4 AND period < $5`,
      `SELECT ${cols('$9::int')} FROM ${table} WHERE org_id = $1 AND span = 'd' AND period >= $7 AND period < $8`,
    ].join('\n      UNION ALL\n      ');
  return {
    metrics: branches('alert_metrics_rollup', (sg) => `source_type, source_name, ${signed(sg)}`),
    durations: branches('alert_durations_rollup', (sg) => `kind, micros, ${sg} * n AS n`),
    params: [orgId, new Date(cb), new Date(ca), ...endRange, ...startRange],
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

import type { Queryable } from '../../db/index.js';

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
 * Everything metrics and the SLA report say about the incidents created in [start, end) of one
 * organization. Definitions (docs/public-api.md):
 * - MTTA samples: incidents with acknowledged_at; duration acknowledged_at − created_at.
 * - MTTR samples: incidents with resolved_at; duration resolved_at − created_at.
 * - reoccurrences: Σ (failure_count − 1); occurrences of a source: Σ failure_count.
 * percentile_cont ignores NULLs, so the median needs no FILTER.
 */
export async function summarizeIncidents(
  db: Queryable,
  orgId: string,
  start: Date,
  end: Date,
  targets: { ackSeconds: number; resolveSeconds: number } = { ackSeconds: -1, resolveSeconds: -1 },
): Promise<IncidentSummary> {
  const params = [orgId, start, end];
  const durations = `SELECT source_type, source_name, acknowledged, status, silenced, correlated, failure_count,
                            extract(epoch FROM acknowledged_at - created_at)::float8 AS ack_s,
                            extract(epoch FROM resolved_at - created_at)::float8 AS res_s
                       FROM alerts WHERE org_id = $1 AND created_at >= $2 AND created_at < $3`;
  // Two scans of the window instead of one per figure: per-source aggregates (totals, by type,
  // noisiest and means all derive from them) and the two medians.
  const [groups, medians] = await Promise.all([
    db.query<SourceGroup>(
      `SELECT source_type, source_name, count(*)::int8 AS incidents, sum(failure_count)::int8 AS occurrences,
              count(*) FILTER (WHERE acknowledged)::int8 AS acknowledged,
              count(*) FILTER (WHERE status = 'resolved')::int8 AS resolved,
              count(*) FILTER (WHERE status = 'open' AND NOT acknowledged)::int8 AS open_unacknowledged,
              count(*) FILTER (WHERE silenced)::int8 AS silenced,
              count(*) FILTER (WHERE correlated)::int8 AS correlated,
              count(*) FILTER (WHERE ack_s <= $4)::int8 AS ack_within,
              count(*) FILTER (WHERE res_s <= $5)::int8 AS res_within,
              coalesce(sum(ack_s), 0) AS ack_sum, count(ack_s)::int8 AS ack_n,
              coalesce(sum(res_s), 0) AS res_sum, count(res_s)::int8 AS res_n
         FROM (${durations}) d
        GROUP BY source_type, source_name`,
      [...params, targets.ackSeconds, targets.resolveSeconds],
    ),
    db.query<{ mtta: number | null; mttr: number | null }>(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ack_s) AS mtta,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY res_s) AS mttr
         FROM (${durations}) d`,
      params,
    ),
  ]);
  const sum = (f: (g: SourceGroup) => number) => groups.rows.reduce((acc, g) => acc + f(g), 0);
  const byType = new Map<string, number>();
  for (const g of groups.rows) byType.set(g.source_type, (byType.get(g.source_type) ?? 0) + g.incidents);
  const ackN = sum((g) => g.ack_n);
  const resN = sum((g) => g.res_n);
  const m = medians.rows[0]!;
  return {
    incidents: sum((g) => g.incidents),
    acknowledged: sum((g) => g.acknowledged),
    resolved: sum((g) => g.resolved),
    openUnacknowledged: sum((g) => g.open_unacknowledged),
    silenced: sum((g) => g.silenced),
    correlated: sum((g) => g.correlated),
    reoccurrences: sum((g) => g.occurrences - g.incidents),
    acknowledgedWithinTarget: sum((g) => g.ack_within),
    resolvedWithinTarget: sum((g) => g.res_within),
    mtta: { medianSeconds: secs(m.mtta), meanSeconds: ackN ? secs(sum((g) => g.ack_sum) / ackN) : null, samples: ackN },
    mttr: { medianSeconds: secs(m.mttr), meanSeconds: resN ? secs(sum((g) => g.res_sum) / resN) : null, samples: resN },
    bySourceType: [...byType.entries()]
      .map(([sourceType, incidents]) => ({ sourceType, incidents }))
      .sort((a, b) => b.incidents - a.incidents || compare(a.sourceType, b.sourceType)),
    noisiestSources: groups.rows
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
  ack_within: number;
  res_within: number;
  ack_sum: number;
  ack_n: number;
  res_sum: number;
  res_n: number;
}

/** Code-point order, the same on every machine (no locale collation). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

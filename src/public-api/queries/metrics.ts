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
  const cond = 'org_id = $1 AND created_at >= $2 AND created_at < $3';
  const [totals, byType, noisy] = await Promise.all([
    db.query<any>(
      `WITH d AS (
         SELECT acknowledged, status, silenced, correlated, failure_count,
                extract(epoch FROM acknowledged_at - created_at)::float8 AS ack_s,
                extract(epoch FROM resolved_at - created_at)::float8 AS res_s
           FROM alerts WHERE ${cond})
       SELECT count(*)::int8 AS incidents,
              count(*) FILTER (WHERE acknowledged)::int8 AS acknowledged,
              count(*) FILTER (WHERE status = 'resolved')::int8 AS resolved,
              count(*) FILTER (WHERE status = 'open' AND NOT acknowledged)::int8 AS open_unacknowledged,
              count(*) FILTER (WHERE silenced)::int8 AS silenced,
              count(*) FILTER (WHERE correlated)::int8 AS correlated,
              coalesce(sum(failure_count - 1), 0)::int8 AS reoccurrences,
              count(*) FILTER (WHERE ack_s <= $4)::int8 AS ack_within,
              count(*) FILTER (WHERE res_s <= $5)::int8 AS res_within,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY ack_s) AS mtta_median,
              avg(ack_s) AS mtta_mean,
              count(ack_s)::int8 AS mtta_samples,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY res_s) AS mttr_median,
              avg(res_s) AS mttr_mean,
              count(res_s)::int8 AS mttr_samples
         FROM d`,
      [...params, targets.ackSeconds, targets.resolveSeconds],
    ),
    db.query<SourceTypeCount>(
      `SELECT source_type AS "sourceType", count(*)::int8 AS incidents FROM alerts WHERE ${cond}
        GROUP BY source_type ORDER BY incidents DESC, source_type ASC`,
      params,
    ),
    db.query<NoisySource>(
      `SELECT source_type AS "sourceType", source_name AS "sourceName", count(*)::int8 AS incidents,
              sum(failure_count)::int8 AS occurrences
         FROM alerts WHERE ${cond}
        GROUP BY source_type, source_name
        ORDER BY occurrences DESC, incidents DESC, source_type ASC, source_name ASC LIMIT ${NOISIEST_LIMIT}`,
      params,
    ),
  ]);
  const t = totals.rows[0];
  return {
    incidents: t.incidents,
    acknowledged: t.acknowledged,
    resolved: t.resolved,
    openUnacknowledged: t.open_unacknowledged,
    silenced: t.silenced,
    correlated: t.correlated,
    reoccurrences: t.reoccurrences,
    acknowledgedWithinTarget: t.ack_within,
    resolvedWithinTarget: t.res_within,
    mtta: { medianSeconds: secs(t.mtta_median), meanSeconds: secs(t.mtta_mean), samples: t.mtta_samples },
    mttr: { medianSeconds: secs(t.mttr_median), meanSeconds: secs(t.mttr_mean), samples: t.mttr_samples },
    bySourceType: byType.rows,
    noisiestSources: noisy.rows,
  };
}

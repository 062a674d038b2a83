/**
 * What metrics and the SLA report say about a window's incidents (definitions: docs/public-api.md),
 * and its assembly from per-source group rows: the one shape both the rollup reader and the
 * reference computation over `alerts` return.
 */

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
/** The counts of a period's incidents (the metrics answer's `totals`). */
export interface IncidentTotals {
  incidents: number;
  acknowledged: number;
  resolved: number;
  openUnacknowledged: number;
  silenced: number;
  correlated: number;
  reoccurrences: number;
}

export interface IncidentSummary extends IncidentTotals {
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
export const secs = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

/**
 * The summary from source groups: `groups` carry every count (per source or already per source
 * type: totals and bySourceType are sums either way), `noisiest` the per-source candidates for
 * the top 10 (every source, or at least the top 10 with ties).
 */
export function assemble(
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

export interface SourceGroup {
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

/** Code-point order, the same on every machine (no locale collation). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

import type { Queryable } from '../../db/index.js';
import { type Bin, countAtMost, histogramStats, toBin } from './duration-histogram.js';
import { type IncidentSummary, NOISIEST_LIMIT, type SourceGroup, assemble } from './incident-summary.js';
import { summarizeIncidentsReference } from './metrics-reference.js';
import { DAY_MS, type RollupState, type Strategy, planWindow } from './metrics-plan.js';

export type { DurationStats, IncidentSummary, NoisySource, SourceTypeCount } from './incident-summary.js';
export { NOISIEST_LIMIT } from './incident-summary.js';
export { histogramStats, type Bin } from './duration-histogram.js';
export { MEDIAN_WORK_MEM, summarizeIncidentsReference } from './metrics-reference.js';
export type { Strategy } from './metrics-plan.js';

/**
 * The rollup reads are a few tens of thousands of index-ordered rows; on a busy 2-vCPU machine a
 * parallel plan (workers, a merge sort of their partial groups) measured 1.5–2× slower than one
 * process hashing them. Calling the parallel-unsafe alert_metrics_serial() (migration 071) once
 * rules parallel plans out for the statement, with no SET LOCAL and so no transaction (which a
 * read-replica router would send to the primary).
 */
const SERIAL = '(SELECT alert_metrics_serial())';

const isUtcMidnight = (d: Date) => d.getTime() % DAY_MS === 0;

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
  // A read never writes: the rollup's pending deltas are summed in as they are (both plans are
  // exact with them); folding them and adding checkpoints is the periodic compaction's job
  // (src/alerts/jobs.ts), so a caller of the public API cannot make the server do that work.
  const { rows } = await db.query<RollupState>(
    `SELECT (SELECT max(period) FROM alert_metrics_rollup WHERE org_id = $1 AND span = 'd') AS last_day,
            (SELECT coalesce(string_agg((extract(epoch FROM upto) * 1000)::int8::text, ',' ORDER BY upto), '')
               FROM alert_metrics_checkpoints WHERE org_id = $1) AS checkpoints`,
    [orgId],
  );
  const state = rows[0]!;
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

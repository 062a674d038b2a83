/**
 * Maintenance of the exact metrics rollup (`alert_metrics_rollup`, `alert_durations_rollup`,
 * migration 070). Triggers on `alerts` append signed deltas; this folds an organization's pending
 * deltas, with the compacted rows of the same groups, into one row per group — in one statement,
 * so every snapshot sees the same sums before and after. One compaction per organization at a
 * time (a try-lock: a second caller skips); rows committed meanwhile stay pending.
 */
import type { Queryable } from '../db/index.js';

/** Pending deltas of one organization above which a metrics request compacts them first. */
export const COMPACT_METRICS_AFTER_PENDING = 2000;

/** Advisory lock key seed of this compaction (distinct from the count rollup's). */
const COMPACT_LOCK_SEED = 7344;

export async function compactAlertMetrics(db: Queryable, orgId: string): Promise<boolean> {
  const { rows } = await db.query<{ done: boolean }>(
    `WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtextextended($1, ${COMPACT_LOCK_SEED})) AS ok),
          dm AS (DELETE FROM alert_metrics_rollup c
                  WHERE (SELECT ok FROM lock) AND c.org_id = $1
                    AND (c.span, c.period, c.source_type, c.source_name) IN
                        (SELECT span, period, source_type, source_name FROM alert_metrics_rollup WHERE org_id = $1 AND pending)
                 RETURNING c.*),
          im AS (INSERT INTO alert_metrics_rollup (org_id, span, period, source_type, source_name, incidents, occurrences,
                   acknowledged, resolved, open_unacknowledged, silenced, correlated, pending)
                 SELECT $1, span, period, source_type, source_name, sum(incidents), sum(occurrences), sum(acknowledged),
                        sum(resolved), sum(open_unacknowledged), sum(silenced), sum(correlated), false
                   FROM dm GROUP BY span, period, source_type, source_name
                 HAVING sum(incidents) <> 0 OR sum(occurrences) <> 0 RETURNING 1),
          dd AS (DELETE FROM alert_durations_rollup c
                  WHERE (SELECT ok FROM lock) AND c.org_id = $1
                    AND (c.span, c.period, c.kind, c.micros) IN
                        (SELECT span, period, kind, micros FROM alert_durations_rollup WHERE org_id = $1 AND pending)
                 RETURNING c.span, c.period, c.kind, c.micros, c.n),
          id AS (INSERT INTO alert_durations_rollup (org_id, span, period, kind, micros, n, pending)
                 SELECT $1, span, period, kind, micros, sum(n), false FROM dd
                  GROUP BY span, period, kind, micros HAVING sum(n) <> 0 RETURNING 1)
     SELECT (SELECT ok FROM lock) AS done, (SELECT count(*) FROM im) + (SELECT count(*) FROM id) AS inserted`,
    [orgId],
  );
  return rows[0]?.done === true;
}

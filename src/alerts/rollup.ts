/**
 * Maintenance of the alert count rollup (`alert_counts`, `alert_counts_daily`, migration 031).
 * Triggers on `alerts` append +/- deltas; this folds them. Lives beside the alerts module because
 * it maintains tables derived from `alerts`; the public API reads them, the alert jobs and list
 * requests fold them.
 */
import type { Queryable } from '../db/index.js';

/** Pending rollup deltas of one organization above which a list request compacts them. */
export const COMPACT_AFTER_PENDING = 1000;

/** Advisory lock key of the compaction of one organization's rollup (hashtextextended seed). */
const COMPACT_LOCK_SEED = 7343;

/**
 * Folds the pending deltas of an organization's rollup, together with the compacted rows of the
 * same groups, into one row per group — in one statement, so every snapshot sees either the old
 * rows or the new ones with the same sums. Rows committed meanwhile by writers are not touched
 * (they stay pending). One compaction per organization at a time (a try-lock: a second caller
 * simply skips), so two compactions never wait on each other's deletes.
 */
export async function compactAlertCounts(db: Queryable, orgId: string): Promise<boolean> {
  const { rows } = await db.query<{ done: boolean }>(
    `WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtextextended($1, ${COMPACT_LOCK_SEED})) AS ok),
          dh AS (DELETE FROM alert_counts c
                  WHERE (SELECT ok FROM lock) AND c.org_id = $1
                    AND (c.hour, c.status, c.source_type) IN
                        (SELECT hour, status, source_type FROM alert_counts WHERE org_id = $1 AND pending)
                 RETURNING c.hour, c.status, c.source_type, c.n),
          ih AS (INSERT INTO alert_counts (org_id, hour, status, source_type, n, pending)
                 SELECT $1, hour, status, source_type, sum(n), false FROM dh
                  GROUP BY hour, status, source_type HAVING sum(n) <> 0 RETURNING 1),
          dd AS (DELETE FROM alert_counts_daily c
                  WHERE (SELECT ok FROM lock) AND c.org_id = $1
                    AND (c.day, c.status, c.source_type) IN
                        (SELECT day, status, source_type FROM alert_counts_daily WHERE org_id = $1 AND pending)
                 RETURNING c.day, c.status, c.source_type, c.n),
          id AS (INSERT INTO alert_counts_daily (org_id, day, status, source_type, n, pending)
                 SELECT $1, day, status, source_type, sum(n), false FROM dd
                  GROUP BY day, status, source_type HAVING sum(n) <> 0 RETURNING 1)
     SELECT (SELECT ok FROM lock) AS done, (SELECT count(*) FROM ih) + (SELECT count(*) FROM id) AS inserted`,
    [orgId],
  );
  return rows[0]?.done === true;
}

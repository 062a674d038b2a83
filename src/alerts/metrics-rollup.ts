/**
 * Maintenance of the exact metrics rollup (`alert_metrics_rollup`, `alert_durations_rollup`,
 * migration 070) and of its prefix checkpoints (migration 071). Triggers on `alerts` append signed
 * deltas; this folds an organization's pending deltas, with the compacted rows of the same groups,
 * into one row per group — in one statement, so every snapshot sees the same sums before and
 * after — and adds the daily ones to every checkpoint after their day in that same statement
 * (so a checkpoint always equals the compacted daily rows before it). Then it registers the
 * checkpoints that the data now reaches (every Monday up to the first one after the last day
 * with alerts), each the previous checkpoint plus the days in between. One compaction per
 * organization at a time (a try-lock: a second caller skips); rows committed meanwhile stay pending.
 */
import type { Database, Queryable } from '../db/index.js';

/** Advisory lock key seed of this compaction (distinct from the count rollup's). */
const COMPACT_LOCK_SEED = 7344;

/** Memory for the cumulative sums of a first build (a year is ~10^6 grid rows on a busy org). */
const BUILD_WORK_MEM = '64MB';

const LOCK = `pg_try_advisory_xact_lock(hashtextextended($1, ${COMPACT_LOCK_SEED}))`;

const METRIC_COLUMNS = ['incidents', 'occurrences', 'acknowledged', 'resolved', 'open_unacknowledged', 'silenced', 'correlated'];
const sums = (prefix: string) => METRIC_COLUMNS.map((c) => `sum(${prefix}${c})`).join(', ');
const addExcluded = (table: string, cols: string[]) => cols.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ');

/**
 * Folds the pending deltas and feeds the daily ones to the existing checkpoints. The folded rows
 * are written in period order: a hash aggregate's order would scatter one month's or day's rows
 * over the whole table, and a window's read would then touch a page per row.
 */
export const FOLD_SQL = `WITH lock AS (SELECT ${LOCK} AS ok),
      dm AS (DELETE FROM alert_metrics_rollup c
              WHERE (SELECT ok FROM lock) AND c.org_id = $1
                AND (c.span, c.period, c.source_type, c.source_name) IN
                    (SELECT span, period, source_type, source_name FROM alert_metrics_rollup WHERE org_id = $1 AND pending)
             RETURNING c.*),
      im AS (INSERT INTO alert_metrics_rollup (org_id, span, period, source_type, source_name, incidents, occurrences,
               acknowledged, resolved, open_unacknowledged, silenced, correlated, pending)
             SELECT $1, span, period, source_type, source_name, ${sums('')}, false
               FROM dm GROUP BY span, period, source_type, source_name
             HAVING sum(incidents) <> 0 OR sum(occurrences) <> 0
              ORDER BY span, period RETURNING 1),
      pm AS (INSERT INTO alert_metrics_prefix AS p (org_id, upto, source_type, source_name, ${METRIC_COLUMNS.join(', ')})
             SELECT $1, k.upto, dm.source_type, dm.source_name, ${sums('dm.')}
               FROM dm JOIN alert_metrics_checkpoints k ON k.org_id = $1 AND dm.period < k.upto
              WHERE dm.pending AND dm.span = 'd'
              GROUP BY k.upto, dm.source_type, dm.source_name
             ON CONFLICT (org_id, upto, source_type, source_name) DO UPDATE SET ${addExcluded('p', METRIC_COLUMNS)}
             RETURNING 1),
      dd AS (DELETE FROM alert_durations_rollup c
              WHERE (SELECT ok FROM lock) AND c.org_id = $1
                AND (c.span, c.period, c.kind, c.micros) IN
                    (SELECT span, period, kind, micros FROM alert_durations_rollup WHERE org_id = $1 AND pending)
             RETURNING c.span, c.period, c.kind, c.micros, c.n, c.pending),
      id AS (INSERT INTO alert_durations_rollup (org_id, span, period, kind, micros, n, pending)
             SELECT $1, span, period, kind, micros, sum(n), false FROM dd
              GROUP BY span, period, kind, micros HAVING sum(n) <> 0
              ORDER BY span, period RETURNING 1),
      pd AS (INSERT INTO alert_durations_prefix AS p (org_id, upto, kind, micros, n)
             SELECT $1, k.upto, dd.kind, dd.micros, sum(dd.n)
               FROM dd JOIN alert_metrics_checkpoints k ON k.org_id = $1 AND dd.period < k.upto
              WHERE dd.pending AND dd.span = 'd'
              GROUP BY k.upto, dd.kind, dd.micros
             ON CONFLICT (org_id, upto, kind, micros) DO UPDATE SET n = p.n + excluded.n
             RETURNING 1)
 SELECT (SELECT ok FROM lock) AS done,
        (SELECT count(*) FROM im) + (SELECT count(*) FROM id) + (SELECT count(*) FROM pm) + (SELECT count(*) FROM pd) AS written`;

const WEEK = `interval '168 hours'`; // absolute hours: '7 days' would follow the session's time zone

/**
 * Registers the checkpoints from the last one (or the Monday of the first day with alerts) to the
 * first Monday after the last day with alerts. Each new checkpoint's sums are the last
 * checkpoint's plus the compacted daily rows between: per group, a running sum over the weeks.
 */
export const EXTEND_SQL = `WITH lock AS (SELECT ${LOCK} AS ok),
      b AS (SELECT (SELECT max(upto) FROM alert_metrics_checkpoints WHERE org_id = $1) AS last,
                   (SELECT min(period) FROM alert_metrics_rollup WHERE org_id = $1 AND span = 'd') AS lo,
                   (SELECT max(period) FROM alert_metrics_rollup WHERE org_id = $1 AND span = 'd') AS hi
              FROM lock WHERE ok),
      r AS (SELECT last, coalesce(last + ${WEEK}, date_trunc('week', lo, 'UTC')) AS first_new,
                   date_trunc('week', hi, 'UTC') + ${WEEK} AS target
              FROM b WHERE hi IS NOT NULL),
      nc AS (SELECT generate_series(first_new, target, ${WEEK}) AS upto FROM r),
      mb AS (SELECT p.* FROM alert_metrics_prefix p JOIN r ON p.org_id = $1 AND p.upto = r.last),
      mw AS (SELECT source_type, source_name, date_trunc('week', period, 'UTC') + ${WEEK} AS upto, ${METRIC_COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(', ')}
               FROM alert_metrics_rollup JOIN r ON period >= coalesce(r.last, '-infinity') AND period < r.target
              WHERE org_id = $1 AND span = 'd' AND NOT pending
              GROUP BY 1, 2, 3),
      mg AS (SELECT source_type, source_name FROM mb UNION SELECT source_type, source_name FROM mw),
      mc AS (SELECT g.source_type, g.source_name, nc.upto,
                    ${METRIC_COLUMNS.map((c) => `coalesce(b.${c}, 0) + sum(coalesce(w.${c}, 0)) OVER win AS ${c}`).join(',\n                    ')}
               FROM mg g CROSS JOIN nc
               LEFT JOIN mb b ON b.source_type = g.source_type AND b.source_name = g.source_name
               LEFT JOIN mw w ON w.source_type = g.source_type AND w.source_name = g.source_name AND w.upto = nc.upto
             WINDOW win AS (PARTITION BY g.source_type, g.source_name ORDER BY nc.upto)),
      im AS (INSERT INTO alert_metrics_prefix (org_id, upto, source_type, source_name, ${METRIC_COLUMNS.join(', ')})
             SELECT $1, upto, source_type, source_name, ${METRIC_COLUMNS.join(', ')} FROM mc
              WHERE ${METRIC_COLUMNS.map((c) => `${c} <> 0`).join(' OR ')}
              ORDER BY upto, source_type, source_name
             RETURNING 1),
      db AS (SELECT p.kind, p.micros, p.n FROM alert_durations_prefix p JOIN r ON p.org_id = $1 AND p.upto = r.last),
      dw AS (SELECT kind, micros, date_trunc('week', period, 'UTC') + ${WEEK} AS upto, sum(n) AS n
               FROM alert_durations_rollup JOIN r ON period >= coalesce(r.last, '-infinity') AND period < r.target
              WHERE org_id = $1 AND span = 'd' AND NOT pending
              GROUP BY 1, 2, 3),
      dg AS (SELECT kind, micros FROM db UNION SELECT kind, micros FROM dw),
      dc AS (SELECT g.kind, g.micros, nc.upto,
                    coalesce(b.n, 0) + sum(coalesce(w.n, 0)) OVER (PARTITION BY g.kind, g.micros ORDER BY nc.upto) AS n
               FROM dg g CROSS JOIN nc
               LEFT JOIN db b ON b.kind = g.kind AND b.micros = g.micros
               LEFT JOIN dw w ON w.kind = g.kind AND w.micros = g.micros AND w.upto = nc.upto),
      id AS (INSERT INTO alert_durations_prefix (org_id, upto, kind, micros, n)
             SELECT $1, upto, kind, micros, n FROM dc WHERE n <> 0 ORDER BY upto, kind, micros RETURNING 1),
      ik AS (INSERT INTO alert_metrics_checkpoints (org_id, upto) SELECT $1, upto FROM nc RETURNING 1)
 SELECT (SELECT count(*) FROM ik) AS checkpoints, (SELECT count(*) FROM im) + (SELECT count(*) FROM id) AS written`;

export async function compactAlertMetrics(db: Queryable, orgId: string): Promise<boolean> {
  const tx = (db as Partial<Database>).tx;
  if (typeof tx === 'function') {
    // Lock first, then each statement takes its snapshot after the previous holder committed.
    return tx.call(db, async (q: Queryable) => {
      const { rows } = await q.query<{ ok: boolean }>(`SELECT ${LOCK} AS ok`, [orgId]);
      if (rows[0]?.ok !== true) return false;
      // The planner cannot know how few checkpoints are new (it guesses ~10^8 grid rows) and
      // would JIT-compile the statement: ~1.5 s even when there is nothing to add.
      await q.query(`SET LOCAL work_mem = '${BUILD_WORK_MEM}'`);
      await q.query('SET LOCAL jit = off');
      await q.query(FOLD_SQL, [orgId]);
      await q.query(EXTEND_SQL, [orgId]);
      return true;
    }) as Promise<boolean>;
  }
  const { rows } = await db.query<{ done: boolean }>(FOLD_SQL, [orgId]);
  if (rows[0]?.done !== true) return false;
  await db.query(EXTEND_SQL, [orgId]);
  return true;
}

/**
 * Endpoint health: a destination's run of failed deliveries, its last success and failure, and
 * whether it is disabled (by a person or by the automatic rule). Written here only — by the
 * settle step of each outcome batch, and when a destination is disabled or enabled — and read
 * by the admin API and the metrics scrape.
 *
 * A delivery counts once, when it ends: succeeded resets the run, failed or abandoned extends
 * it. The automatic rule disables a destination whose run is at least AUTO_DISABLE_MIN_FAILURES
 * long AND began at least `autoDisableAfterMs` ago (null: the rule is off).
 */
import type { Queryable } from '../db/index.js';

type Q = Pick<Queryable, 'query'>;

/** Failures in a row before the automatic rule may disable a destination. */
export const AUTO_DISABLE_MIN_FAILURES = 10;
/** The reason stored when a person disables a destination through the admin API. */
export const DISABLED_BY_PERSON_REASON = 'disabled through the admin API';

export interface AutoDisabled {
  orgId: string;
  destinationId: string;
  consecutiveFailures: number;
  failingSince: Date;
  reason: string;
}

/**
 * The health upsert of one batch as a CTE named `h`, reading a CTE or table `b(dest, ok, after,
 * fails)` (one row per destination: any success, failures after the last success, failures at
 * all), and the condition that picks the destinations the automatic rule must disable now. The
 * parameters are given by placeholder: `now` (timestamptz), `afterMs` (bigint or null: rule off),
 * `minFailures` (int). The settle statement (transitions.ts) records health in the same statement
 * as the outcomes, so each batch costs one round trip and one commit.
 */
export function healthUpsertSql(now: string, afterMs: string, minFailures: string): { cte: string; dueWhere: string } {
  return {
    cte: `h AS (
       INSERT INTO destination_health AS h (destination_id, org_id, consecutive_failures, failing_since, last_success_at, last_failure_at)
       SELECT b.dest, s.org_id, b.after, CASE WHEN b.after > 0 THEN ${now}::timestamptz END,
              CASE WHEN b.ok THEN ${now}::timestamptz END, CASE WHEN b.fails > 0 THEN ${now}::timestamptz END
         FROM b JOIN destinations s ON s.id = b.dest ORDER BY b.dest
       ON CONFLICT (destination_id) DO UPDATE SET
         consecutive_failures = CASE WHEN EXCLUDED.last_success_at IS NOT NULL THEN EXCLUDED.consecutive_failures
                                     ELSE h.consecutive_failures + EXCLUDED.consecutive_failures END,
         failing_since = CASE WHEN EXCLUDED.last_success_at IS NOT NULL THEN EXCLUDED.failing_since
                              ELSE COALESCE(h.failing_since, EXCLUDED.failing_since) END,
         last_success_at = COALESCE(EXCLUDED.last_success_at, h.last_success_at),
         last_failure_at = COALESCE(EXCLUDED.last_failure_at, h.last_failure_at)
       RETURNING h.destination_id, h.consecutive_failures, h.failing_since, h.disabled_at
     )`,
    dueWhere: `${afterMs}::bigint IS NOT NULL AND h.consecutive_failures >= ${minFailures} AND h.disabled_at IS NULL
        AND h.failing_since <= ${now}::timestamptz - make_interval(secs => ${afterMs}::bigint / 1000.0)`,
  };
}

/** A destination the automatic rule must disable (its run of failures, from the health upsert). */
export interface DisableDue {
  destination_id: string;
  consecutive_failures: number;
  failing_since: Date | string;
}

/** The automatic rule fires (rare): destination and health marks change together (one statement, two tables). */
export async function disableDue(q: Q, due: DisableDue[], now: Date): Promise<AutoDisabled[]> {
  if (due.length === 0) return [];
  const { rows } = await q.query<{ org_id: string; destination_id: string; consecutive_failures: number; failing_since: Date; disabled_reason: string }>(
    `WITH due AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[]) AS t(dest, n, since)
     ), off AS (
       UPDATE destinations s SET enabled = false, updated_at = $4
         FROM due WHERE s.id = due.dest AND s.enabled AND s.deleted_at IS NULL
       RETURNING s.id
     )
     UPDATE destination_health x SET disabled_at = $4,
            disabled_reason = 'automatically disabled: ' || due.n || ' deliveries in a row failed since '
                              || to_char(due.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
       FROM due JOIN off ON off.id = due.dest
      WHERE x.destination_id = due.dest
     RETURNING x.org_id, x.destination_id, due.n AS consecutive_failures, due.since AS failing_since, x.disabled_reason`,
    [due.map((d) => d.destination_id), due.map((d) => d.consecutive_failures), due.map((d) => new Date(d.failing_since).toISOString()), now],
  );
  return rows.map((r) => ({
    orgId: r.org_id,
    destinationId: r.destination_id,
    consecutiveFailures: r.consecutive_failures,
    failingSince: new Date(r.failing_since),
    reason: r.disabled_reason,
  }));
}

/**
 * A person changed `enabled`. Disabling records when and why; enabling resets the run of
 * failures and clears the disabled marks (the destination starts afresh).
 */
export async function recordDestinationEnabled(q: Q, orgId: string, destinationId: string, enabled: boolean, now: Date): Promise<void> {
  if (enabled) {
    await q.query(
      `UPDATE destination_health SET consecutive_failures = 0, failing_since = NULL, disabled_at = NULL, disabled_reason = NULL
        WHERE org_id = $1 AND destination_id = $2`,
      [orgId, destinationId],
    );
    return;
  }
  await q.query(
    `INSERT INTO destination_health (destination_id, org_id, disabled_at, disabled_reason) VALUES ($2, $1, $3, $4)
     ON CONFLICT (destination_id) DO UPDATE SET disabled_at = COALESCE(destination_health.disabled_at, $3),
            disabled_reason = COALESCE(destination_health.disabled_reason, $4)`,
    [orgId, destinationId, now, DISABLED_BY_PERSON_REASON],
  );
}

export interface HealthRecord {
  destinationId: string;
  consecutiveFailures: number;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** Deliveries that ended in the last 24 hours (test sends excluded), and how many succeeded. */
  ended24h: number;
  succeeded24h: number;
}

/** Health of the given destinations of one organization, with the 24-hour counts computed now. */
export async function readDestinationHealth(q: Q, orgId: string, destinationIds: string[], now: Date): Promise<Map<string, HealthRecord>> {
  const out = new Map<string, HealthRecord>();
  if (destinationIds.length === 0) return out;
  const { rows } = await q.query<{
    id: string;
    consecutive_failures: number | null;
    last_success_at: Date | null;
    last_failure_at: Date | null;
    disabled_at: Date | null;
    disabled_reason: string | null;
    ended: number;
    succeeded: number;
  }>(
    `SELECT s.id, h.consecutive_failures, h.last_success_at, h.last_failure_at, h.disabled_at, h.disabled_reason,
            c.ended, c.succeeded
       FROM destinations s LEFT JOIN destination_health h ON h.destination_id = s.id
       CROSS JOIN LATERAL (
         SELECT count(*) FILTER (WHERE d.status IN ('succeeded', 'failed', 'abandoned'))::int AS ended,
                count(*) FILTER (WHERE d.status = 'succeeded')::int AS succeeded
           FROM deliveries d
          WHERE d.destination_id = s.id AND d.completed_at > $3 AND d.completed_at IS NOT NULL AND NOT d.test) c
      WHERE s.org_id = $1 AND s.id = ANY($2::text[])`,
    [orgId, destinationIds, new Date(now.getTime() - 86_400_000)],
  );
  for (const r of rows) {
    out.set(r.id, {
      destinationId: r.id,
      consecutiveFailures: r.consecutive_failures ?? 0,
      lastSuccessAt: r.last_success_at,
      lastFailureAt: r.last_failure_at,
      disabledAt: r.disabled_at,
      disabledReason: r.disabled_reason,
      ended24h: r.ended,
      succeeded24h: r.succeeded,
    });
  }
  return out;
}

/** Disabled destinations (not deleted), by who disabled them: for the metrics scrape. */
export async function countDisabledDestinations(q: Q): Promise<{ automatic: number; manual: number }> {
  const { rows } = await q.query<{ automatic: number; manual: number }>(
    `SELECT count(*) FILTER (WHERE h.disabled_reason LIKE 'automatically%')::int AS automatic,
            count(*) FILTER (WHERE h.disabled_reason IS NULL OR h.disabled_reason NOT LIKE 'automatically%')::int AS manual
       FROM destinations s LEFT JOIN destination_health h ON h.destination_id = s.id
      WHERE NOT s.enabled AND s.deleted_at IS NULL`,
  );
  return rows[0]!;
}

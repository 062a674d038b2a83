/**
 * Late changes (docs/monitoring.md "What changed before it broke"): the activity log shows most
 * records within 30 minutes and some after 60, so a change that happened before an incident
 * opened is often stored after it opened. This pass finds changes received since it last looked,
 * each of which happened inside the look-back of an incident (open or resolved) that opened
 * before the change was received, and joins those incidents again (join.ts replaces their rows,
 * so the incident's API view and page show the change from then on).
 */
import type { Database, Queryable } from '../../db/index.js';
import { type BackgroundJob, startPeriodicJob } from '../../background-job.js';
import type { AppContext } from '../../context.js';
import { joinIncident, type JoinableAlert } from './join.js';

/** The pass re-reads this much before where it stopped: a change committed late with an earlier received_at is not missed. */
const OVERLAP_MINUTES = 5;

interface LateRow extends JoinableAlert {
  org_id: string;
  lookback: number;
}

/**
 * Joins again the incidents a change received after they opened belongs to; returns how many.
 * `tenantRef`: one tenant connection (the activity collector's commit may call it for its own);
 * otherwise every tenant connection with changes received since the pass last looked.
 */
export async function attachLateChanges(q: Queryable, now: Date, tenantRef: string | null = null): Promise<number> {
  const { rows } = await q.query<LateRow>(
    `WITH fresh AS (
       SELECT c.org_id, c.tenant_ref, c.occurred_at, c.received_at, t.change_lookback_minutes AS lookback
         FROM tenant_changes c
         JOIN tenants t ON t.id = c.tenant_ref
         LEFT JOIN change_join_progress p ON p.tenant_ref = c.tenant_ref
        WHERE ($2::text IS NULL OR c.tenant_ref = $2)
          AND c.received_at > COALESCE(p.received_until - make_interval(mins => ${OVERLAP_MINUTES}), '-infinity'::timestamptz)
          AND c.received_at <= $1)
     SELECT DISTINCT a.id, a.org_id, a.source_type, a.source_id, a.created_at, f.tenant_ref, f.lookback
       FROM fresh f
       JOIN alerts a ON a.org_id = f.org_id AND (a.tenant_ref = f.tenant_ref OR (a.source_type = 'Tenant' AND a.source_id = f.tenant_ref))
      WHERE a.created_at < f.received_at AND a.created_at >= f.occurred_at
        AND a.created_at <= f.occurred_at + make_interval(mins => f.lookback)
      ORDER BY a.id`,
    [now, tenantRef],
  );
  for (const a of rows) await joinIncident(q, a.org_id, a, now, a.lookback);
  // Every tenant connection the pass looked at has now been read up to `now`.
  await q.query(
    `INSERT INTO change_join_progress (tenant_ref, received_until)
     SELECT DISTINCT c.tenant_ref, $1::timestamptz FROM tenant_changes c
       LEFT JOIN change_join_progress p ON p.tenant_ref = c.tenant_ref
      WHERE ($2::text IS NULL OR c.tenant_ref = $2) AND c.received_at <= $1
        AND c.received_at > COALESCE(p.received_until - make_interval(mins => ${OVERLAP_MINUTES}), '-infinity'::timestamptz)
     ON CONFLICT (tenant_ref) DO UPDATE SET received_until = GREATEST(change_join_progress.received_until, EXCLUDED.received_until)`,
    [now, tenantRef],
  );
  return rows.length;
}

/** The background pass: late changes of every tenant connection, in one transaction. */
export async function lateChangesPass(db: Database, now: Date): Promise<number> {
  return db.tx((q) => attachLateChanges(q, now));
}

/** Runs the pass every minute (service.ts), so a late change shows on its incident within a minute of being stored. */
export function startLateChangesJob(ctx: AppContext, everyMs = 60_000): BackgroundJob {
  const log = ctx.log.child({ component: 'change-join' });
  return startPeriodicJob({
    everyMs,
    firstAfterMs: 10_000,
    pass: async () => {
      const n = await lateChangesPass(ctx.db, ctx.clock.now());
      if (n > 0) log.info({ incidents: n }, 'late changes joined to incidents');
    },
    onError: (err) => log.warn({ err: (err as Error).message }, 'late change join failed'),
  });
}

/**
 * The lease on a schedule row, kept by the DATABASE's clock: instances' clocks drift, the
 * database's is one. A row is claimed when it is due (by the engine's clock, which tests drive)
 * and its lease has run out (by the database's); a claim and each renewal set `locked_until` to
 * the database's clock plus the lease; a run's commit writes only while its claim still holds the
 * row (the fence: the row locked in the commit's own transaction). A run that lost its lease
 * writes nothing: whoever holds the row now does the work.
 *
 * The fence is per claim, not per instance: each claim writes a token of its own in `locked_by`
 * (the instance's id and a random part), and renewal, the fence, the run's finish and release all
 * compare that token. An instance whose run stalled past its lease and then claimed the same row
 * again holds two claims; only the newer one's writes pass. Every comparison with the lease uses
 * `clock_timestamp()`, the database's clock when the statement runs: `now()` is the
 * transaction's start, earlier by however long the transaction waited for a lock.
 */
import type { Queryable } from '../../db/index.js';
import type { TenantProblem } from './self-watch.js';

/** Who holds which row: `holder` is the claim's own token (as written in `locked_by`). */
export interface Lease {
  tenantRef: string;
  collector: string;
  holder: string;
}

/** The run no longer holds its schedule row (the lease ran out, a renewal failed, the tenant was deleted). */
export class LeaseLostError extends Error {
  constructor(lease: Lease, why: string) {
    super(`the ${lease.collector} run lost its lease (${why}); it wrote nothing`);
    this.name = 'LeaseLostError';
  }
}

export interface ClaimedRow {
  tenant_ref: string;
  collector: string;
  org_id: string;
  interval_seconds: number;
  next_run_at: Date;
  problem_kind: TenantProblem | null;
  problem_since: Date | null;
  problem_reported: boolean;
  /** The cause of the stored problem (self-watch.ts `problemCause`), null when none or not yet recorded. */
  problem_cause: string | null;
  behind_since: Date | null;
  behind_runs: number;
  behind_reported: boolean;
  /** The collector has done its first pass of the tenant (first-pass.ts). */
  first_pass_done: boolean;
  /** This claim's token (`locked_by`): the lease's holder. */
  locked_by: string;
}

const LEASE_UNTIL = (param: string) => `clock_timestamp() + make_interval(secs => ${param}::double precision / 1000)`;

const CLAIM_SQL = `
UPDATE collector_schedules s SET locked_until = ${LEASE_UNTIL('$2')}, locked_by = $3 || ':' || md5(random()::text || clock_timestamp()::text)
  FROM (SELECT tenant_ref, collector FROM collector_schedules
         WHERE enabled AND collector = ANY($4::text[]) AND next_run_at <= $1
           AND (locked_until IS NULL OR locked_until <= clock_timestamp())
         ORDER BY next_run_at
         LIMIT $5
         FOR UPDATE SKIP LOCKED) d
 WHERE s.tenant_ref = d.tenant_ref AND s.collector = d.collector
RETURNING s.tenant_ref, s.collector, s.org_id, s.interval_seconds, s.next_run_at, s.problem_kind, s.problem_since, s.problem_reported, s.problem_cause,
          s.behind_since, s.behind_runs, s.behind_reported, s.first_pass_done, s.locked_by`;

/**
 * Leases up to `limit` rows of these collectors that are due by `now` and not leased by anyone;
 * each claim's token (`locked_by`) starts with `holder`, the instance's id.
 */
export async function claimDue(q: Queryable, holder: string, collectors: string[], now: Date, leaseMs: number, limit: number): Promise<ClaimedRow[]> {
  const { rows } = await q.query<ClaimedRow>(CLAIM_SQL, [now, leaseMs, holder, collectors, limit]);
  return rows;
}

/** Extends a lease still held; throws LeaseLostError when the row is no longer this holder's (0 rows). */
export async function renewLease(q: Queryable, lease: Lease, leaseMs: number): Promise<void> {
  const { rowCount } = await q.query(
    `UPDATE collector_schedules SET locked_until = ${LEASE_UNTIL('$4')}
      WHERE tenant_ref = $1 AND collector = $2 AND locked_by = $3 AND locked_until > clock_timestamp()`,
    [lease.tenantRef, lease.collector, lease.holder, leaseMs],
  );
  if (!rowCount) throw new LeaseLostError(lease, 'the renewal found the row taken or expired');
}

/**
 * The fence: locks the schedule row in the caller's transaction if this holder's lease is still
 * current, else throws LeaseLostError (and the transaction writes nothing). Held until commit, so
 * no other instance can claim the row between this check and the writes.
 */
export async function holdLease(q: Queryable, lease: Lease): Promise<void> {
  const { rows } = await q.query(
    `SELECT 1 FROM collector_schedules
      WHERE tenant_ref = $1 AND collector = $2 AND locked_by = $3 FOR UPDATE`,
    [lease.tenantRef, lease.collector, lease.holder],
  );
  if (rows.length === 0) throw new LeaseLostError(lease, 'another claim holds the row');
  // Checked after the row lock was granted, on the clock of that moment: a lease that ran out while
  // this transaction waited for the lock is not held, though it was when the transaction began.
  const current = await q.query(
    'SELECT 1 FROM collector_schedules WHERE tenant_ref = $1 AND collector = $2 AND locked_by = $3 AND locked_until > clock_timestamp()',
    [lease.tenantRef, lease.collector, lease.holder],
  );
  if (current.rows.length === 0) throw new LeaseLostError(lease, 'the lease ran out');
}

/** Gives a row back untouched (a run interrupted by shutdown or fenced out): it is due again at once. */
export async function releaseLease(q: Queryable, lease: Lease): Promise<void> {
  await q.query('UPDATE collector_schedules SET locked_until = NULL, locked_by = NULL WHERE tenant_ref = $1 AND collector = $2 AND locked_by = $3', [
    lease.tenantRef,
    lease.collector,
    lease.holder,
  ]);
}

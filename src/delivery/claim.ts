/**
 * Claiming due deliveries (ARCHITECTURE §3): one transaction picks due rows with
 * FOR UPDATE SKIP LOCKED, charges each organization's shared per-cycle budget, and leases the
 * granted rows to this worker. Rows over budget or over the per-destination bound are left
 * untouched for a later pass (or another instance).
 */
import type { Queryable } from '../db/index.js';

export interface ClaimedRow {
  id: string;
  org_id: string;
  destination_id: string;
  alert_id: string;
  event: string;
  event_seq: number | null;
  body: string;
  attempts: number;
  attempt_base: number;
  previous_unknown: boolean;
  kind: string;
  url: string | null;
  config: Record<string, unknown>;
  credentials_sealed: string | null;
  signing_secret_sealed: string | null;
  ref: Record<string, unknown> | null;
}

export interface ClaimOptions {
  workerId: string;
  now: Date;
  limit: number;
  leaseMs: number;
  /** Destinations already at their concurrency bound in this worker, and how many slots each has left. */
  destinationSlots: (destinationId: string) => number;
  busyDestinations: string[];
  cycleSeconds: number;
  orgCapPerCycle: number;
}

export interface ClaimResult {
  rows: ClaimedRow[];
  /** True when some organization hit its cap this cycle (wake again at the next cycle). */
  capped: boolean;
  /** True when more rows were due than this claim leased (bound, cap or limit). */
  more: boolean;
  cycleEnd: Date;
}

export function cycleStart(now: Date, cycleSeconds: number): Date {
  const ms = cycleSeconds * 1000;
  return new Date(Math.floor(now.getTime() / ms) * ms);
}

export async function claimDue(q: Queryable, o: ClaimOptions): Promise<ClaimResult> {
  const cycle = cycleStart(o.now, o.cycleSeconds);
  const cycleEnd = new Date(cycle.getTime() + o.cycleSeconds * 1000);
  const cand = await q.query<{ id: string; org_id: string; destination_id: string }>(
    `SELECT d.id, d.org_id, d.destination_id FROM deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at <= $1
        AND (d.locked_until IS NULL OR d.locked_until <= $1)
        AND NOT (d.destination_id = ANY($3::text[]))
        AND NOT EXISTS (SELECT 1 FROM delivery_org_budget b
                         WHERE b.org_id = d.org_id AND b.cycle_start = $4 AND b.used >= $5)
      ORDER BY d.next_attempt_at
      LIMIT $2
      FOR UPDATE OF d SKIP LOCKED`,
    [o.now, o.limit * 2, o.busyDestinations, cycle, o.orgCapPerCycle],
  );
  if (cand.rows.length === 0) return { rows: [], capped: false, more: false, cycleEnd };

  // Per-destination bound first (local), then the organizations' shared budgets.
  const perDest = new Map<string, number>();
  const wanted: typeof cand.rows = [];
  for (const r of cand.rows) {
    if (wanted.length >= o.limit) break;
    const used = perDest.get(r.destination_id) ?? 0;
    if (used >= o.destinationSlots(r.destination_id)) continue;
    perDest.set(r.destination_id, used + 1);
    wanted.push(r);
  }
  const byOrg = new Map<string, number>();
  for (const r of wanted) byOrg.set(r.org_id, (byOrg.get(r.org_id) ?? 0) + 1);
  const orgs = [...byOrg.keys()].sort();
  if (orgs.length === 0) return { rows: [], capped: false, more: true, cycleEnd };

  // Create-or-lock the budget rows in one statement, in a fixed order so concurrent workers
  // never deadlock (the no-op DO UPDATE takes the row lock and returns the current row).
  const budgets = await q.query<{ org_id: string; cycle_start: Date; used: number }>(
    `INSERT INTO delivery_org_budget (org_id, cycle_start, used)
     SELECT o, $2::timestamptz, 0 FROM unnest($1::text[]) AS o ORDER BY o
     ON CONFLICT (org_id) DO UPDATE SET cycle_start = delivery_org_budget.cycle_start
     RETURNING org_id, cycle_start, used`,
    [orgs, cycle],
  );
  const grant = new Map<string, number>();
  const newUsed: number[] = [];
  let capped = false;
  for (const b of budgets.rows) {
    const used = new Date(b.cycle_start).getTime() === cycle.getTime() ? b.used : 0;
    const want = byOrg.get(b.org_id) ?? 0;
    const g = Math.max(0, Math.min(want, o.orgCapPerCycle - used));
    if (g < want) capped = true;
    grant.set(b.org_id, g);
    newUsed.push(used + g);
  }
  const ids: string[] = [];
  for (const r of wanted) {
    const g = grant.get(r.org_id) ?? 0;
    if (g <= 0) continue;
    grant.set(r.org_id, g - 1);
    ids.push(r.id);
  }
  if (ids.length === 0) return { rows: [], capped, more: true, cycleEnd };
  // Charge the budgets and lease the granted rows in one statement.
  const leased = await q.query<ClaimedRow>(
    `WITH charge AS (
       UPDATE delivery_org_budget b SET cycle_start = $4, used = u.used
         FROM (SELECT unnest($5::text[]) AS org_id, unnest($6::int[]) AS used) u
        WHERE b.org_id = u.org_id
     )
     UPDATE deliveries d SET attempts = d.attempts + 1, locked_until = $2, locked_by = $3
       FROM destinations s
      WHERE d.id = ANY($1::text[]) AND s.id = d.destination_id
      RETURNING d.id, d.org_id, d.destination_id, d.alert_id, d.event, d.event_seq, d.body, d.attempts, d.attempt_base,
                (d.attempts - d.attempt_base > 1 AND (d.last_status_code IS NULL OR NOT EXISTS (
                   SELECT 1 FROM delivery_attempts a WHERE a.delivery_id = d.id AND a.attempt = d.attempts - 1))) AS previous_unknown,
                s.kind, s.url, s.config, s.credentials_sealed, s.signing_secret_sealed,
                (SELECT r.ref FROM connector_refs r WHERE r.destination_id = d.destination_id AND r.alert_id = d.alert_id) AS ref`,
    [ids, new Date(o.now.getTime() + o.leaseMs), o.workerId, cycle, budgets.rows.map((b) => b.org_id), newUsed],
  );
  return { rows: leased.rows, capped, more: cand.rows.length > leased.rows.length, cycleEnd };
}

/**
 * Claiming due deliveries: one SQL statement picks due rows with FOR UPDATE SKIP LOCKED, skips
 * the rows of disabled destinations (never sent, recoverable), paces rate-limited destinations,
 * charges each organization's shared per-cycle budget, and leases the granted rows to this
 * worker. Rows over budget, over the per-destination bound or over their destination's rate are
 * left untouched (not leased, not deferred) for a later pass or another instance.
 */
import type { Queryable } from '../db/index.js';
import { preparedQuery } from '../db/index.js';
import { DESTINATION_DISABLED_BEFORE_SEND_REASON } from './status.js';

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
  /** As stored (a CHECK constraint holds it to the known schemes); the delivery layer types it. */
  signature_scheme: string;
  /** Sends per second of the destination (null = unlimited); paced by the claim. */
  rate_limit_per_second: number | null;
  ref: Record<string, unknown> | null;
  /** A grouped opening's group (its leader's id), or null (delivery/grouping.ts). */
  group_id: string | null;
}

export interface ClaimOptions {
  workerId: string;
  now: Date;
  limit: number;
  leaseMs: number;
  /** Destinations at their concurrency bound in this worker (skipped). */
  busyDestinations: string[];
  /** Destinations with attempts in flight in this worker → slots they have left. */
  partialDestinations: Map<string, number>;
  /** Slots of a destination with nothing in flight here. */
  perDestination: number;
  cycleSeconds: number;
  orgCapPerCycle: number;
}

export interface ClaimResult {
  rows: ClaimedRow[];
  /** Due rows of disabled destinations this claim marked `skipped`. */
  skipped: number;
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

/**
 * One statement (one round trip, atomic without an explicit transaction):
 *   cand    — due rows, oldest due first, FOR UPDATE SKIP LOCKED (other workers' rows are
 *             skipped); a grouped opening's member is left to its pending leader, whose
 *             attempt carries it (delivery/grouping.ts); rows of a destination whose next rate-limit slot is still ahead are
 *             not candidates at all (a slot row outlives a removed limit by at most one
 *             interval, under a second). Only deliveries are read here, so the scan walks the
 *             due index in order and stops after n rows; `cd` adds each row's destination;
 *   skip    — due rows of a disabled destination become `skipped` (and so do the connector
 *             events held behind them), never sent; a recover sends them later;
 *   fit     — at most the free slots of each destination in this worker (one row for a
 *             rate-limited destination), at most `limit` rows, oldest due first;
 *   paced   — each rate-limited destination in `fit` takes its next send slot (GCRA, below)
 *             only if that slot has come: the upsert locks the destination's TAT row, so two
 *             workers never take the same slot; a destination whose slot has not come is left out;
 *   charge  — create-or-update each organization's budget row for the current cycle, in org-id
 *             order (no deadlocks between workers), granting at most cap − used;
 *   leased  — the granted rows get the lease and attempts + 1.
 * It returns the leased rows plus whether anything was left behind.
 *
 * Pacing (GCRA, "generic cell rate algorithm"): a row per limited destination holds the
 * theoretical arrival time (TAT) of its next send. For a limit of L per second the emission
 * interval is T = ceil(1000 / L) ms; a send may start when TAT <= now and moves TAT to now + T.
 * No burst is allowed, so across all workers at most L sends start in any one-second window.
 * Over-limit rows keep their status and due time, so they go out in due-time order as slots come.
 */
const CLAIM_SQL = `
WITH cand AS (
  SELECT d.id, d.org_id, d.destination_id, d.alert_id, d.next_attempt_at
    FROM deliveries d
   WHERE d.status = 'pending' AND d.next_attempt_at <= $1
     AND (d.locked_until IS NULL OR d.locked_until <= $1)
     AND NOT (d.destination_id = ANY($3::text[]))
     AND NOT EXISTS (SELECT 1 FROM delivery_org_budget b
                      WHERE b.org_id = d.org_id AND b.cycle_start = $4 AND b.used >= $5)
     AND NOT EXISTS (SELECT 1 FROM destination_rate r WHERE r.destination_id = d.destination_id AND r.tat > $1)
     AND (d.group_id IS NULL OR d.group_id = d.id
          OR NOT EXISTS (SELECT 1 FROM deliveries l WHERE l.id = d.group_id AND l.status = 'pending'))
   ORDER BY d.next_attempt_at
   LIMIT $2
   FOR UPDATE OF d SKIP LOCKED
),
cd AS (
  SELECT c.*, s.enabled, s.rate_limit_per_second AS rate FROM cand c JOIN destinations s ON s.id = c.destination_id
),
skip AS (
  UPDATE deliveries d SET status = 'skipped', last_error = $12, completed_at = $1, next_attempt_at = NULL,
         locked_until = NULL, locked_by = NULL
    FROM cd c
   WHERE d.id = c.id AND NOT c.enabled
  RETURNING d.destination_id, d.alert_id
),
skip_held AS (
  UPDATE deliveries d SET status = 'skipped', last_error = $12, completed_at = $1
    FROM (SELECT DISTINCT destination_id, alert_id FROM skip) p
   WHERE d.destination_id = p.destination_id AND d.alert_id = p.alert_id AND d.status = 'waiting'
),
by_dest AS (
  SELECT c.*, row_number() OVER (PARTITION BY c.destination_id ORDER BY c.next_attempt_at, c.id) AS rn
    FROM cd c WHERE c.enabled
),
fit AS (
  SELECT b.id, b.org_id, b.destination_id, b.rate, b.next_attempt_at FROM by_dest b
    LEFT JOIN (SELECT * FROM unnest($6::text[], $7::int[]) AS t(dest, slots)) s ON s.dest = b.destination_id
   WHERE b.rn <= CASE WHEN b.rate IS NULL THEN COALESCE(s.slots, $8) ELSE LEAST(1, COALESCE(s.slots, $8)) END
   ORDER BY b.next_attempt_at, b.id
   LIMIT $9
),
paced AS (
  INSERT INTO destination_rate AS r (destination_id, tat)
  SELECT f.destination_id, $1::timestamptz + make_interval(secs => ceil(1000.0 / f.rate) / 1000.0)
    FROM fit f WHERE f.rate IS NOT NULL ORDER BY f.destination_id
  ON CONFLICT (destination_id) DO UPDATE SET tat = EXCLUDED.tat WHERE r.tat <= $1
  RETURNING r.destination_id
),
sendable AS (
  SELECT f.* FROM fit f WHERE f.rate IS NULL OR f.destination_id IN (SELECT destination_id FROM paced)
),
want AS (SELECT org_id, count(*)::int AS n FROM sendable GROUP BY org_id),
charge AS (
  INSERT INTO delivery_org_budget AS b (org_id, cycle_start, used, granted)
  SELECT org_id, $4::timestamptz, LEAST(n, $5::int), LEAST(n, $5::int) FROM want ORDER BY org_id
  ON CONFLICT (org_id) DO UPDATE SET
    granted = GREATEST(0, LEAST(EXCLUDED.used, $5::int - CASE WHEN b.cycle_start = $4 THEN b.used ELSE 0 END)),
    used = CASE WHEN b.cycle_start = $4 THEN b.used ELSE 0 END
           + GREATEST(0, LEAST(EXCLUDED.used, $5::int - CASE WHEN b.cycle_start = $4 THEN b.used ELSE 0 END)),
    cycle_start = $4
  RETURNING b.org_id, b.granted
),
picked AS (
  SELECT f.id FROM (SELECT sendable.*, row_number() OVER (PARTITION BY sendable.org_id ORDER BY sendable.next_attempt_at, sendable.id) AS rn_org FROM sendable) f
    JOIN charge g ON g.org_id = f.org_id
   WHERE f.rn_org <= g.granted
),
leased AS (
  UPDATE deliveries d SET attempts = d.attempts + 1, locked_until = $10, locked_by = $11
    FROM destinations s, picked p
   WHERE d.id = p.id AND s.id = d.destination_id
  RETURNING d.id, d.org_id, d.destination_id, d.alert_id, d.event, d.event_seq, d.body, d.attempts, d.attempt_base, d.group_id,
            (d.attempts - d.attempt_base > 1 AND (d.last_status_code IS NULL OR NOT EXISTS (
               SELECT 1 FROM delivery_attempts a WHERE a.delivery_id = d.id AND a.attempt = d.attempts - 1))) AS previous_unknown,
            s.kind, s.url, s.config, s.credentials_sealed, s.signing_secret_sealed, s.signature_scheme, s.rate_limit_per_second,
            (SELECT r.ref FROM connector_refs r WHERE r.destination_id = d.destination_id AND r.alert_id = d.alert_id) AS ref
)
SELECT (SELECT count(*)::int FROM cd WHERE enabled) AS cand_count,
       (SELECT count(*)::int FROM skip) AS skipped,
       (SELECT coalesce(json_agg(leased), '[]'::json) FROM leased) AS rows,
       EXISTS (SELECT 1 FROM charge g JOIN want w ON w.org_id = g.org_id WHERE g.granted < w.n) AS capped`;

export async function claimDue(q: Pick<Queryable, 'query'>, o: ClaimOptions): Promise<ClaimResult> {
  const cycle = cycleStart(o.now, o.cycleSeconds);
  const cycleEnd = new Date(cycle.getTime() + o.cycleSeconds * 1000);
  const slotDests = [...o.partialDestinations.keys()];
  const { rows } = await preparedQuery<{ cand_count: number; skipped: number; rows: ClaimedRow[] | string; capped: boolean }>(q, 'claim', CLAIM_SQL, [
    o.now,
    o.limit * 2,
    o.busyDestinations,
    cycle,
    o.orgCapPerCycle,
    slotDests,
    slotDests.map((d) => o.partialDestinations.get(d)!),
    o.perDestination,
    o.limit,
    new Date(o.now.getTime() + o.leaseMs),
    o.workerId,
    DESTINATION_DISABLED_BEFORE_SEND_REASON,
  ]);
  const r = rows[0]!;
  const leased = (typeof r.rows === 'string' ? JSON.parse(r.rows) : r.rows) as ClaimedRow[];
  return { rows: leased, skipped: r.skipped, capped: r.capped, more: r.cand_count > leased.length, cycleEnd };
}

/**
 * Per-destination rate limits, shared by every worker through PostgreSQL: a GCRA ("generic cell
 * rate algorithm") row per limited destination holds the theoretical arrival time (TAT) of its
 * next send. This is a step of its own after the claim, taken only when the claim leased rows of
 * a limited destination, so the claim of unlimited destinations is unchanged.
 *
 * For a limit of L per second the emission interval is T = ceil(1000 / L) ms. A leased row may
 * be sent when TAT ≤ now; sending it moves TAT to max(TAT, now) + T. Every other leased row of
 * that destination is given back at once — lease cleared, attempt count and the organization's
 * budget restored — and becomes due at its own future slot (TAT + k·T), so over-limit
 * deliveries wait and never fail. No burst is allowed: sends start at least T apart across all
 * workers, so at most L start in any one-second window.
 */
import type { Database } from '../db/index.js';
import { NOTIFY_SQL } from './channel.js';
import type { ClaimedRow } from './claim.js';

export function emissionIntervalMs(perSecond: number): number {
  return Math.ceil(1000 / perSecond);
}

/**
 * Charges the rate limits of the limited rows among `rows` and returns the rows this worker
 * may send now (unlimited rows untouched). One transaction: the TAT rows are locked in
 * destination order (no deadlocks between workers).
 */
export async function paceRateLimitedRows(
  db: Pick<Database, 'tx'>,
  rows: ClaimedRow[],
  o: { workerId: string; now: Date; cycle: Date },
): Promise<ClaimedRow[]> {
  const limited = rows.filter((r) => r.rate_limit_per_second !== null);
  if (limited.length === 0) return rows;
  const byDest = new Map<string, ClaimedRow[]>();
  for (const r of [...limited].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const list = byDest.get(r.destination_id) ?? [];
    list.push(r);
    byDest.set(r.destination_id, list);
  }
  const dests = [...byDest.keys()].sort();
  const now = o.now.getTime();
  const deferred = await db.tx(async (q) => {
    await q.query(
      `INSERT INTO destination_rate (destination_id, tat) SELECT d, $2 FROM unnest($1::text[]) AS d ORDER BY d ON CONFLICT (destination_id) DO NOTHING`,
      [dests, o.now],
    );
    const { rows: tats } = await q.query<{ destination_id: string; tat: Date }>(
      'SELECT destination_id, tat FROM destination_rate WHERE destination_id = ANY($1::text[]) ORDER BY destination_id FOR UPDATE',
      [dests],
    );
    const newTat: { dest: string; tat: Date }[] = [];
    const later: { id: string; due: Date }[] = [];
    for (const t of tats) {
      const list = byDest.get(t.destination_id)!;
      const interval = emissionIntervalMs(list[0]!.rate_limit_per_second!);
      const start = Math.max(new Date(t.tat).getTime(), now);
      const sendFirst = start <= now;
      list.forEach((row, i) => {
        if (i === 0 && sendFirst) return;
        later.push({ id: row.id, due: new Date(start + i * interval) });
      });
      if (sendFirst) newTat.push({ dest: t.destination_id, tat: new Date(start + interval) });
    }
    if (newTat.length > 0) {
      await q.query(
        `UPDATE destination_rate r SET tat = v.tat FROM unnest($1::text[], $2::timestamptz[]) AS v(dest, tat) WHERE r.destination_id = v.dest`,
        [newTat.map((t) => t.dest), newTat.map((t) => t.tat.toISOString())],
      );
    }
    if (later.length > 0) await deferLeases(q, later, o.workerId, o.cycle);
    return new Set(later.map((l) => l.id));
  });
  return rows.filter((r) => !deferred.has(r.id));
}

/** Gives leased rows back to be due at `due` (attempt count and organization budget restored). */
async function deferLeases(q: Pick<Database, 'query'>, items: { id: string; due: Date }[], workerId: string, cycle: Date): Promise<void> {
  await q.query(
    `WITH back AS (
       UPDATE deliveries d SET attempts = d.attempts - 1, locked_until = NULL, locked_by = NULL, next_attempt_at = v.due
         FROM unnest($1::text[], $2::timestamptz[]) AS v(id, due)
        WHERE d.id = v.id AND d.locked_by = $3 AND d.status = 'pending'
       RETURNING d.id, d.org_id),
     refund AS (
       UPDATE delivery_org_budget b SET used = GREATEST(0, b.used - x.n)
         FROM (SELECT org_id, count(*)::int AS n FROM back GROUP BY org_id) x
        WHERE b.org_id = x.org_id AND b.cycle_start = $4)
     SELECT CASE WHEN EXISTS (SELECT 1 FROM back) THEN ${NOTIFY_SQL} END AS notified`,
    [items.map((i) => i.id), items.map((i) => i.due.toISOString()), workerId, cycle],
  );
}

/**
 * The lock of an incident at a connector destination — the (destination, alert) pair of the
 * ordering rule. Two sides decide together what an incident's held (`waiting`) events do:
 * fan-out, which holds a new event behind the incident's unfinished deliveries, and the
 * settlement of a delivery that ends, which releases (or abandons) the held ones. If the
 * settlement ran between fan-out's read and its commit, it could not see the new held row and
 * would never release it. Both sides therefore take this transaction-scoped advisory lock
 * (both engines honour it; on the embedded engine transactions run one at a time anyway).
 *
 * Fan-out WAITS for it (it is inside the alert's transaction, which must not fail). Settlement
 * only TRIES it and never waits: a signal transaction may lock the pairs of many incidents in
 * any order, so a settling worker that waited while holding pairs could deadlock with it. A
 * pair the settlement cannot lock is being recorded right now; its outcome is written by a
 * later batch (the lease keeps the row meanwhile). The key space is the two-integer form of
 * advisory locks, apart from the single-bigint keys other modules use.
 */
import type { Queryable } from '../db/index.js';
import type { IncidentAtDestination } from './transitions.js';

type Q = Pick<Queryable, 'query'>;

export function incidentKey(p: IncidentAtDestination): string {
  return `${p.destinationId} ${p.alertId}`;
}

/**
 * Waits for the transaction-scoped locks of (destination, key) pairs in this key space, in one
 * global order, so two transactions taking several never deadlock over them. The incident locks
 * use the alert id as key; grouping (src/delivery/grouping.ts) uses `group <key>`.
 */
export async function lockDestinationKeys(q: Q, pairs: readonly { destinationId: string; key: string }[]): Promise<void> {
  if (pairs.length === 0) return;
  await q.query(
    `SELECT count(pg_advisory_xact_lock(hashtext(k.dest), hashtext(k.key)))::int AS n
       FROM (SELECT DISTINCT dest, key FROM unnest($1::text[], $2::text[]) AS t(dest, key) ORDER BY dest, key) k`,
    [pairs.map((p) => p.destinationId), pairs.map((p) => p.key)],
  );
}

/** Waits for the locks of the pairs (in one global order, so two fan-outs never deadlock). */
export async function lockIncidents(q: Q, pairs: IncidentAtDestination[]): Promise<void> {
  await lockDestinationKeys(q, pairs.map((p) => ({ destinationId: p.destinationId, key: p.alertId })));
}

/** Takes the locks that are free now, without waiting; returns the keys (incidentKey) it holds. */
export async function tryLockIncidents(q: Q, pairs: IncidentAtDestination[]): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const { rows } = await q.query<{ dest: string; alert: string }>(
    `SELECT k.dest, k.alert
       FROM (SELECT DISTINCT dest, alert FROM unnest($1::text[], $2::text[]) AS t(dest, alert)) k
      WHERE pg_try_advisory_xact_lock(hashtext(k.dest), hashtext(k.alert))`,
    [pairs.map((p) => p.destinationId), pairs.map((p) => p.alertId)],
  );
  return new Set(rows.map((r) => incidentKey({ destinationId: r.dest, alertId: r.alert })));
}

/**
 * The rescuer of held connector events (like River's job rescuer): a `waiting` delivery is
 * released when the delivery ahead of it ends, in the same transaction. Fan-out and settlement
 * are serialized on the incident's lock so that release cannot be missed; this pass is the net
 * under any race still unknown: it finds incidents with held events and nothing in flight at a
 * destination, and applies the same rule the settlement applies — release the earliest held
 * event, or abandon them all when the opening failed for good. The dispatcher runs it at start
 * and then periodically; several workers may run it at once (each pair is tried under its lock
 * and re-checked by the statement that changes it).
 */
import type { Database } from '../db/index.js';
import { findStrandedWaiting, incidentKey, OPENING_FAILED_REASON, resolveWaiting, tryLockIncidents } from '../outbox/index.js';

/** Incidents looked at per pass (a pass repeats while it finds this many). */
const RESCUE_BATCH = 500;
/** A safety net for a rare race, so a long interval: a stranded event waits at most this long. */
export const RESCUE_EVERY_MS = 30_000;

/** One pass; returns how many held events it released and abandoned. */
export async function rescueStrandedWaiting(db: Pick<Database, 'query' | 'tx'>, now: Date): Promise<{ released: number; abandoned: number }> {
  const total = { released: 0, abandoned: 0 };
  for (let round = 0; round < 100; round++) {
    const stranded = await findStrandedWaiting(db, RESCUE_BATCH);
    if (stranded.length === 0) break;
    const done = await db.tx(async (q) => {
      const locked = await tryLockIncidents(q, stranded);
      return resolveWaiting(
        q,
        stranded.filter((p) => locked.has(incidentKey(p))),
        now,
        OPENING_FAILED_REASON,
      );
    });
    total.released += done.released;
    total.abandoned += done.abandoned;
    // Nothing changed (every pair busy or already handled by someone else): try at the next pass.
    if (stranded.length < RESCUE_BATCH || done.released + done.abandoned === 0) break;
  }
  return total;
}

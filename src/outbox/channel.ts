/**
 * The one NOTIFY channel between the outbox and the dispatcher. The payload is empty: it only
 * means "look". NOTIFY is delivered at commit, so a listener never sees a row that might still
 * roll back. Every transition that makes a row due sends it; nothing outside the outbox does.
 */
import type { Database } from '../db/index.js';

export const DELIVERY_CHANNEL = 'vigia_deliveries';

/** A scalar subquery that notifies; embed it in a statement to wake the dispatcher in the same round trip. */
export const NOTIFY_SQL = `(SELECT 1 FROM pg_notify('${DELIVERY_CHANNEL}', ''))`;

/** Subscribes to due-work notifications; returns the unsubscribe function. */
export function onDeliveriesDue(db: Pick<Database, 'listen'>, wake: () => void): Promise<() => Promise<void>> {
  return db.listen(DELIVERY_CHANNEL, () => wake());
}

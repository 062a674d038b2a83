/** Delivery history is kept 30 days (SPEC §6 rule 5); older finished rows are purged in batches. */
import type { Database } from '../db/index.js';

export const HISTORY_DAYS = 30;

/** Deletes finished deliveries created before now − 30 days (attempts cascade); returns how many. */
export async function purgeOldDeliveries(db: Database, now: Date, batchSize = 1000): Promise<number> {
  const cutoff = new Date(now.getTime() - HISTORY_DAYS * 86_400_000);
  let total = 0;
  for (;;) {
    // Small batches keep each transaction short, so purging never stalls the dispatcher.
    const { rowCount } = await db.query(
      `DELETE FROM deliveries WHERE id IN (
         SELECT id FROM deliveries WHERE created_at < $1 AND status NOT IN ('pending', 'waiting')
          ORDER BY created_at LIMIT $2)`,
      [cutoff, batchSize],
    );
    total += rowCount;
    if (rowCount < batchSize) return total;
  }
}

import type { Database, Queryable } from './index.js';
import { isStaleStatement } from './stale-statement.js';

/** Deadlock and serialization failures are safe to retry: the whole transaction rolled back. */
const RETRYABLE = new Set(['40P01', '40001']);

/** Worth running the whole transaction again: a deadlock, a serialization failure, a stale prepared statement. */
export function isRetryableTransactionError(err: unknown): boolean {
  return RETRYABLE.has(pgCode(err) ?? '') || isStaleStatement(err);
}

export function pgCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** db.tx with a few retries on deadlock / serialization failure (two batches crossing keys) or a stale prepared statement. */
export async function txWithRetry<T>(db: Database, fn: (q: Queryable) => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await db.tx(fn);
    } catch (err) {
      if (i >= attempts || !isRetryableTransactionError(err)) throw err;
      await new Promise((r) => setTimeout(r, 5 * i + Math.floor(Math.random() * 20)));
    }
  }
}

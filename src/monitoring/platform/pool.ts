/**
 * Runs a collector's per-resource calls a few at a time. The first error stops the other workers
 * from starting new calls (a failed run must not go on spending the tenant's budget) and is
 * rethrown once the calls in flight have ended.
 */
export const COLLECTOR_CONCURRENCY = 4;

export async function inPool<T>(items: T[], fn: (item: T) => Promise<void>, concurrency = COLLECTOR_CONCURRENCY): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | null = null;
  const worker = async () => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (failure) throw (failure as { err: unknown }).err;
}

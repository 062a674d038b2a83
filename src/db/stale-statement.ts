/**
 * A named prepared statement that can no longer run as parsed: a table it reads changed its
 * columns (SQLSTATE 0A000, "cached plan must not change result type") or the statement no longer
 * exists (26000). The whole transaction it ran in has rolled back, so re-running it is safe; the
 * embedded engine parses it again on the next call (pglite-prepared.ts).
 */
export function isStaleStatement(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e?.code === '26000') return true;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
}

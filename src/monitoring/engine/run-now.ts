/** A run asked for now: the schedule row becomes due at once (the next claim picks it up). */
import type { AppContext } from '../../context.js';
import type { Queryable } from '../../db/index.js';
import { conflictError, notFoundError } from '../../errors.js';
import { isCollectorName } from '../connection/collector-names.js';
import { IMPLEMENTED_COLLECTORS } from '../connection/implemented.js';
import { loadTenant } from '../connection/tenant-row.js';

export async function requestRun(ctx: AppContext, orgId: string, tenantRef: string, collector: string): Promise<{ nextRunAt: string }> {
  await loadTenant(ctx.db, orgId, tenantRef);
  if (!isCollectorName(collector)) throw notFoundError('collector');
  if (!IMPLEMENTED_COLLECTORS.has(collector)) throw conflictError(`collector "${collector}" is not available in this version`);
  const now = ctx.clock.now();
  const enabled = await askToRunNow(ctx.db, tenantRef, collector, now);
  if (enabled === null) throw notFoundError('collector');
  if (!enabled) throw conflictError(`collector "${collector}" is disabled; enable it first`);
  return { nextRunAt: now.toISOString() };
}

/**
 * Makes an enabled collector's schedule row due at `now` (a disabled one is left alone). Whether
 * it is enabled, or null when the tenant has no such row. Also used by collectors that find
 * evidence another collector should look now (a refresh failing behind a gateway).
 */
export async function askToRunNow(q: Queryable, tenantRef: string, collector: string, now: Date): Promise<boolean | null> {
  const { rows } = await q.query<{ enabled: boolean }>(
    `UPDATE collector_schedules SET next_run_at = CASE WHEN enabled THEN LEAST(next_run_at, $3) ELSE next_run_at END
     WHERE tenant_ref = $1 AND collector = $2 RETURNING enabled`,
    [tenantRef, collector, now],
  );
  return rows[0] ? rows[0].enabled : null;
}

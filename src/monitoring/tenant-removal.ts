/**
 * Deleting a tenant connection: what it watched is gone from Vigia's view, so every incident its
 * collectors (and its self-watch) opened recovers, in the same transaction as the delete.
 * The collectors' state is read in that transaction too, with their schedule rows locked, but only
 * the state of collectors that release incidents (releaseAll): the inventory's, scanner's and costs'
 * memory, the bulk of an enterprise tenant's rows, open no incidents and are never read here; of
 * the collectors that say which rows hold an open incident (releaseOnly: the refreshes' failing
 * models, the jobs' failing items, the capacities down), only those rows are read.
 */
import type { AppContext } from '../context.js';
import { txWithRetry } from '../db/retry.js';
import type { SignalInput } from '../alerts/signals.js';
import { notFoundError } from '../errors.js';
import { DEFAULT_COLLECTORS } from './registry.js';
import type { Collector } from './engine/collector.js';
import { collectorBehindSignal } from './engine/collector-behind.js';
import { applySignalsIn } from './engine/output.js';
import { TENANT_DELETED } from './messages/titles.js';
import { tenantSignal, type TenantProblem } from './engine/self-watch.js';
import { tenantConnectedSignal } from './engine/first-pass.js';
import { loadTenant } from './connection/tenant-row.js';

/**
 * The read of the state that releaseAll needs: the rows of the collectors that have one, and of
 * those that say which rows can hold an open incident (Collector.releaseOnly), only those.
 */
export function releaseStateQuery(tenantId: string, collectors: readonly Collector[] = DEFAULT_COLLECTORS): { text: string; values: unknown[] } {
  const releasing = collectors.filter((c) => c.releaseAll);
  const whole = releasing.filter((c) => !c.releaseOnly).map((c) => c.name);
  const only = releasing.flatMap((c) => (c.releaseOnly ?? []).map((r) => [c.name, r.prefix, r.flag] as const));
  return {
    text: `SELECT collector, key, value FROM collector_state s
            WHERE tenant_ref = $1 AND (collector = ANY($2::text[])
              OR EXISTS (SELECT 1 FROM unnest($3::text[], $4::text[], $5::text[]) AS r(name, prefix, flag)
                          WHERE r.name = s.collector AND starts_with(s.key, r.prefix) AND s.value->>r.flag = 'true'))`,
    values: [tenantId, whole, only.map((o) => o[0]), only.map((o) => o[1]), only.map((o) => o[2])],
  };
}

const PROBLEMS: TenantProblem[] = ['TenantAuthFailed', 'TenantAccessDenied', 'TenantThrottled', 'TenantUnreachable'];

export async function removeTenant(ctx: AppContext, orgId: string, id: string): Promise<void> {
  const now = ctx.clock.now();
  await txWithRetry(ctx.db, async (q) => {
    const tenant = await loadTenant(q, orgId, id);
    // The schedule rows first (each run's commit locks its row, lease.ts): a run committing now
    // finishes before the state below is read, and its incidents are released; a run that
    // commits later finds its row deleted and writes nothing.
    await q.query('SELECT collector FROM collector_schedules WHERE tenant_ref = $1 ORDER BY collector FOR UPDATE', [id]);
    const read = releaseStateQuery(id);
    const { rows } = await q.query<{ collector: string; key: string; value: unknown }>(read.text, read.values);
    const signals: SignalInput[] = [];
    for (const collector of DEFAULT_COLLECTORS) {
      if (!collector.releaseAll) continue;
      const state = new Map(rows.filter((r) => r.collector === collector.name).map((r) => [r.key, r.value]));
      signals.push(...collector.releaseAll(state, now));
    }
    // Recoveries of incidents that are not open are ignored by the lifecycle.
    for (const problem of PROBLEMS) signals.push(tenantSignal('recovery', problem, tenant, TENANT_DELETED, now));
    signals.push(collectorBehindSignal('recovery', 'every', tenant, TENANT_DELETED, now));
    signals.push({ ...tenantConnectedSignal(tenant, 0, false, ctx.config.baseUrl, now), kind: 'recovery', message: TENANT_DELETED });
    const { rowCount } = await q.query('DELETE FROM tenants WHERE org_id = $1 AND id = $2', [orgId, id]);
    if (rowCount === 0) throw notFoundError('tenant');
    await applySignalsIn(q, ctx, orgId, signals, now);
  });
}

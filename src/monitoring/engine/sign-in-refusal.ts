/**
 * A refused sign-in seen outside a collector run (by `POST …/check`) opens TenantAuthFailed at
 * once, like a run's refused renewal does. Every enabled collector of the tenant is marked with
 * the problem, so each next run asks the token endpoint again instead of trusting a cached token
 * (engine.ts), and the incident recovers when the last of them gets a token again.
 */
import type { Texts } from '../../orgs/language.js';
import type { AppContext } from '../../context.js';
import { txWithRetry } from '../../db/retry.js';
import { applySignalsIn } from './output.js';
import { tenantSignal } from './self-watch.js';

export async function reportRefusedSignIn(ctx: AppContext, tenant: { id: string; name: string; org_id: string }, detail: string | Texts): Promise<void> {
  const now = ctx.clock.now();
  await txWithRetry(ctx.db, async (q) => {
    const before = await q.query<{ open: boolean | null }>(
      `SELECT bool_or(problem_kind = 'TenantAuthFailed' AND problem_reported) AS open FROM collector_schedules WHERE tenant_ref = $1 AND enabled`,
      [tenant.id],
    );
    const marked = await q.query(
      `UPDATE collector_schedules
          SET problem_since = CASE WHEN problem_kind = 'TenantAuthFailed' THEN problem_since ELSE $2 END,
              problem_kind = 'TenantAuthFailed', problem_reported = true
        WHERE tenant_ref = $1 AND enabled`,
      [tenant.id, now],
    );
    // With no collector to notice the recovery, an incident would never close: none is opened.
    if (before.rows[0]?.open || !marked.rowCount) return;
    await applySignalsIn(q, ctx, tenant.org_id, [tenantSignal('failure', 'TenantAuthFailed', tenant, detail, now)], now);
  });
}

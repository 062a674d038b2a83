/**
 * The monitor watches itself. A run that cannot sign in, is refused (401/403) or stays
 * throttled records that problem on its schedule row; once the problem has lasted longer than
 * two of the collector's intervals a `Tenant` incident opens (TenantAuthFailed,
 * TenantAccessDenied, TenantThrottled). It recovers by itself when no collector of the tenant
 * has that problem any more. Other failures (a garbage answer, a timeout) are the collector's
 * `lastError` only.
 */
import type { SignalInput } from '../alerts/signals.js';
import { BudgetExhaustedError } from './budget.js';
import { ThrottledError, VendorHttpError } from './platform-client.js';
import { TokenRefusedError } from './tokens.js';

export type TenantProblem = 'TenantAuthFailed' | 'TenantAccessDenied' | 'TenantThrottled';

export function problemOf(err: unknown): TenantProblem | null {
  if (err instanceof TokenRefusedError) return 'TenantAuthFailed';
  if (err instanceof VendorHttpError && (err.status === 401 || err.status === 403)) return 'TenantAccessDenied';
  if (err instanceof ThrottledError || err instanceof BudgetExhaustedError) return 'TenantThrottled';
  return null;
}

const TITLES: Record<TenantProblem, string> = {
  TenantAuthFailed: 'Vigia cannot sign in to the tenant',
  TenantAccessDenied: 'The tenant refuses Vigia access to its APIs',
  TenantThrottled: 'The tenant keeps throttling Vigia',
};

export function tenantSignal(
  kind: 'failure' | 'recovery',
  problem: TenantProblem,
  tenant: { id: string; name: string },
  detail: string,
  occurredAt: Date,
): SignalInput {
  return {
    sourceType: 'Tenant',
    sourceId: tenant.id,
    sourceName: tenant.name,
    kind,
    notificationKind: problem,
    severity: 'error',
    title: `${TITLES[problem]}: ${tenant.name}`.slice(0, 500),
    message: detail,
    occurredAt,
  };
}

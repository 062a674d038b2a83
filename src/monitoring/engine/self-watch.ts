/**
 * The monitor watches itself. A run that cannot sign in, is refused (401/403), stays throttled
 * or cannot connect records that problem on its schedule row; once the problem has lasted
 * longer than two of the collector's intervals a `Tenant` incident opens (TenantAccessDenied,
 * TenantThrottled, TenantUnreachable). A refused sign-in (TenantAuthFailed) opens at once: the
 * token endpoint's answer about the credentials is evidence enough, and cached tokens would
 * otherwise hide it for their whole lifetime. So does an address the destination-safety rules
 * refuse (cause `blocked`): a setting of this process, which waiting will not change. An open
 * incident recovers only when a run of the collector that reported it succeeds and no other
 * collector of the tenant still has it — never because the failure's cause changed: a run that
 * fails with another cause restates the open incident's message with that cause (run-record.ts).
 * Other failures (a garbage answer) are the collector's `lastError` only.
 */
import { errorCodeOf, errorTexts } from '../messages/errors.js';
import type { SignalInput } from '../../alerts/signals.js';
import { BudgetExhaustedError } from '../platform/budget.js';
import { fixForFailure, isConnectionFailure, type Texts } from '../messages/fixes.js';
import { tenantProblemTitle } from '../messages/titles.js';
import { ThrottledError, VendorHttpError } from '../platform/platform-client.js';
import { TokenRefusedError, TokenUnavailableError } from '../platform/token-errors.js';

export type TenantProblem = 'TenantAuthFailed' | 'TenantAccessDenied' | 'TenantThrottled' | 'TenantUnreachable';

export function problemOf(err: unknown): TenantProblem | null {
  if (err instanceof TokenRefusedError) return 'TenantAuthFailed';
  if (err instanceof VendorHttpError && (err.status === 401 || err.status === 403)) return 'TenantAccessDenied';
  if (err instanceof ThrottledError || err instanceof BudgetExhaustedError || err instanceof TokenUnavailableError) return 'TenantThrottled';
  if (isConnectionFailure(err)) return 'TenantUnreachable';
  return null;
}

/**
 * The failure's cause within its problem, as stored in `problem_cause`: a credential problem
 * (`invalid_secret`…), a connection cause (`refused`, `blocked`, `tls_untrusted`…), `throttled`,
 * or the HTTP status of a refused call.
 */
export function problemCause(err: unknown): string | null {
  if (err instanceof TokenRefusedError) return err.problem;
  if (isConnectionFailure(err)) return err.connection;
  if (err instanceof VendorHttpError) return `http_${err.status}`;
  if (err instanceof TokenUnavailableError) return 'token_unavailable';
  if (err instanceof BudgetExhaustedError) return 'budget';
  if (err instanceof ThrottledError) return 'throttled';
  return null;
}

/** Problems that open their incident at the first run that sees them. */
export function opensAtOnce(problem: TenantProblem, cause: string | null): boolean {
  return problem === 'TenantAuthFailed' || cause === 'blocked';
}

/** The text a run's failure leaves as `lastError` and in a Tenant incident, with its fix when known. */
export function problemDetail(err: unknown, where: string): Texts {
  const fix = fixForFailure(err);
  const text = errorTexts(errorCodeOf(err));
  // Each language whole: the failure from the error catalog, then its fix (the org reads one of them).
  return {
    en: `${where}: ${text.en}${fix ? `\nWhat to do: ${fix.en}` : ''}`,
    'pt-BR': `${where}: ${text['pt-BR']}${fix ? `\nO que fazer: ${fix['pt-BR']}` : ''}`,
  };
}

export function tenantSignal(
  kind: 'failure' | 'recovery',
  problem: TenantProblem,
  tenant: { id: string; name: string },
  detail: string | Texts,
  occurredAt: Date,
): SignalInput {
  return {
    sourceType: 'Tenant',
    sourceId: tenant.id,
    sourceName: tenant.name,
    kind,
    notificationKind: problem,
    severity: 'error',
    title: tenantProblemTitle(problem, tenant.name),
    message: detail,
    occurredAt,
  };
}

/** The vendors' refusals: errors in each API's own shape, 429s with their headers, 401s. */
import type { Refusal } from './limits.js';
import { armError, fabricError, powerBiError, type Reply } from './reply.js';
import type { ApiFamily } from './types.js';

/** Which committed contract (and error shape) a family speaks. */
export type ApiKind = 'powerbi' | 'fabric' | 'azure';

export function kindOf(family: ApiFamily): ApiKind | null {
  if (family === 'powerbi' || family === 'powerbi-admin') return 'powerbi';
  if (family === 'fabric' || family === 'fabric-admin') return 'fabric';
  if (family === 'arm' || family === 'cost') return 'azure';
  return null;
}

export function errorFor(family: ApiFamily, status: number, code: string, message: string, retriable = false): Reply {
  const kind = kindOf(family);
  if (kind === 'powerbi') return powerBiError(status, code, message);
  if (kind === 'fabric') return fabricError(status, code, message, retriable);
  return armError(status, code, message);
}

export function throttled(family: ApiFamily, r: Refusal): Reply {
  const wait = String(r.retryAfterSeconds);
  if (family === 'cost') {
    // Cost Management names several windows; a client waits for the largest.
    const w = r.retryAfterSeconds;
    return {
      status: 429,
      headers: {
        'x-ms-ratelimit-microsoft.costmanagement-qpu-retry-after': String(Math.max(1, Math.ceil(w / 2))),
        'x-ms-ratelimit-microsoft.costmanagement-entity-retry-after': String(w),
        'x-ms-ratelimit-microsoft.costmanagement-tenant-retry-after': String(Math.max(1, Math.ceil(w / 3))),
        'x-ms-ratelimit-microsoft.costmanagement-clienttype-retry-after': '1',
        'x-ms-ratelimit-microsoft.costmanagement-qpu-remaining': 'QueryResource=0;QueryDefinition=0',
      },
      body: { error: { code: '429', message: 'Too many requests. Please retry.' } },
    };
  }
  if (family === 'token') return { status: 429, headers: { 'Retry-After': wait }, body: { error: 'temporarily_unavailable', error_description: 'AADSTS50196: The server terminated an operation because it encountered a client request loop.' } };
  const reply = errorFor(family, 429, kindOf(family) === 'fabric' ? 'RequestBlocked' : 'TooManyRequests', `Request is blocked by the upstream service until ${new Date(Date.now() + r.retryAfterSeconds * 1000).toISOString()} (Retry-After: ${wait} s).`, true);
  reply.headers = { ...reply.headers, 'Retry-After': wait, ...(family === 'arm' ? { 'x-ms-ratelimit-remaining-subscription-reads': '0' } : {}) };
  return reply;
}

export function unauthorized(family: ApiFamily, reason: string): Reply {
  const kind = kindOf(family);
  const www = { 'WWW-Authenticate': `Bearer authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", error="invalid_token", error_description="${reason}"` };
  if (kind === 'powerbi') return { ...powerBiError(401, reason === 'expired' ? 'TokenExpired' : 'PowerBINotAuthorizedException', `Bearer token ${reason}.`), headers: www };
  if (kind === 'fabric') return { ...fabricError(401, reason === 'expired' ? 'TokenExpired' : 'InvalidToken', `Bearer token ${reason}.`), headers: www };
  const code = reason === 'expired' ? 'ExpiredAuthenticationToken' : reason === 'audience' ? 'InvalidAuthenticationTokenAudience' : reason === 'missing' ? 'AuthenticationFailed' : 'InvalidAuthenticationToken';
  return { ...armError(401, code, `The access token is ${reason}.`), headers: www };
}

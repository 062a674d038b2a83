import type { Translate } from './i18n.js';

/** The API's error codes the console says in words (docs/admin-api.md lists them). */
const CODES = {
  invalid_request: 'errInvalidRequest',
  unauthorized: 'errUnauthorized',
  forbidden: 'errForbidden',
  not_found: 'errNotFound',
  conflict: 'errConflict',
  limit_exceeded: 'errLimitExceeded',
  rate_limited: 'errRateLimited',
  payload_too_large: 'errPayloadTooLarge',
  request_timeout: 'errTimeout',
  not_ready: 'errNotReady',
  internal_error: 'errInternal',
} as const;

/** The sentence for an error code in the chosen language; an unknown code says its status. */
export function errorCodeText(t: Translate, code: string, status: number): string {
  const key = CODES[code as keyof typeof CODES];
  if (key) return t(key);
  return status >= 500 ? t('errInternal') : t('errGeneric', { status });
}

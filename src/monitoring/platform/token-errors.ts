/**
 * What Entra ID's token endpoint said, sorted by what a person must do about it. Only answers
 * about the credentials themselves (a wrong or expired secret, a certificate the app does not
 * know, a disabled or unknown application, a tenant that does not exist) mean "sign-in refused"
 * (TenantAuthFailed). A 429 or a 5xx is the endpoint being busy or down: the same credentials
 * will work later, after the Retry-After it gave. Any other 4xx is a request Vigia built wrong.
 */

/** Why the credentials were refused; each has its own fix in `check`. */
export type CredentialProblem = 'invalid_secret' | 'expired_secret' | 'certificate' | 'application' | 'tenant' | 'credentials';

/** Entra ID's AADSTS codes for credential problems (Microsoft's "AADSTS error codes" reference). */
const CREDENTIAL_CODES: Record<string, { problem: CredentialProblem; text: string }> = {
  '7000215': { problem: 'invalid_secret', text: 'the client secret is wrong' },
  '7000222': { problem: 'expired_secret', text: 'the client secret has expired' },
  '700027': { problem: 'certificate', text: 'the certificate is not registered for the app or its signature is not valid' },
  '700024': { problem: 'certificate', text: 'the certificate assertion is out of its validity time' },
  '7000112': { problem: 'application', text: 'the application is disabled' },
  '700016': { problem: 'application', text: 'no application with this client ID exists in the tenant' },
  '90002': { problem: 'tenant', text: 'the tenant ID does not exist' },
  '7000218': { problem: 'credentials', text: 'no client secret or certificate was sent' },
};

/** The token endpoint refused the credentials (not the network, not throttling). */
export class TokenRefusedError extends Error {
  constructor(
    readonly code: string,
    readonly problem: CredentialProblem = 'credentials',
    reason = 'the credentials were refused',
  ) {
    super(`the token endpoint refused the credentials: ${reason} (${code})`);
    this.name = 'TokenRefusedError';
  }
}

/** The token endpoint is throttling (429) or unavailable (5xx); try again after `retryAfterSeconds`. */
export class TokenUnavailableError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      status === 429
        ? `the token endpoint is throttling Vigia (429); next try after ${retryAfterSeconds} s`
        : `the token endpoint is unavailable (${status}); next try after ${retryAfterSeconds} s`,
    );
    this.name = 'TokenUnavailableError';
  }
}

/** The token endpoint refused the request itself (a scope, a grant type): not the credentials. */
export class TokenRequestError extends Error {
  constructor(readonly code: string) {
    super(`the token endpoint refused the request (${code})`);
    this.name = 'TokenRequestError';
  }
}

const clean = (s: string) => s.replace(/[^\w.-]/g, '').slice(0, 80);

/** The AADSTS number of an error answer: `error_codes[0]`, else the one in `error_description`. */
function aadstsOf(body: Record<string, unknown>): string | null {
  const codes = body.error_codes;
  if (Array.isArray(codes) && (typeof codes[0] === 'number' || typeof codes[0] === 'string')) return clean(String(codes[0]));
  const m = typeof body.error_description === 'string' ? /AADSTS(\d{4,9})/.exec(body.error_description) : null;
  return m ? m[1]! : null;
}

/** The error an unsuccessful token answer stands for (a 4xx that is not throttling). */
export function refusalOf(status: number, body: Record<string, unknown>): TokenRefusedError | TokenRequestError {
  const aadsts = aadstsOf(body);
  const error = typeof body.error === 'string' ? clean(body.error) : 'unknown';
  const known = aadsts ? CREDENTIAL_CODES[aadsts] : undefined;
  const code = aadsts ? `AADSTS${aadsts}` : error;
  if (known) return new TokenRefusedError(code, known.problem, known.text);
  // OAuth's own words for "the client could not be authenticated".
  if (error === 'invalid_client' || error === 'unauthorized_client' || status === 401) return new TokenRefusedError(code);
  return new TokenRequestError(code);
}

/** Seconds to wait from the token endpoint's Retry-After (seconds or an HTTP date); 5 when it gives none. */
export function tokenRetryAfterSeconds(headers: Record<string, string>, nowMs: number): number {
  const value = headers['retry-after'];
  if (value === undefined) return 5;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value) : (Date.parse(value) - nowMs) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, Math.ceil(seconds)) : 5;
}

/**
 * Domain errors: what went wrong in terms of the domain, not of HTTP. Domain modules (alerts,
 * orgs, delivery, public queries) throw these; only the HTTP layer (src/http/errors.ts) turns
 * them into a status code and the error envelope.
 */

export type DomainErrorKind = 'invalid' | 'not_found' | 'conflict' | 'limit';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** The input breaks a rule (a field's shape, range or combination). */
export const invalidInput = (message: string) => new DomainError('invalid', message);
/** The thing does not exist in this organization (or at all). */
export const notFoundError = (what = 'resource') => new DomainError('not_found', `${what} not found`);
/** The thing exists but its state does not allow the change. */
export const conflictError = (message: string) => new DomainError('conflict', message);
/** A per-organization limit would be exceeded. */
export const limitError = (message: string) => new DomainError('limit', message);

/**
 * PostgreSQL text cannot hold U+0000: a path segment, query parameter or body string with it
 * would fail in the database as a 500. Installed once as a preValidation hook of a whole API
 * scope, it answers 400 naming the field instead.
 */
import { findNulPath } from '../orgs/validation.js';
import { invalidRequest } from './errors.js';

export async function rejectNulCharacters(request: { body?: unknown; params?: unknown; query?: unknown }): Promise<void> {
  const hit = findNulPath(request.params, 'path') ?? findNulPath(request.query, 'query') ?? findNulPath(request.body);
  if (hit) throw invalidRequest(`${hit} must not contain the NUL character (\\u0000)`);
}

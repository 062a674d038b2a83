/**
 * PostgreSQL text cannot hold U+0000 (a 500 in the database), and stores a lone UTF-16
 * surrogate as U+FFFD (two different names become one). Installed once as a preValidation hook
 * of a whole API scope, this answers 400 naming the field instead, at any nesting depth.
 */
import { findUnstorableText, unstorableTextMessage } from '../orgs/validation.js';
import { invalidRequest } from './errors.js';

export async function rejectNulCharacters(request: { body?: unknown; params?: unknown; query?: unknown }): Promise<void> {
  const hit = findUnstorableText(request.params, 'path') ?? findUnstorableText(request.query, 'query') ?? findUnstorableText(request.body);
  if (hit) throw invalidRequest(unstorableTextMessage(hit));
}

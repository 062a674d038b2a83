/**
 * PostgreSQL text cannot hold U+0000 (a 500 in the database), and stores a lone UTF-16
 * surrogate as U+FFFD (two different names become one). Installed once on a whole API scope,
 * this answers 400 naming the field instead, at any nesting depth.
 */
import { findUnstorableText, unstorableTextMessage } from '../orgs/validation.js';
import { invalidRequest } from './errors.js';

/**
 * Path and query, checked as an `onRequest` hook registered before the access check: that check
 * reads the database with the path's `orgId`, so a NUL there must be refused before any caller
 * (session, admin token or personal token) reaches it.
 */
export async function rejectNulInAddress(request: { params?: unknown; query?: unknown }): Promise<void> {
  const hit = findUnstorableText(request.params, 'path') ?? findUnstorableText(request.query, 'query');
  if (hit) throw invalidRequest(unstorableTextMessage(hit));
}

/** The whole request, as a `preValidation` hook (the body is parsed by then). */
export async function rejectNulCharacters(request: { body?: unknown; params?: unknown; query?: unknown }): Promise<void> {
  await rejectNulInAddress(request);
  const hit = findUnstorableText(request.body);
  if (hit) throw invalidRequest(unstorableTextMessage(hit));
}

import type { FastifyInstance } from 'fastify';
import { ApiError, invalidRequest } from './errors.js';

/**
 * No request of either API nests deeper than a few levels; a body of thousands of nested
 * brackets would only exercise recursion in every step after parsing (serializing, the
 * database's JSON parser), so it is refused before parsing.
 */
export const MAX_JSON_DEPTH = 32;

/** True when the JSON text opens more than `max` objects/arrays inside each other (a linear scan). */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Request body parsing for every route. An empty body is "no body" whatever the Content-Type says:
 * clients and shell aliases often send `Content-Type: application/json` on every call, and a
 * body-less action (resolve, acknowledge, test, redeliver, rotate-secret, DELETE) must not fail
 * because of it. A route that needs a body still refuses a missing one through its schema.
 * A non-empty body must be JSON (415 otherwise).
 */
export function installBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined);
    if (jsonDepthExceeds(body as string, MAX_JSON_DEPTH)) {
      return done(invalidRequest(`body must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`), undefined);
    }
    parseJson(req, body as string, done);
  });
  // Any other media type: accepted only when the body is empty.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    if (body === '') return done(null, undefined);
    done(new ApiError(415, 'unsupported_media_type', 'send the body as application/json'), undefined);
  });
}

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

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');
const REPLACEMENT = '\uFFFD';
/** U+FFFD as UTF-8: a body that really contains the character cannot tell us which field was broken. */
const REPLACEMENT_BYTES = Buffer.from(REPLACEMENT, 'utf8');

/**
 * The body as text, or a refusal when it is not valid UTF-8. A lenient decoder would turn every
 * broken sequence into U+FFFD, so `ds-\xff` and `ds-\xfe` would become the same id. The refusal
 * names the first field (key or value) holding a broken sequence when that can be known: the body
 * is re-read leniently and the first string with U+FFFD is the culprit, unless the body also
 * carries a genuine U+FFFD (then it names the body).
 */
export function decodeUtf8(raw: Buffer): string | { message: string } {
  try {
    return strictUtf8.decode(raw);
  } catch {
    const where = raw.includes(REPLACEMENT_BYTES) ? null : fieldWithReplacement(lenientUtf8.decode(raw));
    return { message: `${where ?? 'body'} must be valid UTF-8 text (it contains bytes that are not UTF-8)` };
  }
}

function fieldWithReplacement(text: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const stack: Array<{ value: unknown; path: string }> = [{ value: parsed, path: 'body' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes(REPLACEMENT)) return path;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}[${i}]` });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i]!;
        if (k.includes(REPLACEMENT)) return `${path} (a field name)`;
        stack.push({ value: v, path: `${path}.${k}` });
      }
    }
  }
  return null;
}

/**
 * Request body parsing for every route. An empty body is "no body" whatever the Content-Type says:
 * clients and shell aliases often send `Content-Type: application/json` on every call, and a
 * body-less action (resolve, acknowledge, test, redeliver, rotate-secret, DELETE) must not fail
 * because of it. A route that needs a body still refuses a missing one through its schema.
 * A non-empty body must be JSON (415 otherwise) in valid UTF-8 (400 naming the field otherwise).
 */
export function installBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, raw, done) => {
    const body = decodeUtf8(raw as Buffer);
    if (typeof body !== 'string') return done(invalidRequest(body.message), undefined);
    if (body === '') return done(null, undefined);
    if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) {
      return done(invalidRequest(`body must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`), undefined);
    }
    parseJson(req, body, done);
  });
  // Any other media type: accepted only when the body is empty.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    if (body === '') return done(null, undefined);
    done(new ApiError(415, 'unsupported_media_type', 'send the body as application/json'), undefined);
  });
}

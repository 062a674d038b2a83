/**
 * What text from a tool may reach the database, the audit log and the console
 * (docs/connectors.md, "Acknowledging in the tool", "Limits"). PostgreSQL refuses a NUL in text,
 * and a lone UTF-16 surrogate is turned into U+FFFD on the way to it, so `"dup\ud800"` and
 * `"dup\ud801"` would become the same event id: a body holding either is refused as a whole.
 * A person's display name is reduced to printable text of bounded length.
 */

/** A NUL, or a surrogate that is not half of a pair. */
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string may be stored as text (no NUL, no unpaired surrogate). */
export function isSafeText(s: string): boolean {
  return !UNSAFE.test(s);
}

/** Strings of the parsed body checked at most (a body is at most 512 KB anyway). */
const MAX_STRINGS = 200_000;

/**
 * The first unsafe string of a parsed JSON value (keys included), as a reason; null when every
 * string is safe. Iterative, so a deeply nested body cannot exhaust the stack.
 */
export function unsafeTextIn(value: unknown): string | null {
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (++seen > MAX_STRINGS) return 'the body holds too many strings';
      if (UNSAFE.test(v)) return 'the body holds a NUL character or an unpaired UTF-16 surrogate';
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) stack.push(k, item);
    }
  }
  return null;
}

/** Longest display name kept, in characters (code points). */
export const DISPLAY_NAME_MAX = 100;

/**
 * Printable text only: control and format characters (BEL, line breaks, the bidirectional
 * overrides such as U+202E, zero-width characters), separators, private-use and unassigned code
 * points removed, runs of spaces made one, cut to `max` characters. Empty → null.
 */
export function printable(s: string, max = DISPLAY_NAME_MAX): string | null {
  const cleaned = s
    .replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
  const chars = Array.from(cleaned);
  const out = (chars.length > max ? chars.slice(0, max).join('') : cleaned).trim();
  return out === '' ? null : out;
}

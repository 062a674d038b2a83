/** Small validators shared by the admin routes and the domain functions (both engines). */
import { DATE_RANGE_TEXT, parseDay, parseInstant } from '../date-rule.js';
import { invalidInput } from '../errors.js';

/**
 * ISO 8601 date-time with an explicit zone (Z or ±hh:mm) inside the date rule
 * (src/date-rule.ts); returns the instant or throws a 400 naming the field.
 */
export function parseIsoDateTime(value: string, field: string): Date {
  const d = parseInstant(value);
  if (!d) {
    throw invalidInput(`${field} must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z, ${DATE_RANGE_TEXT}`);
  }
  return d;
}

/** yyyy-MM-dd naming a real calendar day inside the date rule. */
export function isCalendarDay(value: string): boolean {
  return parseDay(value) !== null;
}

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** Why a string cannot be stored as the client sent it. */
export type TextProblem = 'nul' | 'lone-surrogate';

export interface TextProblemHit {
  path: string;
  problem: TextProblem;
}

// With the `u` flag a well-formed pair is one code point, so only a lone half matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function textProblem(s: string): TextProblem | null {
  if (s.includes('\u0000')) return 'nul';
  // A UTF-16 half of a pair alone is stored as U+FFFD, so two different strings would become one.
  if (LONE_SURROGATE.test(s)) return 'lone-surrogate';
  return null;
}

const shownKey = (k: string) => k.replaceAll('\u0000', '\\u0000').replace(/[\uD800-\uDFFF]/gu, '\uFFFD');

/**
 * Finds the first string (or object key) that PostgreSQL text cannot hold as sent: U+0000 (a
 * 500 in the database) or a lone UTF-16 surrogate (silently turned into U+FFFD, merging
 * different identities). Returns its path and the problem, or null. Walks the value with an
 * explicit stack, so no nesting depth escapes it. The admin API checks every request with it
 * up front (src/http/nul-guard.ts); signal ingest names the offending signal field.
 */
export function findUnstorableText(value: unknown, rootPath = 'body'): TextProblemHit | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: rootPath }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return { path, problem };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    // Pushed in reverse so the first offending field in document order is the one reported.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}[${i}]` });
      continue;
    }
    const entries = Object.entries(v);
    for (const [k] of entries) {
      const problem = textProblem(k);
      if (problem) return { path: `${path}.${shownKey(k)}`, problem };
    }
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: `${path}.${entries[i]![0]}` });
  }
  return null;
}

/** The 400 message for a hit of findUnstorableText. */
export function unstorableTextMessage(hit: TextProblemHit): string {
  return hit.problem === 'nul'
    ? `${hit.path} must not contain the NUL character (\\u0000)`
    : `${hit.path} must be well-formed Unicode text (it contains a lone UTF-16 surrogate)`;
}

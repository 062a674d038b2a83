/** Small validators shared by the admin routes and the domain functions (both engines). */
import { invalidInput } from '../errors.js';

/** ISO 8601 date-time with an explicit zone (Z or ±hh:mm); returns the instant or throws 400. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

export function parseIsoDateTime(value: string, field: string): Date {
  const d = new Date(value);
  if (!ISO_DATE_TIME.test(value) || Number.isNaN(d.getTime()) || !sameCalendarDay(value)) {
    throw invalidInput(`${field} must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z`);
  }
  return d;
}

/** Rejects 2026-02-31 and friends, which Date would silently roll over. */
function sameCalendarDay(value: string): boolean {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  return isRealDate(y, m, d);
}

export function isRealDate(y: number, m: number, d: number): boolean {
  // Year 0 does not exist in PostgreSQL's calendar (1 BC comes before AD 1).
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

/** yyyy-MM-dd naming a real calendar day. */
export function isCalendarDay(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return !!m && isRealDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/**
 * PostgreSQL text cannot hold U+0000: such a string would fail in the database as a 500. Returns
 * the path of the first string (or key) holding it, or null. The admin API checks every request
 * with it up front (src/http/nul-guard.ts); signal ingest names the offending signal field.
 */
export function findNulPath(value: unknown, path = 'body', depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (depth > 20 || value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNulPath(value[i], `${path}[${i}]`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k.includes('\u0000')) return `${path}.${k.replaceAll('\u0000', '\\u0000')}`;
    const hit = findNulPath(v, `${path}.${k}`, depth + 1);
    if (hit) return hit;
  }
  return null;
}

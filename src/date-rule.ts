/**
 * The one rule for every date and date-time a client sends to either API (query parameters and
 * body fields alike): a real calendar day or instant from 1970-01-01T00:00:00Z through
 * 9999-12-31T23:59:59.999Z. PostgreSQL and JavaScript both hold every value of that range
 * exactly, with room on both sides for the windows computed from it (a day window ends at the
 * next midnight, a default window starts days before its end); outside it, years below 100 are
 * read back as 19xx/20xx by JavaScript's date parsing, year 0 does not exist in PostgreSQL's
 * calendar and years past 9999 need a sign in ISO 8601. Pure functions: each API turns a `null`
 * into its own 400 naming the parameter.
 *
 * An event's own time (`occurredAt`) may also be at most `MAX_FUTURE_SKEW_MS` ahead of the
 * server's clock: a sender's clock may run a little fast, a time years ahead is a mistake.
 */

export const EARLIEST_MS = Date.UTC(1970, 0, 1);
export const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** How far ahead of the server's clock an event's own time may be. */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

/** What the error messages say about the range. */
export const DATE_RANGE_TEXT = 'from 1970-01-01 through 9999-12-31';

// yyyy-MM-ddTHH:mm[:ss[.fraction]] then Z or ±hh:mm (the admin API).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/i;
// The public API's one form: seconds required, upper-case T and Z.
const UTC_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function inRange(ms: number): boolean {
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
}

/** Midnight UTC of a real calendar day (no Feb 30, no month 13), or null. */
function calendarDay(y: number, mo: number, d: number): number | null {
  if (mo < 1 || mo > 12 || d < 1) return null;
  // Date.UTC maps years 0..99 to 1900..1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return date.getUTCMonth() === mo - 1 && date.getUTCDate() === d ? date.getTime() : null;
}

export interface InstantOptions {
  /** Accept only the public API's form `yyyy-MM-ddTHH:mm:ss[.fff]Z`; otherwise minutes-only and `±hh:mm` too. */
  utcOnly?: boolean;
}

/**
 * ISO 8601 date-time with a zone (`2026-01-31T12:00:00Z`, `…+02:00`; seconds and a fraction of
 * up to 9 digits optional, cut to milliseconds) inside the range, or null. Never rolls over an
 * impossible value (24:00, Feb 30, a +25:00 zone).
 */
export function parseInstant(text: string, opts: InstantOptions = {}): Date | null {
  if (opts.utcOnly && !UTC_DATE_TIME.test(text)) return null;
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const zone = m[8]!;
  const [y, mo, d, h, mi] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
  const s = m[6] ? Number(m[6]) : 0;
  if (h > 23 || mi > 59 || s > 59) return null;
  const day = calendarDay(y, mo, d);
  if (day === null) return null;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const ms = day + ((h * 60 + mi - offsetMinutes) * 60 + s) * 1000 + fraction;
  return inRange(ms) ? new Date(ms) : null;
}

/** A calendar day `yyyy-MM-dd` inside the range, as its midnight UTC, or null. */
export function parseDay(text: string): Date | null {
  const m = DAY.exec(text);
  if (!m) return null;
  const ms = calendarDay(Number(m[1]), Number(m[2]), Number(m[3]));
  return ms !== null && inRange(ms) ? new Date(ms) : null;
}

/** A Date (from a caller inside the process) inside the range. */
export function isInRange(d: Date): boolean {
  return inRange(d.getTime());
}

/** An event's own time is not further ahead of `now` than the allowed clock skew. */
export function isTooFarAhead(d: Date, now: Date): boolean {
  return d.getTime() > now.getTime() + MAX_FUTURE_SKEW_MS;
}

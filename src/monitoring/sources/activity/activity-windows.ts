/**
 * The activity log's windows (vendor-specs/powerbi-activity/README.md §1): a call asks for one
 * window whose start and end are in the same UTC day, as quoted ISO-8601 UTC times; a pass over
 * [from, to) is read day by day. Each pass starts 60 minutes before the end of the last one,
 * because the log's events arrive up to an hour late; the first pass reads the last 24 hours,
 * and no pass reaches further back than the log keeps (30 days).
 */

const DAY_MS = 86_400_000;
/** Events become visible up to an hour after they happen: each pass reads this much again. */
export const REREAD_MS = 60 * 60_000;
/** A new connection's first pass (the incident join looks 24 h back). */
export const FIRST_LOOKBACK_MS = 24 * 3_600_000;
/** The log keeps 30 days: the earliest day a call may ask for. */
const LOG_DAYS = 30;

/** A pass over [from, to): `at` is where it stands, `next` the continuation of the window under way. */
export interface Pass {
  to: string;
  at: string;
  next: string | null;
}

export interface ActivityWindow {
  start: Date;
  /** Inclusive (23:59:59.999 when the window ends with its day). */
  end: Date;
  /** Where the pass stands after this window. */
  after: Date;
}

const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** The pass a run begins when none is under way. */
export function newPass(readTo: string | null, now: Date): Pass {
  const earliest = dayStart(now.getTime()) - LOG_DAYS * DAY_MS;
  const last = readTo ? Date.parse(readTo) : Number.NaN;
  const from = Number.isFinite(last) ? last - REREAD_MS : now.getTime() - FIRST_LOOKBACK_MS;
  return { to: now.toISOString(), at: new Date(Math.min(now.getTime(), Math.max(from, earliest))).toISOString(), next: null };
}

/** The window at the pass's position, or null when the pass is done. */
export function windowOf(pass: Pass): ActivityWindow | null {
  const at = Date.parse(pass.at);
  const to = Date.parse(pass.to);
  if (!(at < to)) return null;
  const nextDay = dayStart(at) + DAY_MS;
  if (to <= nextDay - 1) return { start: new Date(at), end: new Date(to), after: new Date(to) };
  return { start: new Date(at), end: new Date(nextDay - 1), after: new Date(nextDay) };
}

/** The first call of a window: both times quoted, as the API asks. */
export function windowUrl(base: string, w: ActivityWindow): string {
  const q = (d: Date) => encodeURIComponent(`'${d.toISOString()}'`);
  return `${base}?startDateTime=${q(w.start)}&endDateTime=${q(w.end)}`;
}

import { invalidRequest } from '../http/errors.js';
import { parseUtcDate, parseUtcDateTime } from './query-validator.js';

export const DAY_MS = 86_400_000;
export const MAX_SPAN_DAYS = 366;

/** Today's date at 00:00 UTC. */
export function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function formatDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * Alerts window: `from` inclusive, `to` exclusive, ISO 8601 UTC; default [now − 7 days, now);
 * a lone `from` ends at now, a lone `to` starts 7 days before it.
 */
export function instantWindow(q: { from?: string; to?: string }, now: Date): { from: Date; to: Date } {
  const to = q.to !== undefined ? parseUtcDateTime(q.to)! : now;
  const from = q.from !== undefined ? parseUtcDateTime(q.from)! : new Date(to.getTime() - 7 * DAY_MS);
  if (from.getTime() >= to.getTime()) throw invalidRequest('from must be earlier than to');
  if (to.getTime() - from.getTime() > MAX_SPAN_DAYS * DAY_MS) {
    throw invalidRequest(`from and to must be at most ${MAX_SPAN_DAYS} days apart`);
  }
  return { from, to };
}

/**
 * Day window, both days inclusive (metrics, costs). `from` equal to `to` is one day; `from`
 * after `to` is refused. Defaults: `defaultDays` days ending `defaultEnd`.
 */
export function dayWindow(
  q: { from?: string; to?: string },
  defaultEnd: Date,
  defaultDays: number,
): { from: string; to: string; start: Date; endExclusive: Date } {
  const toDay = q.to !== undefined ? parseUtcDate(q.to)! : defaultEnd;
  const fromDay = q.from !== undefined ? parseUtcDate(q.from)! : new Date(toDay.getTime() - (defaultDays - 1) * DAY_MS);
  if (fromDay.getTime() > toDay.getTime()) throw invalidRequest('from must not be after to');
  const days = (toDay.getTime() - fromDay.getTime()) / DAY_MS + 1;
  if (days > MAX_SPAN_DAYS) throw invalidRequest(`from and to must span at most ${MAX_SPAN_DAYS} days`);
  return { from: formatDate(fromDay), to: formatDate(toDay), start: fromDay, endExclusive: new Date(toDay.getTime() + DAY_MS) };
}

/** SLA month: yyyy-MM, not in the future, at most 12 months back; default the previous month. */
export function monthWindow(month: string | undefined, now: Date): { month: string; start: Date; end: Date } {
  const cur = now.getUTCFullYear() * 12 + now.getUTCMonth();
  let index: number;
  if (month === undefined) {
    index = cur - 1;
  } else {
    const m = /^(\d{4})-(\d{2})$/.exec(month);
    const mm = m ? Number(m[2]) : 0;
    if (!m || mm < 1 || mm > 12) throw invalidRequest('month must be a month in the form yyyy-MM');
    index = Number(m[1]) * 12 + mm - 1;
    if (index > cur) throw invalidRequest('month must not be in the future');
    if (index < cur - 12) throw invalidRequest('month must be at most 12 months back');
  }
  const start = new Date(Date.UTC(Math.floor(index / 12), index % 12, 1));
  const end = new Date(Date.UTC(Math.floor((index + 1) / 12), (index + 1) % 12, 1));
  return { month: start.toISOString().slice(0, 7), start, end };
}

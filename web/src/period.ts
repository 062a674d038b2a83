import type { Lang } from './i18n.js';

/** The overview's period: the last N days (today included) or one calendar month, in UTC days as the API counts them. */
export type Period = { kind: 'days'; days: 7 | 30 | 90 | number } | { kind: 'month'; month: string };

const DAY_MS = 86_400_000;
const iso = (d: Date) => d.toISOString().slice(0, 10);

/** The period's first and last day (yyyy-MM-dd, inclusive); a month ends today at the latest. */
export function periodDays(p: Period, now: Date): { from: string; to: string } {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (p.kind === 'days') return { from: iso(new Date(today.getTime() - (p.days - 1) * DAY_MS)), to: iso(today) };
  const [y, m] = p.month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0));
  return { from: `${p.month}-01`, to: iso(last < today ? last : today) };
}

/** The current month and the ones before it, newest first (yyyy-MM). */
export function lastMonths(now: Date, count: number): string[] {
  return Array.from({ length: count }, (_, i) => iso(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1))).slice(0, 7));
}

/**
 * A UTC day of the API (yyyy-MM-dd) in the viewer's language: the day itself, whatever the
 * viewer's time zone (formatting its UTC midnight in UTC keeps the date from shifting).
 */
export function dayLabel(lang: Lang, day: string, style: 'short' | 'long'): string {
  const opts: Intl.DateTimeFormatOptions = style === 'short' ? { day: '2-digit', month: '2-digit' } : { dateStyle: 'short' };
  return new Intl.DateTimeFormat(lang, { ...opts, timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
}

export function monthLabel(lang: Lang, month: string): string {
  return new Intl.DateTimeFormat(lang, { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`));
}

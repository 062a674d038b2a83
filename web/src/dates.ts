/**
 * Dates typed as text in the console's language, read in the viewer's own time zone. A browser
 * date input follows the browser's locale, not the console's (the Portuguese console showed
 * mm/dd/yyyy), so the console reads a plain text field itself: the day, month and year in the
 * order the language writes them (pt-BR dd/mm/aaaa, English mm/dd/yyyy), an optional 24-hour
 * time hh:mm, and the pattern shown as the field's hint.
 */
import type { Lang } from './i18n.js';

type Part = 'day' | 'month' | 'year';

/** The order of day, month and year in the language's numeric dates (from Intl, not a table). */
export function dateOrder(lang: Lang): Part[] {
  return new Intl.DateTimeFormat(lang, { day: '2-digit', month: '2-digit', year: 'numeric' })
    .formatToParts(new Date(2006, 10, 25))
    .filter((p): p is Intl.DateTimeFormatPart & { type: Part } => p.type === 'day' || p.type === 'month' || p.type === 'year')
    .map((p) => p.type);
}

const LETTERS: Record<Lang, Record<Part | 'hour' | 'minute', string>> = {
  'pt-BR': { day: 'dd', month: 'mm', year: 'aaaa', hour: 'hh', minute: 'mm' },
  en: { day: 'dd', month: 'mm', year: 'yyyy', hour: 'hh', minute: 'mm' },
};

/** The pattern a person types, in the language's letters: `dd/mm/aaaa hh:mm`, `mm/dd/yyyy`. */
export function datePattern(lang: Lang, withTime: boolean): string {
  const l = LETTERS[lang];
  const date = dateOrder(lang)
    .map((p) => l[p])
    .join('/');
  return withTime ? `${date} ${l.hour}:${l.minute}` : date;
}

export type ParsedDate = { ok: true; date: Date } | { ok: false; reason: 'format' | 'invalid' };

/**
 * Reads a typed date (and time, when `withTime`; a missing time is midnight, or `endOfDay`'s
 * 23:59:59.999 for a day that includes its whole last day) in the viewer's time zone.
 * `format`: not in the pattern; `invalid`: no such day or time (31/02, 25:00).
 */
export function parseDateInput(lang: Lang, text: string, opts: { withTime: boolean; endOfDay?: boolean }): ParsedDate {
  const m = /^\s*(\d{1,4})[/.-](\d{1,2})[/.-](\d{1,4})(?:[\sT]+(\d{1,2}):(\d{2}))?\s*$/.exec(text);
  if (!m || (m[4] !== undefined && !opts.withTime)) return { ok: false, reason: 'format' };
  const order = dateOrder(lang);
  const given: Record<Part, string> = { day: '', month: '', year: '' };
  order.forEach((part, i) => {
    given[part] = m[i + 1]!;
  });
  if (given.year.length !== 4 || given.day.length > 2 || given.month.length > 2) return { ok: false, reason: 'format' };
  const [year, month, day] = [Number(given.year), Number(given.month), Number(given.day)];
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  if (hour > 23 || minute > 59) return { ok: false, reason: 'invalid' };
  const date = m[4] === undefined && opts.endOfDay ? new Date(year, month - 1, day, 23, 59, 59, 999) : new Date(year, month - 1, day, hour, minute);
  // A day the calendar does not have rolls over (31/02 → 03/03): refuse it instead.
  if (date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== day) return { ok: false, reason: 'invalid' };
  return { ok: true, date };
}

import type { Lang } from './i18n.js';

/** Dates in the viewer's own time zone (the browser's), in the interface language. */
export function formatDate(lang: Lang, iso: string | null | undefined, fallback = '—'): string {
  if (!iso) return fallback;
  return new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium' }).format(new Date(iso));
}

export function formatPercent(lang: Lang, ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined) return '—';
  return new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 1 }).format(ratio);
}

import type { Lang } from './i18n.js';

/** Dates in the viewer's own time zone (the browser's), in the interface language. */
export function formatDate(lang: Lang, iso: string | null | undefined, fallback = '—'): string {
  if (!iso) return fallback;
  return new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium' }).format(new Date(iso));
}

/** `<input type="datetime-local">` value (local time) → ISO instant, or null when empty. */
export function localInputToIso(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** An instant → the local `datetime-local` input value. */
export function isoToLocalInput(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function formatPercent(lang: Lang, ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined) return '—';
  return new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 1 }).format(ratio);
}

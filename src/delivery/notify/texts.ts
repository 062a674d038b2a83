/**
 * The words of chat and e-mail messages in both languages, in one module so wording is reviewed
 * in one place. Pure functions; the renderers escape what they put in their medium.
 */
import type { Language, Texts } from '../../orgs/language.js';
import type { NotificationMessage, UpdateKind } from './message.js';

const t = (pt: string, en: string): Texts => ({ 'pt-BR': pt, en });

const SEVERITY: Record<'error' | 'info', Texts> = { error: t('ERRO', 'ERROR'), info: t('INFO', 'INFO') };

const UPDATE: Record<UpdateKind, Texts> = {
  opened: t('Incidente aberto', 'Incident opened'),
  acknowledged: t('Incidente reconhecido', 'Incident acknowledged'),
  escalated: t('Incidente escalado', 'Incident escalated'),
  resolved: t('Incidente resolvido', 'Incident resolved'),
};

const LABELS = {
  source: t('Origem', 'Source'),
  tenant: t('Tenant', 'Tenant'),
  workspace: t('Workspace', 'Workspace'),
  capacity: t('Capacidade', 'Capacity'),
  rootCause: t('Causa raiz', 'Root cause'),
  startedAt: t('Início', 'Started'),
  open: t('Ver no Vigia', 'View in Vigia'),
  acknowledge: t('Reconhecer', 'Acknowledge'),
  resolve: t('Resolver', 'Resolve'),
  test: t('[TESTE] ', '[TEST] '),
} as const;

export type LabelName = keyof typeof LABELS;

export const notifyTexts = {
  label: (name: LabelName, lang: Language): string => LABELS[name][lang],
  severity: (s: 'error' | 'info', lang: Language): string => SEVERITY[s][lang],
  update: (u: UpdateKind, lang: Language): string => UPDATE[u][lang],
  /** "and 3 more" / "e mais 3". */
  more: (n: number, lang: Language): string => (lang === 'en' ? `and ${n} more` : `e mais ${n}`),
  /** A group of openings that share a tenant, counted: "3 incidentes em Contoso" / "3 incidents in Contoso". */
  inTenant: (n: number, tenant: string, lang: Language): string => (lang === 'en' ? `${n} incidents in ${tenant}` : `${n} incidentes em ${tenant}`),
  /** The headline of a message: one incident's title, or the group's count. */
  headline(m: NotificationMessage): string {
    const total = m.items.length + m.more;
    const prefix = m.test ? LABELS.test[m.locale] : '';
    if (total === 1) return `${prefix}${UPDATE[m.update][m.locale]}: ${m.items[0]!.title}`;
    return `${prefix}${m.locale === 'en' ? `${total} incidents opened` : `${total} incidentes abertos`}`;
  },
};

/** An instant in a time zone and language: `28/11/2026 11:05 (BRT)` / `11/28/2026, 11:05 AM (BRT)`. */
export function formatInstant(iso: string, timeZone: string, lang: Language): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const when = new Intl.DateTimeFormat(lang, {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
  }).format(d);
  const zone = new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'short' })
    .formatToParts(d).find((p) => p.type === 'timeZoneName')?.value;
  return zone ? `${when} (${zone})` : when;
}

/** The first sentence of a message, at most `max` characters (cut on a code point). */
export function firstSentence(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const m = /^.*?[.!?](?=\s|$)/.exec(flat);
  const s = m ? m[0] : flat;
  const cps = Array.from(s);
  return cps.length <= max ? s : `${cps.slice(0, max - 1).join('')}…`;
}

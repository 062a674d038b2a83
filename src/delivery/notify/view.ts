/**
 * What every medium shows, as plain (unescaped) text: the lines of one incident and of a message.
 * The renderers escape these for their medium. Pure.
 */
import type { Language } from '../../orgs/language.js';
import type { NotificationItem, NotificationMessage } from './message.js';
import { notifyTexts as T } from './texts.js';

export interface Fact {
  title: string;
  value: string;
  /** Vigia's own text (labels, formatted times): shown as is; anything else is escaped by the renderer. */
  ours?: true;
}

/** Colours per severity: Adaptive Card colour names and a round emoji for media without colour. */
export const SEVERITY_STYLE = {
  error: { card: 'Attention', emoji: '🔴' },
  info: { card: 'Accent', emoji: '🔵' },
} as const;

export const UPDATE_EMOJI = { opened: '', acknowledged: '👀', escalated: '⏫', resolved: '✅' } as const;

/** "ERRO · Refresh failed: Sales". */
export function itemHeadline(item: NotificationItem, lang: Language): string {
  return `${T.severity(item.severity, lang)} · ${item.title}`;
}

/** The source and context facts of an incident, in display order; absent ones left out. */
export function itemFacts(item: NotificationItem, lang: Language): Fact[] {
  const facts: Fact[] = [];
  const s = item.source;
  if (s.tenant) facts.push({ title: T.label('tenant', lang), value: s.tenant });
  if (s.workspace) facts.push({ title: T.label('workspace', lang), value: s.workspace });
  if (s.capacity) facts.push({ title: T.label('capacity', lang), value: s.capacity });
  facts.push({ title: s.itemType, value: s.item });
  if (item.rootCause) facts.push({ title: T.label('rootCause', lang), value: item.rootCause });
  facts.push({ title: T.label('startedAt', lang), value: item.startedAtText, ours: true });
  return facts;
}

/** The message's one-line text (notification previews, fallback text, e-mail subject). */
export function fallbackText(m: NotificationMessage): string {
  const head = T.headline(m);
  if (m.items.length === 1 && m.more === 0) return `${T.severity(m.items[0]!.severity, m.locale)} · ${head}`;
  return head;
}

/** True when the message is about one incident (a single opening, or an update). */
export const isSingle = (m: NotificationMessage): boolean => m.items.length === 1 && m.more === 0;

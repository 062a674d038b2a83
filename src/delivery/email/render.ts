/**
 * One alert event as an e-mail: the subject (severity and title, stable across the incident's
 * thread), a text/plain part and a text/html part. Every platform-provided string is escaped for
 * HTML in the HTML part; the subject loses its control characters (a CR/LF in a title can never
 * start a header line).
 */
import type { Language } from '../../orgs/language.js';
import { EMAIL_TEXTS } from './texts.js';

/** What one message says: the event and the alert as the delivery body carries them. */
export interface EmailContent {
  language: Language;
  timeZone: string;
  event: string;
  test: boolean;
  severity: 'error' | 'info';
  title: string;
  message: string;
  sourceType: string;
  sourceId: string;
  workspaceName: string | null;
  capacityName: string | null;
  openedAt: string;
  resolvedAt: string | null;
  failureCount: number;
  url: string;
  /** The acknowledge link (src/delivery/ack-links.ts), for an open, unacknowledged incident only. */
  ackUrl?: string | null;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const COLOURS = { error: '#c62828', info: '#1565c0', resolved: '#2e7d32' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Control characters (CR, LF, tab, NUL…) and line/paragraph separators become single spaces. */
export function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/ {2,}/g, ' ').trim();
}

export function formatInstant(iso: string, language: Language, timeZone: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const text = new Intl.DateTimeFormat(language, { timeZone, dateStyle: 'short', timeStyle: 'short' }).format(d);
  return `${text} (${timeZone})`;
}

export function emailSubject(c: Pick<EmailContent, 'language' | 'severity' | 'title' | 'test'>): string {
  const t = EMAIL_TEXTS[c.language];
  const subject = `[Vigia][${t.severity[c.severity]}] ${oneLine(c.title)}`;
  return c.test ? `${subject} (${t.test})` : subject;
}

/** The labelled facts of the message, in order, as [label, value] (values not escaped). */
export function facts(c: EmailContent): [string, string][] {
  const t = EMAIL_TEXTS[c.language];
  const out: [string, string][] = [[t.source, `${c.sourceType} · ${c.sourceId}`]];
  if (c.workspaceName) out.push([t.workspace, c.workspaceName]);
  if (c.capacityName) out.push([t.capacity, c.capacityName]);
  out.push([t.started, formatInstant(c.openedAt, c.language, c.timeZone)]);
  if (c.resolvedAt) out.push([t.resolved, formatInstant(c.resolvedAt, c.language, c.timeZone)]);
  if (c.failureCount > 1) out.push([t.occurrences, String(c.failureCount)]);
  return out;
}

export function headline(c: EmailContent): string {
  const t = EMAIL_TEXTS[c.language];
  const head = t.headline[c.event] ?? c.event;
  return `${c.test ? `${t.test} · ` : ''}${head} · ${t.severity[c.severity]}`;
}

export function renderText(c: EmailContent, unsubscribeUrl: string | null): string {
  const t = EMAIL_TEXTS[c.language];
  const lines = [headline(c), '', oneLine(c.title), ''];
  if (c.message) lines.push(c.message, '');
  for (const [label, value] of facts(c)) lines.push(`${label}: ${oneLine(value)}`);
  if (c.ackUrl) lines.push('', `${t.ack}: ${c.ackUrl}`);
  lines.push('', `${t.view}: ${c.url}`, '', '-- ', t.footer);
  if (unsubscribeUrl) lines.push(`${t.unsubscribe}: ${unsubscribeUrl}`);
  return `${lines.join('\n')}\n`;
}

export function colourOf(c: Pick<EmailContent, 'event' | 'severity'>): string {
  return c.event === 'alert.recovered' ? COLOURS.resolved : COLOURS[c.severity];
}

export function renderHtml(c: EmailContent, unsubscribeUrl: string | null): string {
  const t = EMAIL_TEXTS[c.language];
  const rows = facts(c)
    .map(([label, value]) => `<tr><td style="padding:2px 12px 2px 0;color:#555">${escapeHtml(label)}</td><td style="padding:2px 0">${escapeHtml(value)}</td></tr>`)
    .join('');
  const message = c.message ? `<p style="margin:0 0 12px;white-space:pre-wrap">${escapeHtml(c.message)}</p>` : '';
  const unsubscribe = unsubscribeUrl
    ? ` <a href="${escapeHtml(unsubscribeUrl)}" style="color:#777">${escapeHtml(t.unsubscribe)}</a>`
    : '';
  return [
    `<!doctype html><html lang="${c.language}"><head><meta charset="utf-8"><title>${escapeHtml(oneLine(c.title))}</title></head>`,
    '<body style="margin:0;padding:16px;font-family:Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;color:#222">',
    `<div style="border-left:6px solid ${colourOf(c)};padding:4px 0 4px 12px;max-width:640px">`,
    `<p style="margin:0 0 4px;color:${colourOf(c)};font-weight:bold">${escapeHtml(headline(c))}</p>`,
    `<h1 style="margin:0 0 12px;font-size:18px">${escapeHtml(oneLine(c.title))}</h1>`,
    message,
    `<table style="border-collapse:collapse;margin:0 0 16px">${rows}</table>`,
    `<p style="margin:0 0 16px">${ackButton(c)}<a href="${escapeHtml(c.url)}" style="background:#0b5cab;color:#fff;padding:8px 14px;text-decoration:none;border-radius:4px">${escapeHtml(t.view)}</a></p>`,
    `<p style="margin:0;color:#777;font-size:12px">${escapeHtml(t.footer)}${unsubscribe}</p>`,
    '</div></body></html>',
  ].join('\n');
}

/** "Reconhecer": opens the confirmation page (a GET never acknowledges, so mail scanners cannot). */
function ackButton(c: EmailContent): string {
  if (!c.ackUrl) return '';
  const t = EMAIL_TEXTS[c.language];
  return `<a href="${escapeHtml(c.ackUrl)}" style="background:#2e7d32;color:#fff;padding:8px 14px;text-decoration:none;border-radius:4px;margin-right:8px">${escapeHtml(t.ack)}</a>`;
}

export function renderEmail(c: EmailContent, unsubscribeUrl: string | null): RenderedEmail {
  return { subject: emailSubject(c), text: renderText(c, unsubscribeUrl), html: renderHtml(c, unsubscribeUrl) };
}

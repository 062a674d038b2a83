/**
 * The notification message (src/delivery/notify) as an e-mail: the subject (severity and title,
 * stable across the incident's thread), a text/plain part and a text/html part. Every
 * platform-provided string is escaped for HTML in the HTML part; the subject loses its control
 * characters (a CR/LF in a title can never start a header line). Pure.
 */
import { notifyTexts, type NotificationItem, type NotificationMessage } from '../notify/index.js';
import { EMAIL_TEXTS } from './texts.js';

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** What the message is besides the model: a digest names its period in the subject. */
export interface EmailFrame {
  unsubscribeUrl: string | null;
  digest?: 'hourly' | 'daily';
}

const COLOURS = { error: '#c62828', info: '#1565c0', resolved: '#2e7d32' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Control characters (CR, LF, tab, NUL…) and line/paragraph separators become single spaces. */
export function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/ {2,}/g, ' ').trim();
}

/** The message's severity: error when any incident listed is an error. */
function severityOf(m: NotificationMessage): 'error' | 'info' {
  return m.items.some((i) => i.severity === 'error') ? 'error' : 'info';
}

/** The tenant every listed incident shares (a group gathered by tenant), or null. */
function sharedTenant(m: NotificationMessage): string | null {
  const tenant = m.items[0]?.source.tenant ?? null;
  return tenant !== null && m.items.every((i) => i.source.tenant === tenant) ? tenant : null;
}

/**
 * `[Vigia][ERRO] <title>` for one incident (the same for its whole thread), `[Vigia][ERRO] 3
 * incidentes em <tenant>` (or `3 incidentes abertos`) for a group, `[Vigia][INFO] Resumo por hora: 12` for a digest.
 */
export function emailSubject(m: NotificationMessage, frame: Pick<EmailFrame, 'digest'> = {}): string {
  const sev = notifyTexts.severity(severityOf(m), m.locale);
  const total = m.items.length + m.more;
  const tenant = sharedTenant(m);
  const what = frame.digest
    ? `${EMAIL_TEXTS[m.locale].digest[frame.digest]}: ${total}`
    : total === 1
      ? m.items[0]!.title
      : tenant
        ? notifyTexts.inTenant(total, tenant, m.locale)
        : notifyTexts.headline({ ...m, test: false });
  return oneLine(`${m.test ? notifyTexts.label('test', m.locale) : ''}[Vigia][${sev}] ${what}`);
}

/** The labelled facts of one incident, in order, as [label, value] (values not escaped). */
export function facts(m: NotificationMessage, i: NotificationItem): [string, string][] {
  const l = (name: Parameters<typeof notifyTexts.label>[0]) => notifyTexts.label(name, m.locale);
  const out: [string, string][] = [];
  if (i.source.tenant) out.push([l('tenant'), i.source.tenant]);
  if (i.source.workspace) out.push([l('workspace'), i.source.workspace]);
  if (i.source.capacity) out.push([l('capacity'), i.source.capacity]);
  out.push([l('source'), `${i.source.itemType} · ${i.source.item}`]);
  if (i.rootCause) out.push([l('rootCause'), i.rootCause]);
  out.push([l('startedAt'), i.startedAtText]);
  return out;
}

export function headline(m: NotificationMessage): string {
  const total = m.items.length + m.more;
  const update = notifyTexts.update(m.update, m.locale);
  const head = total === 1 ? `${update} · ${notifyTexts.severity(m.items[0]!.severity, m.locale)}` : notifyTexts.headline({ ...m, test: false });
  return `${m.test ? notifyTexts.label('test', m.locale) : ''}${head}`;
}

function itemText(m: NotificationMessage, i: NotificationItem): string[] {
  const lines = [oneLine(i.title)];
  if (i.summary) lines.push(i.summary);
  for (const [label, value] of facts(m, i)) lines.push(`${label}: ${oneLine(value)}`);
  lines.push(`${notifyTexts.label('open', m.locale)}: ${i.consoleUrl}`);
  if (i.ackUrl) lines.push(`${notifyTexts.label('acknowledge', m.locale)}: ${i.ackUrl}`);
  return lines;
}

export function renderText(m: NotificationMessage, frame: EmailFrame): string {
  const lines = [headline(m), ''];
  for (const i of m.items) lines.push(...itemText(m, i), '');
  if (m.more > 0) lines.push(notifyTexts.more(m.more, m.locale), '');
  lines.push('-- ', EMAIL_TEXTS[m.locale].footer);
  if (frame.unsubscribeUrl) lines.push(`${EMAIL_TEXTS[m.locale].unsubscribe}: ${frame.unsubscribeUrl}`);
  return `${lines.join('\n')}\n`;
}

export function colourOf(m: NotificationMessage): string {
  return m.update === 'resolved' ? COLOURS.resolved : COLOURS[severityOf(m)];
}

const button = (href: string, label: string, bg: string) =>
  `<a href="${escapeHtml(href)}" style="background:${bg};color:#fff;padding:8px 14px;text-decoration:none;border-radius:4px;margin-right:8px">${escapeHtml(label)}</a>`;

function itemHtml(m: NotificationMessage, i: NotificationItem): string {
  const rows = facts(m, i)
    .map(([label, value]) => `<tr><td style="padding:2px 12px 2px 0;color:#555">${escapeHtml(label)}</td><td style="padding:2px 0">${escapeHtml(value)}</td></tr>`)
    .join('');
  const ack = i.ackUrl ? button(i.ackUrl, notifyTexts.label('acknowledge', m.locale), '#2e7d32') : '';
  return [
    `<h2 style="margin:0 0 8px;font-size:17px">${escapeHtml(oneLine(i.title))}</h2>`,
    i.summary ? `<p style="margin:0 0 8px">${escapeHtml(i.summary)}</p>` : '',
    `<table style="border-collapse:collapse;margin:0 0 12px">${rows}</table>`,
    `<p style="margin:0 0 20px">${ack}${button(i.consoleUrl, notifyTexts.label('open', m.locale), '#0b5cab')}</p>`,
  ].join('\n');
}

export function renderHtml(m: NotificationMessage, frame: EmailFrame): string {
  const t = EMAIL_TEXTS[m.locale];
  const colour = colourOf(m);
  const more = m.more > 0 ? `<p style="margin:0 0 16px">${escapeHtml(notifyTexts.more(m.more, m.locale))}</p>` : '';
  const unsubscribe = frame.unsubscribeUrl ? ` <a href="${escapeHtml(frame.unsubscribeUrl)}" style="color:#777">${escapeHtml(t.unsubscribe)}</a>` : '';
  return [
    `<!doctype html><html lang="${m.locale}"><head><meta charset="utf-8"><title>${escapeHtml(emailSubject(m, frame))}</title></head>`,
    '<body style="margin:0;padding:16px;font-family:Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;color:#222">',
    `<div style="border-left:6px solid ${colour};padding:4px 0 4px 12px;max-width:640px">`,
    `<p style="margin:0 0 12px;color:${colour};font-weight:bold">${escapeHtml(headline(m))}</p>`,
    ...m.items.map((i) => itemHtml(m, i)),
    more,
    `<p style="margin:0;color:#777;font-size:12px">${escapeHtml(t.footer)}${unsubscribe}</p>`,
    '</div></body></html>',
  ].join('\n');
}

export function renderEmail(m: NotificationMessage, frame: EmailFrame): RenderedEmail {
  return { subject: emailSubject(m, frame), text: renderText(m, frame), html: renderHtml(m, frame) };
}

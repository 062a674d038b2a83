/**
 * The headers and parts of one message to one recipient: its own Message-ID per event (the
 * delivery's id), In-Reply-To / References to the incident's thread root, Auto-Submitted, a
 * List-Id, and the RFC 8058 one-click unsubscribe of that recipient.
 */
import type { SendMailOptions } from 'nodemailer';
import type { SmtpConfig } from '../../config-smtp.js';
import type { RenderedEmail } from './render.js';

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/** `<{deliveryId}@{sender's domain}>`: one per event and destination, the same on every retry and redelivery. */
export function messageIdFor(deliveryId: string, smtp: Pick<SmtpConfig, 'fromAddress'>): string {
  return `<${deliveryId}@${domainOf(smtp.fromAddress)}>`;
}

/**
 * The root of the incident's thread at this destination: the Message-ID the opening message was
 * sent with (stored as the opening delivery's reference), or — when the opening was never sent
 * here (filtered, or the destination came later) — a stable id no message carries.
 */
export function threadRoot(ref: Record<string, unknown> | null, alertId: string, destinationId: string, smtp: Pick<SmtpConfig, 'fromAddress'>): string {
  if (ref && typeof ref.messageId === 'string' && /^<[^<>\s]+>$/.test(ref.messageId)) return ref.messageId;
  return `<incident.${alertId}.${destinationId}@${domainOf(smtp.fromAddress)}>`;
}

export interface MessageInput {
  smtp: SmtpConfig;
  to: string;
  replyTo: string | null;
  rendered: RenderedEmail;
  messageId: string;
  /** The thread root, or null for the message that opens the thread. */
  inReplyTo: string | null;
  destinationId: string;
  unsubscribeUrl: string | null;
  date: Date;
}

export function buildMessage(m: MessageInput): SendMailOptions {
  const headers: Record<string, string> = {
    'Auto-Submitted': 'auto-generated',
    'X-Auto-Response-Suppress': 'All',
    'List-Id': `Vigia <${m.destinationId.toLowerCase().replace(/[^a-z0-9-]/g, '-')}.alerts.${domainOf(m.smtp.fromAddress)}>`,
  };
  if (m.unsubscribeUrl) {
    headers['List-Unsubscribe'] = `<${m.unsubscribeUrl}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return {
    from: m.smtp.from,
    to: m.to,
    ...(m.replyTo ? { replyTo: m.replyTo } : {}),
    subject: m.rendered.subject,
    text: m.rendered.text,
    html: m.rendered.html,
    messageId: m.messageId,
    date: m.date,
    ...(m.inReplyTo ? { inReplyTo: m.inReplyTo, references: [m.inReplyTo] } : {}),
    headers,
    envelope: { from: m.smtp.fromAddress, to: [m.to] },
  };
}

/**
 * One attempt of an e-mail delivery: a message per recipient (each carries its own one-click
 * unsubscribe), all through the pooled SMTP connection. Recipients that already took this
 * delivery's message are skipped, so a retry never mails anyone twice. Outcome:
 *   every remaining recipient accepted or refused for good → succeeded (refusals are marked on
 *     the recipients, not the destination), or abandoned when none at all accepted it;
 *   the relay down, a 4xx answer, TLS or authentication failing → retry by the retry policy;
 *   the message itself refused for good (5xx to MAIL FROM / DATA) → abandoned.
 */
import type { AppContext } from '../../context.js';
import type { DeliveryBody } from '../../outbox/index.js';
import type { ConnectorResult } from '../connectors/types.js';
import type { DelivererAttempt } from '../deliverer-types.js';
import type { Mailer } from './mailer.js';
import { buildMessage, messageIdFor, threadRoot } from './message.js';
import { renderEmail } from './render.js';
import { buildNotificationMessage, loadMessageContext, type NotificationMessage } from '../notify/index.js';
import { normalizeAddress, readEmailConfig } from './rules.js';
import { classifySmtpError } from './smtp-errors.js';
import { markRefused, orgMailSettings, recordAccepted, sentAddresses, type OrgMailSettings } from './store.js';
import { unsubscribeUrl } from './tokens.js';

export const NO_RELAY = 'no SMTP relay: set VIGIA_SMTP_URL and VIGIA_SMTP_FROM';

/** The notification message of one delivery body, with the facts the body does not carry (tenant, root cause). */
export async function messageOf(ctx: AppContext, body: DeliveryBody, s: OrgMailSettings): Promise<NotificationMessage> {
  const context = await loadMessageContext(ctx.db, s.orgId, [body.alert.id]);
  return buildNotificationMessage([body], { language: s.language, timeZone: s.timeZone }, context);
}

export interface SendPlan {
  ctx: AppContext;
  mailer: Mailer;
  deliveryId: string;
  destinationId: string;
  body: DeliveryBody;
  settings: OrgMailSettings;
  recipients: string[];
  ref: Record<string, unknown> | null;
  test: boolean;
}

export interface SendTally {
  accepted: number;
  refused: string[];
  /** The first failure that calls for a retry or ends the message, if any. */
  failure: { kind: 'retry' | 'message'; error: string } | null;
  messageId: string;
}

/** Sends the message to each recipient in turn; stops at the first failure that is not a recipient's own refusal. */
export async function sendToRecipients(p: SendPlan): Promise<SendTally> {
  const smtp = p.ctx.config.smtp!;
  const messageId = messageIdFor(p.deliveryId, smtp);
  const opening = p.body.event === 'alert.opened';
  const inReplyTo = opening ? null : threadRoot(p.ref, p.body.alert.id, p.destinationId, smtp);
  const model = await messageOf(p.ctx, p.body, p.settings);
  const tally: SendTally = { accepted: 0, refused: [], failure: null, messageId };
  for (const to of p.recipients) {
    const link = unsubscribeUrl(p.ctx, { destinationId: p.destinationId, address: to });
    const message = buildMessage({
      smtp,
      to,
      replyTo: p.settings.replyTo,
      rendered: renderEmail(model, { unsubscribeUrl: link }),
      messageId,
      inReplyTo,
      destinationId: p.destinationId,
      unsubscribeUrl: link,
      date: p.ctx.clock.now(),
    });
    try {
      await p.mailer.sendMail(message);
      tally.accepted += 1;
      await recordAccepted(p.ctx.db, { deliveryId: p.deliveryId, destinationId: p.destinationId, address: to, messageId, at: p.ctx.clock.now(), test: p.test });
    } catch (err) {
      const verdict = classifySmtpError(err);
      if (verdict.kind !== 'refused') {
        tally.failure = { kind: verdict.kind, error: verdict.error };
        return tally;
      }
      tally.refused.push(to);
      await markRefused(p.ctx.db, p.destinationId, to, verdict.error, p.ctx.clock.now());
    }
  }
  return tally;
}

export function verdictOf(t: SendTally, alreadyAccepted: number, opening: boolean): ConnectorResult {
  if (t.failure) return t.failure.kind === 'retry' ? { outcome: 'retry', error: t.failure.error } : { outcome: 'abandon', error: t.failure.error };
  if (t.accepted + alreadyAccepted === 0) {
    return { outcome: 'abandon', error: t.refused.length > 0 ? `the SMTP relay refused every recipient (${t.refused.length})` : 'no recipients left' };
  }
  const note = t.refused.length > 0 ? `refused by the relay: ${t.refused.length} recipient(s)` : undefined;
  return { outcome: 'succeeded', ...(opening ? { ref: { messageId: t.messageId } } : {}), ...(note ? { note } : {}) };
}

export async function deliverEmail(ctx: AppContext, a: DelivererAttempt, mailer: Mailer | null): Promise<ConnectorResult> {
  if (!ctx.config.smtp || !mailer) return { outcome: 'retry', error: NO_RELAY };
  const body = JSON.parse(a.body) as DeliveryBody;
  const settings = await orgMailSettings(ctx.db, a.destinationId);
  if (!settings) return { outcome: 'abandon', error: 'destination not found' };
  const done = await sentAddresses(ctx.db, a.id);
  const recipients = readEmailConfig(a.config).recipients.map(normalizeAddress);
  const remaining = recipients.filter((r) => !done.has(r));
  const tally = await sendToRecipients({ ctx, mailer, deliveryId: a.id, destinationId: a.destinationId, body, settings, recipients: remaining, ref: a.ref, test: false });
  return verdictOf(tally, recipients.length - remaining.length, body.event === 'alert.opened');
}

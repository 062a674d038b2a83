/**
 * One attempt of an e-mail delivery: a message per recipient (each carries its own one-click
 * unsubscribe), all through the pooled SMTP connection. Recipients that already took this
 * delivery's message are skipped, so a retry never mails anyone twice. Outcome:
 *   every remaining recipient accepted or refused for good → succeeded (refusals are marked on
 *     the recipients, not the destination), or abandoned when none at all accepted it;
 *   the relay down, a 4xx answer, TLS or authentication failing → retry by the retry policy;
 *   the message itself refused for good (5xx to MAIL FROM / DATA) → abandoned.
 * An `info` opening at a destination with a digest is recorded for its period instead (digest.ts sends it).
 */
import type { AppContext } from '../../context.js';
import type { DeliveryBody } from '../../outbox/index.js';
import type { ConnectorResult } from '../connectors/types.js';
import type { DelivererAttempt } from '../deliverer-types.js';
import { buildNotificationMessage, loadMessageContext, type NotificationMessage } from '../notify/index.js';
import { loadAckKey, loadAckUrls } from '../ack-links.js';
import { periodEnd, recordDigestItem } from './digest-store.js';
import type { Mailer } from './mailer.js';
import { buildMessage, messageIdFor, threadRoot } from './message.js';
import { renderEmail } from './render.js';
import { normalizeAddress, readEmailConfig, type Digest } from './rules.js';
import { classifySmtpError } from './smtp-errors.js';
import { markRefused, orgMailSettings, recordAccepted, type OrgMailSettings } from './store.js';
import { unsubscribeUrl } from './tokens.js';

export const NO_RELAY = 'no SMTP relay: set VIGIA_SMTP_URL and VIGIA_SMTP_FROM';

/**
 * The notification message of delivery bodies, with the facts a body does not carry (tenant, root
 * cause) and, given the destination, the acknowledge links of its open, unacknowledged incidents
 * (src/delivery/ack-links.ts; an opening or an escalation, not a test).
 */
export async function messageOf(ctx: AppContext, bodies: DeliveryBody[], s: OrgMailSettings, destinationId?: string): Promise<NotificationMessage> {
  const context = await loadMessageContext(ctx.db, s.orgId, bodies.map((b) => b.alert.id));
  const linked = bodies.filter((b) => !b.test && (b.event === 'alert.opened' || b.event === 'alert.escalated')).map((b) => b.alert.id);
  if (destinationId && linked.length > 0) {
    const ackUrls = await loadAckUrls(ctx.db, await loadAckKey(ctx), ctx.config.baseUrl, { orgId: s.orgId, destinationId, alertIds: linked, now: ctx.clock.now() });
    return buildNotificationMessage(bodies, { language: s.language, timeZone: s.timeZone }, { ...context, ackUrls });
  }
  return buildNotificationMessage(bodies, { language: s.language, timeZone: s.timeZone }, context);
}

export interface SendPlan {
  ctx: AppContext;
  mailer: Mailer;
  /** The delivery whose message this is; null for a digest (nothing recorded per recipient). */
  deliveryId: string | null;
  destinationId: string;
  model: NotificationMessage;
  settings: OrgMailSettings;
  recipients: string[];
  messageId: string;
  inReplyTo: string | null;
  digest?: Digest;
}

export interface SendTally {
  accepted: number;
  refused: string[];
  /** The first failure that calls for a retry or ends the message, if any. */
  failure: { kind: 'retry' | 'message'; error: string } | null;
}

/** Sends the message to each recipient in turn; stops at the first failure that is not a recipient's own refusal. */
export async function sendToRecipients(p: SendPlan): Promise<SendTally> {
  const smtp = p.ctx.config.smtp!;
  const tally: SendTally = { accepted: 0, refused: [], failure: null };
  for (const to of p.recipients) {
    const link = unsubscribeUrl(p.ctx, { destinationId: p.destinationId, address: to });
    const message = buildMessage({
      smtp,
      to,
      replyTo: p.settings.replyTo,
      rendered: renderEmail(p.model, { unsubscribeUrl: link, ...(p.digest ? { digest: p.digest } : {}) }),
      messageId: p.messageId,
      inReplyTo: p.inReplyTo,
      destinationId: p.destinationId,
      unsubscribeUrl: link,
      date: p.ctx.clock.now(),
    });
    try {
      await p.mailer.sendMail(message);
      tally.accepted += 1;
      await recordAccepted(p.ctx.db, { deliveryId: p.deliveryId, destinationId: p.destinationId, address: to, messageId: p.messageId, at: p.ctx.clock.now() });
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

export function verdictOf(t: SendTally, alreadyAccepted: number, ref: Record<string, unknown> | null): ConnectorResult {
  if (t.failure) return t.failure.kind === 'retry' ? { outcome: 'retry', error: t.failure.error } : { outcome: 'abandon', error: t.failure.error };
  if (t.accepted + alreadyAccepted === 0) {
    return { outcome: 'abandon', error: t.refused.length > 0 ? `the SMTP relay refused every recipient (${t.refused.length})` : 'no recipients left' };
  }
  const note = t.refused.length > 0 ? `refused by the relay: ${t.refused.length} recipient(s)` : undefined;
  return { outcome: 'succeeded', ...(ref ? { ref } : {}), ...(note ? { note } : {}) };
}

/** True when this event waits for the destination's digest instead of going out now. */
function digested(body: DeliveryBody, digest: Digest | null): digest is Digest {
  return digest !== null && body.event === 'alert.opened' && body.alert.severity === 'info' && body.test !== true;
}

export async function deliverEmail(ctx: AppContext, a: DelivererAttempt, mailer: Mailer | null): Promise<ConnectorResult> {
  if (!ctx.config.smtp || !mailer) return { outcome: 'retry', error: NO_RELAY };
  const body = JSON.parse(a.body) as DeliveryBody;
  const settings = await orgMailSettings(ctx.db, a.destinationId, a.id);
  if (!settings) return { outcome: 'abandon', error: 'destination not found' };
  const cfg = readEmailConfig(a.config);
  if (digested(body, cfg.digest)) {
    const end = periodEnd(cfg.digest, ctx.clock.now(), settings.timeZone);
    await recordDigestItem(ctx.db, { deliveryId: a.id, orgId: settings.orgId, destinationId: a.destinationId, body, periodEnd: end });
    return { outcome: 'succeeded', note: `in the ${cfg.digest} digest sent at ${end.toISOString()}` };
  }
  const done = settings.sent;
  const recipients = cfg.recipients.map(normalizeAddress);
  const remaining = recipients.filter((r) => !done.has(r));
  const smtp = ctx.config.smtp;
  const messageId = messageIdFor(a.id, smtp);
  const opening = body.event === 'alert.opened';
  const tally = await sendToRecipients({
    ctx,
    mailer,
    deliveryId: a.id,
    destinationId: a.destinationId,
    model: await messageOf(ctx, [body], settings, a.destinationId),
    settings,
    recipients: remaining,
    messageId,
    inReplyTo: opening ? null : threadRoot(a.ref, body.alert.id, a.destinationId, smtp),
  });
  return verdictOf(tally, recipients.length - remaining.length, opening ? { messageId } : null);
}

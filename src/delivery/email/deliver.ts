/**
 * One attempt of an e-mail delivery — for a grouped opening, of its whole group (the incidents
 * listed in one message; src/delivery/grouping.ts): a message per recipient (each carries its own
 * one-click unsubscribe), all through the pooled SMTP connection. Recipients that already took
 * this attempt's message (kept under the sending delivery: a group's leader) are skipped, so a
 * retry never mails anyone twice. Outcome, shared by every delivery of a group:
 *   every remaining recipient accepted or refused for good → succeeded (refusals are marked on
 *     the recipients, not the destination), or abandoned when none at all accepted it;
 *   the relay down, a 4xx answer, TLS or authentication failing → retry by the retry policy;
 *   the message itself refused for good (5xx to MAIL FROM / DATA) → abandoned.
 * An `info` opening at a destination with a digest is recorded for its period instead (digest.ts sends it).
 * The message's Message-ID is the thread root of every incident it announced (the opening's
 * reference, stored for each delivery of the group), so their later updates reply to it.
 */
import type { AppContext } from '../../context.js';
import type { DeliveryBody } from '../../outbox/index.js';
import type { ConnectorResult } from '../connectors/types.js';
import type { DelivererAttempt } from '../deliverer-types.js';
import { loadNotificationMessage, type NotificationMessage } from '../notify/index.js';
import { periodEnd, recordDigestItem } from './digest-store.js';
import type { Mailer } from './mailer.js';
import { buildMessage, messageIdFor, threadRoot } from './message.js';
import { renderEmail } from './render.js';
import { normalizeAddress, readEmailConfig, type Digest } from './rules.js';
import { classifySmtpError } from './smtp-errors.js';
import { markRefused, orgMailSettings, recordAccepted, type OrgMailSettings, type SendProgress } from './store.js';
import { unsubscribeUrl } from './tokens.js';

export const NO_RELAY = 'no SMTP relay: set VIGIA_SMTP_URL and VIGIA_SMTP_FROM';

export interface SendPlan {
  ctx: AppContext;
  mailer: Mailer;
  /** Where each recipient's acceptance is kept (a delivery, a digest); null for a test send. */
  progress: SendProgress | null;
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
      await recordAccepted(p.ctx.db, { progress: p.progress, destinationId: p.destinationId, address: to, messageId: p.messageId, at: p.ctx.clock.now() });
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
function digested(body: DeliveryBody, digest: Digest | null): boolean {
  return digest !== null && body.event === 'alert.opened' && body.alert.severity === 'info' && body.test !== true;
}

export async function deliverEmail(ctx: AppContext, a: DelivererAttempt, mailer: Mailer | null): Promise<ConnectorResult> {
  if (!ctx.config.smtp || !mailer) return { outcome: 'retry', error: NO_RELAY };
  const settings = await orgMailSettings(ctx.db, a.destinationId, a.id);
  if (!settings) return { outcome: 'abandon', error: 'destination not found' };
  const cfg = readEmailConfig(a.config);
  const bodies = [a.body, ...(a.groupBodies ?? [])].map((b) => JSON.parse(b) as DeliveryBody);
  // Fan-out never groups a digested opening; one grouped before the digest was chosen goes in too.
  const toDigest = cfg.digest ? bodies.filter((b) => digested(b, cfg.digest)) : [];
  if (cfg.digest && toDigest.length > 0) {
    const end = periodEnd(cfg.digest, ctx.clock.now(), settings.timeZone);
    for (const b of toDigest) await recordDigestItem(ctx.db, { deliveryId: b.id, orgId: settings.orgId, destinationId: a.destinationId, body: b, periodEnd: end });
    if (toDigest.length === bodies.length) return { outcome: 'succeeded', note: `in the ${cfg.digest} digest sent at ${end.toISOString()}` };
  }
  const listed = bodies.filter((b) => !toDigest.includes(b));
  const done = settings.sent;
  const recipients = cfg.recipients.map(normalizeAddress);
  const remaining = recipients.filter((r) => !done.has(r));
  const smtp = ctx.config.smtp;
  const messageId = messageIdFor(a.id, smtp);
  // A group is openings only; an update is one body, replying to its incident's thread root.
  const opening = listed[0]!.event === 'alert.opened';
  const tally = await sendToRecipients({
    ctx,
    mailer,
    progress: { deliveryId: a.id },
    destinationId: a.destinationId,
    model: await loadNotificationMessage(ctx, { orgId: settings.orgId, destinationId: a.destinationId, settings }, listed),
    settings,
    recipients: remaining,
    messageId,
    inReplyTo: opening ? null : threadRoot(a.ref, listed[0]!.alert.id, a.destinationId, smtp),
  });
  return verdictOf(tally, recipients.length - remaining.length, opening ? { messageId } : null);
}

/**
 * Sends the `info` digests whose period ended: one message per destination and period listing its
 * incidents (the first ten, then "and N more"), to every current recipient, through a connection of
 * its own. A digest that fails for a reason worth retrying (relay down, 4xx) stays claimed until its
 * lease ends and goes out at a later pass — only to the recipients that did not take it yet (each
 * acceptance is kept per destination and period); recipients refused for good are marked as usual.
 */
import { type BackgroundJob, startPeriodicJob } from '../../background-job.js';
import type { AppContext } from '../../context.js';
import { loadNotificationMessage } from '../notify/index.js';
import { sendToRecipients } from './deliver.js';
import { claimDueDigests, markDigestSent, type DueDigest } from './digest-store.js';
import { oneShotMailer, type Mailer } from './mailer.js';
import { normalizeAddress, readEmailConfig } from './rules.js';
import { digestSentTo, orgMailSettings } from './store.js';

export const DIGEST_EVERY_MS = 60_000;

export interface DigestPassResult {
  sent: number;
  failed: number;
}

async function sendOne(ctx: AppContext, mailer: Mailer, g: DueDigest): Promise<boolean> {
  const { rows } = await ctx.db.query<{ config: Record<string, unknown>; deleted: boolean }>(
    'SELECT config, deleted_at IS NOT NULL AS deleted FROM destinations WHERE org_id = $1 AND id = $2',
    [g.orgId, g.destinationId],
  );
  const settings = await orgMailSettings(ctx.db, g.destinationId);
  const cfg = rows[0] && !rows[0].deleted ? readEmailConfig(rows[0].config) : null;
  // A destination deleted (or emptied) meanwhile: nothing to send, the items are done.
  if (!cfg || !settings || cfg.recipients.length === 0 || !cfg.digest) return true;
  const smtp = ctx.config.smtp!;
  const domain = smtp.fromAddress.slice(smtp.fromAddress.lastIndexOf('@') + 1).toLowerCase();
  const done = await digestSentTo(ctx.db, g.destinationId, g.periodEnd);
  const tally = await sendToRecipients({
    ctx,
    mailer,
    progress: { digestPeriodEnd: g.periodEnd },
    destinationId: g.destinationId,
    model: await loadNotificationMessage(ctx, { orgId: settings.orgId, destinationId: g.destinationId, settings }, g.bodies),
    settings,
    recipients: cfg.recipients.map(normalizeAddress).filter((r) => !done.has(r)),
    messageId: `<digest.${g.destinationId}.${g.periodEnd.getTime()}@${domain}>`,
    inReplyTo: null,
    digest: cfg.digest,
  });
  return tally.failure?.kind !== 'retry';
}

/** One pass: claim the due digests and send each; returns how many went out and how many wait for a retry. */
export async function sendDueDigests(ctx: AppContext): Promise<DigestPassResult> {
  if (!ctx.config.smtp) return { sent: 0, failed: 0 };
  const due = await claimDueDigests(ctx.db, ctx.clock.now());
  if (due.length === 0) return { sent: 0, failed: 0 };
  const mailer = oneShotMailer(ctx.config.smtp, ctx.config.deliveryTimeoutMs);
  const result: DigestPassResult = { sent: 0, failed: 0 };
  try {
    for (const g of due) {
      if (await sendOne(ctx, mailer, g)) {
        await markDigestSent(ctx.db, g, ctx.clock.now());
        result.sent += 1;
      } else result.failed += 1;
    }
  } finally {
    mailer.close();
  }
  return result;
}

export function startDigestJob(ctx: AppContext, everyMs = DIGEST_EVERY_MS): BackgroundJob {
  const log = ctx.log.child({ component: 'email-digest' });
  return startPeriodicJob({
    everyMs,
    firstAfterMs: everyMs,
    pass: async () => {
      const r = await sendDueDigests(ctx);
      if (r.failed > 0) log.warn(r, 'some e-mail digests could not be sent; retrying after their lease');
    },
    onError: (err) => log.warn({ errName: (err as Error).name }, 'e-mail digest pass failed'),
  });
}

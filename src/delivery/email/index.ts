/**
 * The `email` destination kind (docs/notifications.md, "E-mail"): recipients in the config,
 * messages through the instance's SMTP relay (VIGIA_SMTP_URL, VIGIA_SMTP_FROM) on a pooled
 * connection, one thread per incident, one-click unsubscribe per recipient.
 */
import type { Deliverer } from '../deliverer-types.js';
import { deliverEmail } from './deliver.js';
import { closeMailer, pooledMailer } from './mailer.js';
import { emailRules } from './rules.js';
import { testEmailDestination } from './test-send.js';

export const emailDeliverer: Deliverer = {
  kind: 'email',
  ...emailRules,
  deliver: (ctx, attempt) => deliverEmail(ctx, attempt, pooledMailer(ctx)),
  test: testEmailDestination,
  close: async (ctx) => closeMailer(ctx),
};

export { unsubscribe, unsubscribeView, type UnsubscribeView } from './unsubscribe.js';
export { recipientMarks, type RecipientMark } from './store.js';
export { escapeHtml } from './render.js';
export { sendDueDigests, startDigestJob } from './digest.js';

/**
 * `vigia/receiver`: what a receiver of Vigia's webhooks needs — signature and timestamp
 * verification, and a deduplicator keyed by the delivery's Idempotency-Key.
 */
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookInput,
  type WebhookEvent,
  type WebhookVerificationCode,
} from './verify.js';
export { IdempotencyDeduplicator, type IdempotencyDeduplicatorOptions } from './deduplicator.js';

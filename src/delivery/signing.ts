/**
 * Webhook signing (docs/delivery.md, "Signature schemes"): HMAC-SHA256 keyed by the UTF-8 bytes of the whole
 * `whsec_…` string over `${timestamp}.${rawBody}`, sent as `sha256=<lowercase hex>`. A
 * destination may opt in to the Standard Webhooks headers as well (standard-webhooks.ts).
 */
import { createHmac } from 'node:crypto';
import { standardWebhookHeaders } from './standard-webhooks.js';

/** `service`: Vigia's headers only (the default). `service+standard`: plus the Standard Webhooks headers. */
export const SIGNATURE_SCHEMES = ['service', 'service+standard'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export const USER_AGENT = 'Service-Webhook/1.0';

export function computeSignature(secret: string, timestamp: string | number, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(`${timestamp}.`, 'utf8');
  mac.update(rawBody);
  return `sha256=${mac.digest('hex')}`;
}

/** Headers of one webhook attempt; timestamp and signatures are fresh on every attempt. */
export function webhookHeaders(input: {
  deliveryId: string;
  event: string;
  body: string;
  secret: string;
  now: Date;
  scheme?: SignatureScheme;
}): Record<string, string> {
  const timestamp = String(Math.floor(input.now.getTime() / 1000));
  const standard =
    input.scheme === 'service+standard'
      ? standardWebhookHeaders({ msgId: input.deliveryId, timestamp, body: input.body, secret: input.secret })
      : {};
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-event': input.event,
    'x-service-delivery': input.deliveryId,
    'idempotency-key': input.deliveryId,
    'x-service-timestamp': timestamp,
    'x-service-signature': computeSignature(input.secret, timestamp, input.body),
    ...standard,
  };
}

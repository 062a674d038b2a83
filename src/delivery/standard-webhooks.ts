/**
 * The Standard Webhooks signature (standardwebhooks.com), sent beside Vigia's own headers when a
 * webhook destination opts in (`signatureScheme: "service+standard"`), so receivers can verify
 * with the standard's libraries:
 *
 *   webhook-id:        the delivery id (stable across attempts, like Idempotency-Key)
 *   webhook-timestamp: Unix seconds of this attempt (the same value as X-Service-Timestamp)
 *   webhook-signature: v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${rawBody}`>
 *
 * The key differs from Vigia's own signature: the standard takes the text after `whsec_` as
 * base64 and signs with the decoded bytes (Vigia's 40 base62 characters decode to 30 bytes),
 * while X-Service-Signature keys the HMAC with the whole secret text.
 */
import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

/** The HMAC key the standard derives from a `whsec_…` secret. */
export function standardSigningKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

export function standardSignature(secret: string, msgId: string, timestamp: string, rawBody: string): string {
  const mac = createHmac('sha256', standardSigningKey(secret));
  mac.update(`${msgId}.${timestamp}.`, 'utf8');
  mac.update(rawBody, 'utf8');
  return `v1,${mac.digest('base64')}`;
}

export function standardWebhookHeaders(input: { msgId: string; timestamp: string; body: string; secret: string }): Record<string, string> {
  return {
    'webhook-id': input.msgId,
    'webhook-timestamp': input.timestamp,
    'webhook-signature': standardSignature(input.secret, input.msgId, input.timestamp, input.body),
  };
}

/**
 * Receiver kit (docs/delivery.md, "Verifying in a receiver"): verify a delivery the way a receiver should — raw
 * body, recomputed HMAC compared in constant time, timestamp within the tolerance.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookVerificationCode = 'stale_timestamp' | 'bad_signature';

export class WebhookVerificationError extends Error {
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
  /** The status a receiver answers with: 400 stale, 401 bad signature. */
  get statusCode(): 400 | 401 {
    return this.code === 'stale_timestamp' ? 400 : 401;
  }
}

export interface WebhookEvent {
  id: string;
  event: string;
  occurredAt: string;
  test?: true;
  alert: Record<string, unknown>;
}

export interface VerifyWebhookInput {
  rawBody: string | Buffer | Uint8Array;
  headers: Record<string, string | string[] | undefined> | Headers;
  secret: string;
  toleranceSeconds?: number;
  now?: Date | number;
}

function header(headers: VerifyWebhookInput['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const h = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(h).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : h[key];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Returns the parsed event when the signature matches and the timestamp is fresh; throws a
 * WebhookVerificationError (`stale_timestamp` or `bad_signature`) otherwise.
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookEvent {
  const tolerance = input.toleranceSeconds ?? 300;
  const raw = typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : Buffer.from(input.rawBody);
  const timestamp = header(input.headers, 'x-service-timestamp');
  const signature = header(input.headers, 'x-service-signature');
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('stale_timestamp', 'missing or malformed X-Service-Timestamp');
  const nowSeconds = Math.floor(Number(input.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('stale_timestamp', `X-Service-Timestamp is more than ${tolerance} seconds from now`);
  }
  const expected = Buffer.from(
    `sha256=${createHmac('sha256', Buffer.from(input.secret, 'utf8')).update(`${timestamp}.`).update(raw).digest('hex')}`,
    'utf8',
  );
  const given = Buffer.from(signature ?? '', 'utf8');
  // Constant time: compare equal-length buffers; a length mismatch still spends one comparison.
  const same = given.length === expected.length ? timingSafeEqual(given, expected) : (timingSafeEqual(expected, expected), false);
  if (!same) throw new WebhookVerificationError('bad_signature', 'X-Service-Signature does not match the body');
  try {
    return JSON.parse(raw.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('bad_signature', 'body is not JSON');
  }
}

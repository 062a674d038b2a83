/**
 * Slack's request signature (docs/notifications.md, "Slack app: buttons that act"; Slack's
 * "Verifying requests from Slack"): `X-Slack-Signature: v0=` + hex HMAC-SHA256 of
 * `v0:{X-Slack-Request-Timestamp}:{raw body}` under the app's signing secret, compared in
 * constant time, with the timestamp within five minutes of our clock either way.
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../secrets/tokens.js';

export const SLACK_TIMESTAMP_WINDOW_SECONDS = 5 * 60;

export type SlackCheck = { ok: true } | { ok: false; reason: 'bad_signature' | 'stale_timestamp' };

export function slackSignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Checks a request against every secret given (the same work for an unknown destination, which
 * passes a decoy). The signature is checked first, so a forged request learns nothing of the
 * clock rule.
 */
export function verifySlackRequest(secrets: readonly string[], headers: Record<string, string | string[] | undefined>, rawBody: Buffer, now: Date): SlackCheck {
  const timestamp = header(headers, 'x-slack-request-timestamp') ?? '';
  const presented = header(headers, 'x-slack-signature') ?? '';
  const ts = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
  let matched = false;
  for (const secret of secrets) {
    // Always compute and compare: a missing header costs what a wrong one does; an unknown
    // version prefix never matches.
    if (safeEqual(slackSignature(secret, timestamp, rawBody), presented)) matched = true;
  }
  if (!matched || !Number.isFinite(ts)) return { ok: false, reason: 'bad_signature' };
  if (Math.abs(now.getTime() / 1000 - ts) > SLACK_TIMESTAMP_WINDOW_SECONDS) return { ok: false, reason: 'stale_timestamp' };
  return { ok: true };
}

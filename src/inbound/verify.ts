/**
 * Is the request from the tool? PagerDuty signs the raw body (`X-PagerDuty-Signature:
 * v1=<hex HMAC-SHA256>`, one entry per active secret while PagerDuty rotates); the other tools
 * cannot sign and send the Vigia secret they were given, in `X-Vigia-Token`, as a Bearer token or
 * as HTTP basic auth's password. Every comparison is constant-time, and an unknown destination
 * costs the same comparison as a known one, so timing tells nothing about it.
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../secrets/tokens.js';

type Headers = Record<string, string | undefined>;

/** Only so many signatures / credentials of one request are compared. */
const MAX_PRESENTED = 5;
const DECOY_SECRET = 'vgin_decoy_secret_for_unknown_destinations_0';

function pagerDutySignatures(headers: Headers): string[] {
  return (headers['x-pagerduty-signature'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('v1='))
    .map((s) => s.slice(3).toLowerCase())
    .slice(0, MAX_PRESENTED);
}

/** The secrets a request presents: X-Vigia-Token, Bearer, or basic auth's password. */
function presentedTokens(headers: Headers): string[] {
  const out: string[] = [];
  const token = headers['x-vigia-token'];
  if (token) out.push(token.trim());
  const auth = headers.authorization ?? '';
  const [scheme, value] = auth.split(/\s+/, 2);
  if (value && scheme?.toLowerCase() === 'bearer') out.push(value);
  if (value && scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) out.push(decoded.slice(colon + 1));
  }
  return out.slice(0, MAX_PRESENTED);
}

/**
 * True when the request carries proof of one of `secrets`. `secrets` empty (unknown or turned off
 * destination) still compares against a decoy and answers false.
 */
export function authenticate(kind: string | null, secrets: string[], headers: Headers, rawBody: Buffer): boolean {
  const keys = secrets.length > 0 ? secrets : [DECOY_SECRET];
  let ok = false;
  if (kind === 'pagerduty' || (kind === null && headers['x-pagerduty-signature'] !== undefined)) {
    const presented = pagerDutySignatures(headers);
    for (const key of keys) {
      const expected = createHmac('sha256', Buffer.from(key, 'utf8')).update(rawBody).digest('hex');
      for (const p of presented) if (safeEqual(p, expected)) ok = true;
    }
  } else {
    const presented = presentedTokens(headers);
    for (const key of keys) for (const p of presented) if (safeEqual(p, key)) ok = true;
  }
  return ok && secrets.length > 0;
}

/**
 * Is the request from the tool? PagerDuty signs the raw body (`X-PagerDuty-Signature:
 * v1=<hex HMAC-SHA256>`, one entry per active secret while PagerDuty rotates); the other tools
 * cannot sign and send the Vigia secret they were given, in `X-Vigia-Token`, as a Bearer token or
 * as HTTP basic auth's password. Every comparison is constant-time, and every request does the
 * same work whatever the destination: an HMAC of the body and a comparison of every presented
 * token for each of MAX_SECRETS key slots (a destination's secrets, the rest filled with a decoy),
 * whether the destination is known, unknown or turned off, and whatever its tool. So the time of
 * a 401 tells nothing about the destination.
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../secrets/tokens.js';
import { MAX_SECRETS } from './endpoints.js';

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

export interface Verification {
  ok: boolean;
  /** The work done, the same for every destination (tests check it; nothing else reads it). */
  work: { hmacs: number; comparisons: number };
}

/**
 * Whether the request carries proof of one of `secrets` for a destination of tool `kind`
 * (null: unknown or turned off — never ok).
 */
export function authenticate(kind: string | null, secrets: string[], headers: Headers, rawBody: Buffer): Verification {
  const real = kind === null ? [] : secrets.slice(0, MAX_SECRETS);
  const slots = [...real, ...Array<string>(MAX_SECRETS - real.length).fill(DECOY_SECRET)];
  const signatures = pagerDutySignatures(headers);
  const tokens = presentedTokens(headers);
  const work = { hmacs: 0, comparisons: 0 };
  let signed = false;
  let token = false;
  slots.forEach((key, i) => {
    const expected = createHmac('sha256', Buffer.from(key, 'utf8')).update(rawBody).digest('hex');
    work.hmacs += 1;
    for (const p of signatures) {
      work.comparisons += 1;
      if (safeEqual(p, expected) && i < real.length) signed = true;
    }
    for (const p of tokens) {
      work.comparisons += 1;
      if (safeEqual(p, key) && i < real.length) token = true;
    }
  });
  return { ok: kind === 'pagerduty' ? signed : kind !== null && token, work };
}

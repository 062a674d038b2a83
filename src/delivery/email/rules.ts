/**
 * The config of an `email` destination: `recipients` (1 to 50 addresses, no duplicates), an
 * optional `digest` ('hourly' | 'daily') that gathers the destination's `info` incidents into one
 * message per period, and `groupWaitSeconds` (0–3600, default 30): openings grouped into one
 * message as for Teams and Slack (src/delivery/grouping.ts) — except the `info` ones a digest
 * takes. No credentials: the relay is the instance's (VIGIA_SMTP_URL).
 */
import { EMAIL_ADDRESS } from '../../config-smtp.js';
import type { KindRules } from '../connectors/types.js';
import { checkGroupWait } from '../group-wait.js';

export const MAX_RECIPIENTS = 50;
export const DIGESTS = ['hourly', 'daily'] as const;
export type Digest = (typeof DIGESTS)[number];

export interface EmailConfig {
  recipients: string[];
  digest: Digest | null;
}

/** A recipient as stored and compared: trimmed; the domain lower-cased (the local part is the mailbox's own). */
export function normalizeAddress(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? address : `${address.slice(0, at)}@${address.slice(at + 1).toLowerCase()}`;
}

function checkRecipients(value: unknown): string | null {
  if (!Array.isArray(value) || value.length === 0) return 'config.recipients must be a non-empty list of e-mail addresses';
  if (value.length > MAX_RECIPIENTS) return `config.recipients may list at most ${MAX_RECIPIENTS} addresses`;
  const seen = new Set<string>();
  for (const [i, a] of value.entries()) {
    if (typeof a !== 'string' || !EMAIL_ADDRESS.test(a)) {
      return `config.recipients[${i}] is not an e-mail address (like name@example.com, without a display name, spaces or line breaks)`;
    }
    const key = normalizeAddress(a).toLowerCase();
    if (seen.has(key)) return `config.recipients[${i}] repeats ${a}`;
    seen.add(key);
  }
  return null;
}

export const emailRules: KindRules = {
  configFields: ['recipients', 'digest', 'groupWaitSeconds'],
  groupsOpenings: true,
  keepsOpeningApart: (config, opening) => opening.severity === 'info' && readEmailConfig(config).digest !== null,
  validate(config, credentials) {
    if (Object.keys(credentials).length > 0) return 'body: "credentials" is not used by an email destination (the SMTP relay is set by VIGIA_SMTP_URL)';
    const problem = checkRecipients(config.recipients);
    if (problem) return problem;
    if (config.digest !== undefined && config.digest !== null && !DIGESTS.includes(config.digest as Digest)) {
      return `config.digest must be one of ${DIGESTS.join(', ')} (or absent)`;
    }
    return checkGroupWait(config);
  },
  urlFields: () => [],
};

/** The stored config, read defensively (it was validated when saved; an unsubscribe may have emptied the list). */
export function readEmailConfig(config: Record<string, unknown>): EmailConfig {
  const recipients = Array.isArray(config.recipients) ? config.recipients.filter((a): a is string => typeof a === 'string') : [];
  const digest = DIGESTS.includes(config.digest as Digest) ? (config.digest as Digest) : null;
  return { recipients, digest };
}

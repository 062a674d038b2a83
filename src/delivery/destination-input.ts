/**
 * The input rules of a destination being saved (created or changed): a webhook needs a safe
 * https `url`; a connector kind gets its connector's own checks, no config key the connector
 * does not read, and the text rules on every URL field; then every address field passes the
 * credential rule (credential-rule.ts: per-field hosts, DNS, the credentials again when it moves). A webhook URL is stored as its WHATWG
 * serialization (what is sent is what is shown). In every URL, text a person could not have
 * meant is refused rather than silently repaired: control characters and white space (the URL
 * parser would drop a CR/LF or tab without a word), backslashes (read as `/`), and a scheme not
 * followed by exactly `//` and the host (`https:/example.com`, `https:///example.com`).
 */
import type { AppContext } from '../context.js';
import { invalidInput } from '../errors.js';
import { getConnector } from './connectors/index.js';
import { getDeliverer } from './deliverers.js';
import { destinationAddressFields } from './credential-origins.js';
import { checkCredentialAddresses } from './credential-rule.js';
import type { SignatureScheme } from './signing.js';
import type { DestinationKind } from './connectors/types.js';
import { isChatKind, maskWebhookUrl } from './connectors/chat-urls.js';

// C0 and C1 controls, DEL, and every kind of white space (NBSP, U+2028, ideographic space…).
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\p{White_Space}]/u;
const SCHEME_AND_HOST = /^https:\/\/[^/\\]/i;

/**
 * The text rules above, then the URL parsed; returns its serialization (lower-case scheme and
 * host, IDN host as punycode, default port dropped, path percent-encoded and its `.`/`..`
 * segments resolved, `/` for an empty path).
 */
export function normalizeDestinationUrl(text: string, field: string): string {
  if (CONTROL_OR_SPACE.test(text)) throw invalidInput(`${field} must not contain white space or control characters (CR, LF, tab)`);
  if (text.includes('\\')) throw invalidInput(`${field} must not contain a backslash`);
  if (!SCHEME_AND_HOST.test(text)) throw invalidInput(`${field} must be an absolute https URL starting with https:// and the host`);
  try {
    return new URL(text).href;
  } catch {
    throw invalidInput(`${field} must be an absolute https URL`);
  }
}

export interface DestinationInputToCheck {
  url: string | null;
  config: Record<string, unknown>;
  credentials: Record<string, string> | null;
  signatureScheme?: SignatureScheme;
}

/** The save the input belongs to, for the credential rule (credential-rule.ts). */
export interface DestinationSave {
  orgId: string;
  /** The stored `url` and `config`; null when creating. */
  before: { url: string | null; config: Record<string, unknown> } | null;
  /** The request gives `credentials` (they replace the stored ones). */
  credentialsGiven: boolean;
  /** Keys of the stored credentials (`username`, …). */
  storedCredentialKeys: readonly string[];
  customInstanceDomain?: string;
}

export interface ValidatedDestination {
  url: string | null;
  config: Record<string, unknown>;
  /** A custom ServiceNow instance domain to record as allowed for the organization, or null. */
  allowDomain: string | null;
}

/** The credential rule on the address fields of a destination being saved. */
async function checkAddresses(
  ctx: AppContext,
  kind: string,
  url: string | null,
  config: Record<string, unknown>,
  save: DestinationSave,
  credentials?: Record<string, string> | null,
) {
  if (destinationAddressFields(kind).length === 0) return { allowDomain: null };
  return checkCredentialAddresses(ctx, {
    subject: kind as DestinationKind,
    orgId: save.orgId,
    before: save.before,
    // The chat kinds' address is the credential itself (credentials.webhookUrl).
    after: credentials ? { url, config, credentials } : { url, config },
    credentialsGiven: save.credentialsGiven,
    storedCredentials: save.storedCredentialKeys.map((k) => `credentials.${k}`),
    customInstanceDomain: save.customInstanceDomain,
  });
}

/**
 * Validates what a destination of `kind` will be saved with; returns the url and config to
 * store (the webhook URL normalized). Webhook: an https `url`, no config or credentials. Connector kinds:
 * known config keys only, the connector's own validation, the text rules on every URL field, and
 * on every address field the credential rule (hosts, DNS, credentials again when it moves).
 */
export async function validateDestination(
  ctx: AppContext,
  kind: string,
  input: DestinationInputToCheck,
  save: DestinationSave,
): Promise<ValidatedDestination> {
  if (kind !== 'webhook' && input.signatureScheme !== undefined) {
    throw invalidInput(`body: "signatureScheme" is used only by webhook destinations (a ${kind} destination is not signed)`);
  }
  if (kind === 'webhook') {
    if (!input.url) throw invalidInput('body: "url" is required for a webhook destination');
    if (Object.keys(input.config).length > 0) throw invalidInput('body: "config" is not used by a webhook destination');
    if (input.credentials && Object.keys(input.credentials).length > 0) {
      throw invalidInput('body: "credentials" is not used by a webhook destination (the signing secret is generated)');
    }
    const url = normalizeDestinationUrl(input.url, 'url');
    return { url, config: input.config, ...(await checkAddresses(ctx, kind, url, input.config, save)) };
  }
  if (input.url && isChatKind(kind)) {
    throw invalidInput(`body: "url" is not used by a ${kind} destination: its webhook URL is a secret, give it as credentials.webhookUrl`);
  }
  if (input.url) throw invalidInput(`body: "url" is not used by a ${kind} destination; use config`);
  const connector = getConnector(kind) ?? getDeliverer(kind);
  if (connector) {
    const unknown = Object.keys(input.config).find((k) => !connector.configFields.includes(k));
    if (unknown !== undefined) {
      throw invalidInput(`body: unknown field "config.${unknown}" for a ${kind} destination (known: ${connector.configFields.join(', ')})`);
    }
  }
  const problem = connector?.validate(input.config, input.credentials ?? {});
  if (problem) throw invalidInput(problem);
  const fields = new Set([...(connector?.urlFields(input.config) ?? []), ...destinationAddressFields(kind).map((f) => f.field.replace(/^config\./, ''))]);
  for (const field of fields) {
    const value = input.config[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw invalidInput(`config.${field} must be a string`);
    // Checked under the same text rules, stored as typed: the connector appends its own paths
    // to this base (`https://acme.service-now.com` + `/api/now/…`), which a serialization's
    // added `/` would not change, but a person reading the config back would not recognize.
    normalizeDestinationUrl(value, `config.${field}`);
  }
  if (isChatKind(kind)) {
    // Stored sealed; the `url` column keeps only the masked form the answers show.
    const webhookUrl = input.credentials?.webhookUrl ?? '';
    const checked = await checkAddresses(ctx, kind, null, input.config, save, input.credentials);
    return { url: maskWebhookUrl(kind, webhookUrl), config: input.config, ...checked };
  }
  return { url: null, config: input.config, ...(await checkAddresses(ctx, kind, null, input.config, save)) };
}

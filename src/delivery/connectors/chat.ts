/**
 * What the chat kinds (teams, slack) share: the destination's fields, building the message from
 * the delivery (or its group of openings) and the organization's settings, one POST of the
 * rendered body to the webhook URL, and the vendor's answer read by the kind (docs/notifications.md).
 */
import { buildNotificationMessage, type NotificationMessage } from '../notify/index.js';
import { DEFAULT_LANGUAGE } from '../../orgs/language.js';
import { DEFAULT_TIME_ZONE } from '../../orgs/time-zone.js';
import { excerpt, redact } from './shared.js';
import type { ChatKind, Connector, ConnectorResult, OutboundResponse } from './types.js';

/** Default and bounds of `config.groupWaitSeconds` (0 sends every opening on its own). */
export const DEFAULT_GROUP_WAIT_SECONDS = 30;
export const MAX_GROUP_WAIT_SECONDS = 3600;

/** Credential fields a chat destination may hold (a Slack app's signing secret is added by interactivity). */
export const CHAT_CREDENTIAL_FIELDS = ['webhookUrl'] as string[];

export function groupWaitSeconds(config: Record<string, unknown>): number {
  const v = config.groupWaitSeconds;
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_GROUP_WAIT_SECONDS ? v : DEFAULT_GROUP_WAIT_SECONDS;
}

function checkConfig(config: Record<string, unknown>): string | null {
  const v = config.groupWaitSeconds;
  if (v === undefined) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_GROUP_WAIT_SECONDS) {
    return `config.groupWaitSeconds must be an integer from 0 to ${MAX_GROUP_WAIT_SECONDS} (seconds; default ${DEFAULT_GROUP_WAIT_SECONDS})`;
  }
  return null;
}

export interface ChatSpec {
  kind: ChatKind;
  vendor: string;
  checkUrl(value: unknown): string | null;
  render(message: NotificationMessage): string;
  /** The vendor's answer, read with the secrets known (for redaction). */
  interpret(res: OutboundResponse, secrets: Record<string, string>): ConnectorResult;
}

/** A vendor's error body as a short, secret-free excerpt. */
export function vendorSays(res: OutboundResponse, secrets: Record<string, string>): string {
  return excerpt(redact(res.body, secrets), 200);
}

/** The URL and the parts of it that authorize a post, for redaction. */
function secretsOf(url: string): Record<string, string> {
  const out: Record<string, string> = { webhookUrl: url };
  if (URL.canParse(url)) {
    const u = new URL(url);
    const sig = u.searchParams.get('sig');
    if (sig) out.sig = sig;
    const last = u.pathname.split('/').pop();
    if (last && last.length >= 8) out.path = last;
  }
  return out;
}

export function chatConnector(spec: ChatSpec): Connector {
  return {
    kind: spec.kind,
    configFields: ['groupWaitSeconds'],
    notifies: true,
    groupsOpenings: true,
    urlFields: () => [],
    validate(config, credentials) {
      const unknown = Object.keys(credentials).find((k) => !CHAT_CREDENTIAL_FIELDS.includes(k));
      if (unknown !== undefined) return `unknown field "credentials.${unknown}" for a ${spec.kind} destination (known: ${CHAT_CREDENTIAL_FIELDS.join(', ')})`;
      return checkConfig(config) ?? spec.checkUrl(credentials.webhookUrl);
    },
    async deliver(delivery, send) {
      const url = delivery.destination.credentials.webhookUrl;
      if (!url) return { outcome: 'abandon', error: `${spec.vendor}: the destination has no webhook URL` };
      const message = buildNotificationMessage(
        delivery.group ?? [delivery.body],
        delivery.message?.settings ?? { language: DEFAULT_LANGUAGE, timeZone: DEFAULT_TIME_ZONE },
        delivery.message?.context,
      );
      const res = await send({ method: 'POST', url, headers: { 'content-type': 'application/json; charset=utf-8' }, body: spec.render(message) });
      return spec.interpret(res, secretsOf(url));
    },
  };
}

/**
 * What the chat kinds (teams, slack) share: the destination's fields, the message the pipeline
 * built for the delivery or its group of openings (src/delivery/notify/load.ts) rendered by the
 * kind, one POST of it to the webhook URL, and the vendor's answer read by the kind
 * (docs/notifications.md).
 */
import { buildNotificationMessage, type NotificationMessage } from '../notify/index.js';
import { DEFAULT_LANGUAGE } from '../../orgs/language.js';
import { DEFAULT_TIME_ZONE } from '../../orgs/time-zone.js';
import { checkGroupWait } from '../group-wait.js';
import { excerpt, redact } from './shared.js';
import type { ChatKind, Connector, ConnectorResult, OutboundResponse } from './types.js';

/** Credential fields a chat destination may hold (a Slack app's signing secret is added by interactivity). */
export const CHAT_CREDENTIAL_FIELDS = ['webhookUrl'] as string[];

export interface ChatSpec {
  kind: ChatKind;
  vendor: string;
  checkUrl(value: unknown): string | null;
  render(message: NotificationMessage): string;
  /** Credential fields beyond the webhook URL (Slack: the app's signing secret, for buttons that act). */
  credentialFields?: readonly string[];
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
      const known = [...CHAT_CREDENTIAL_FIELDS, ...(spec.credentialFields ?? [])];
      const unknown = Object.keys(credentials).find((k) => !known.includes(k));
      if (unknown !== undefined) return `unknown field "credentials.${unknown}" for a ${spec.kind} destination (known: ${known.join(', ')})`;
      const secret = credentials.appSigningSecret;
      if (secret !== undefined && (typeof secret !== 'string' || !/^[0-9a-f]{16,128}$/i.test(secret))) {
        return 'credentials.appSigningSecret must be the Slack app\'s signing secret (Basic Information → App Credentials: hexadecimal, usually 32 characters)';
      }
      return checkGroupWait(config) ?? spec.checkUrl(credentials.webhookUrl);
    },
    async deliver(delivery, send) {
      const url = delivery.destination.credentials.webhookUrl;
      if (!url) return { outcome: 'abandon', error: `${spec.vendor}: the destination has no webhook URL` };
      const message = delivery.message ?? buildNotificationMessage(delivery.group ?? [delivery.body], { language: DEFAULT_LANGUAGE, timeZone: DEFAULT_TIME_ZONE });
      const res = await send({ method: 'POST', url, headers: { 'content-type': 'application/json; charset=utf-8' }, body: spec.render(message) });
      return spec.interpret(res, secretsOf(url));
    },
  };
}

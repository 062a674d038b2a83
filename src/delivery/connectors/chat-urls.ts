/**
 * The webhook URLs of the chat kinds (docs/notifications.md; vendor-specs chat-and-email §1.2,
 * §1.8, §2.1): which shapes are accepted, the refusals that say what to do instead, and the
 * masked form shown in answers. The whole URL is the credential (Teams' `sig`, Slack's last path
 * segment): it is stored sealed in `credentials.webhookUrl`, never logged or returned whole.
 * Hosts are checked by the credential rule (credential-origins.ts), so an operator's allowlisted
 * test host works too; the path and query shapes are checked here, whatever the host.
 */

/** How a person makes a Teams Workflows webhook (used in every Teams refusal). */
const TEAMS_HOW =
  'create it in Teams: channel → ⋯ → Workflows → "Send webhook alerts to a channel" (or a flow with the trigger "When a Teams webhook request is received" and the action "Post card in a chat or channel"), save it and copy the URL it shows';

export const TEAMS_SHAPE =
  'https://<environment>.environment.api.powerplatform.com/powerautomate/automations/direct/workflows/<id>/triggers/manual/paths/invoke?api-version=1&sp=…&sv=1.0&sig=…';
export const SLACK_SHAPE = 'https://hooks.slack.com/services/T…/B…/<secret>';

const TEAMS_PATH = /^\/powerautomate\/automations\/direct\/(?:[A-Za-z0-9_-]+\/)*workflows\/[A-Za-z0-9-]{8,64}\/triggers\/[A-Za-z0-9_.-]+\/paths\/invoke$/;
const SLACK_PATH = /^\/services\/T[A-Z0-9]{2,20}\/B[A-Z0-9]{2,20}\/[A-Za-z0-9]{8,64}$/;

function parse(value: unknown, field: string): URL | string {
  if (typeof value !== 'string' || value.trim() === '') return `${field} is required: the webhook URL`;
  if (!URL.canParse(value)) return `${field} must be an absolute https URL`;
  const url = new URL(value);
  if (url.protocol !== 'https:') return `${field} must be an absolute https URL`;
  if (url.username || url.password || url.hash) return `${field} must not contain user information or a fragment`;
  return url;
}

const host = (u: URL) => u.hostname.toLowerCase().replace(/\.$/, '');

/** A Teams Workflows URL, or the refusal naming the accepted shape (no part of the URL is echoed). */
export function checkTeamsWebhookUrl(value: unknown, field = 'credentials.webhookUrl'): string | null {
  const url = parse(value, field);
  if (typeof url === 'string') return url;
  const h = host(url);
  if (h === 'outlook.office.com' || h === 'outlook.office365.com' || h.endsWith('.webhook.office.com')) {
    return `${field} is a legacy Office 365 connector ("Incoming Webhook") URL, which Microsoft retired; use a Workflows webhook instead — ${TEAMS_HOW}. Its URL looks like ${TEAMS_SHAPE}`;
  }
  if (h.endsWith('.logic.azure.com')) {
    return `${field} is a logic.azure.com Power Automate URL, a form that stopped working on 2025-11-30; open the workflow again (or ${TEAMS_HOW}) and copy its new URL, which looks like ${TEAMS_SHAPE}`;
  }
  if (!TEAMS_PATH.test(url.pathname) || !url.searchParams.get('sig')) {
    return `${field} must be a Teams Workflows webhook URL, ${TEAMS_SHAPE}; ${TEAMS_HOW}`;
  }
  return null;
}

/** A Slack incoming-webhook URL, or the refusal naming the accepted shape. */
export function checkSlackWebhookUrl(value: unknown, field = 'credentials.webhookUrl'): string | null {
  const url = parse(value, field);
  if (typeof url === 'string') return url;
  if (!SLACK_PATH.test(url.pathname) || url.search !== '') {
    return `${field} must be a Slack incoming-webhook URL, ${SLACK_SHAPE}: create a Slack app with Incoming Webhooks turned on, add a webhook to the channel and copy its URL`;
  }
  return null;
}

/**
 * The URL as answers show it: enough to recognize the target, never the secret part. Teams:
 * host and path with the query replaced; Slack: team and hook ids with the secret replaced.
 */
export function maskWebhookUrl(kind: 'teams' | 'slack', value: string): string {
  if (!URL.canParse(value)) return '••••';
  const url = new URL(value);
  if (kind === 'slack') {
    const parts = url.pathname.split('/');
    parts[parts.length - 1] = '••••';
    return `${url.origin}${parts.join('/')}`;
  }
  return `${url.origin}${url.pathname}?sig=••••`;
}

/** The destination kinds whose webhook URL is the credential. */
export function isChatKind(kind: string): kind is 'teams' | 'slack' {
  return kind === 'teams' || kind === 'slack';
}

/**
 * Slack through an incoming webhook (docs/notifications.md; vendor-specs chat-and-email §2):
 * `{ text, blocks }` POSTed to the hook. 200 `ok` is success; 429 (honouring Retry-After) and 5xx
 * are retried; a refused payload (400 invalid_blocks…) and a hook that no longer posts (403
 * invalid_token / action_prohibited, 404 channel_not_found / no_service / no_team, 410
 * channel_is_archived) are final, never retried, and say what to do.
 */
import { renderSlack } from '../notify/index.js';
import { chatConnector, vendorSays } from './chat.js';
import { checkSlackWebhookUrl } from './chat-urls.js';
import { retryAfterMs } from './shared.js';
import type { ConnectorResult, OutboundResponse } from './types.js';

const ADD_NEW = 'add a new incoming webhook and save its URL here';

/** What each "the hook no longer posts" answer means (README §2.2), by Slack's error string. */
const GONE: Record<string, string> = {
  invalid_token: `the webhook's token is no longer valid (the webhook was revoked or its app reinstalled); ${ADD_NEW}`,
  action_prohibited: `a workspace admin restricts what this webhook may post (e.g. who may post in the channel); ask a Slack admin to allow it, or ${ADD_NEW} for a channel it may post to`,
  channel_not_found: `the channel was deleted; ${ADD_NEW}`,
  channel_is_archived: `the channel is archived; unarchive it, or ${ADD_NEW}`,
  no_service: `the webhook was turned off or removed, or its app uninstalled; ${ADD_NEW}`,
  no_team: `the Slack workspace no longer exists; ${ADD_NEW}`,
};
const GONE_OTHERWISE = `the channel was deleted or archived, or the app was removed; ${ADD_NEW}`;

function interpret(res: OutboundResponse, secrets: Record<string, string>): ConnectorResult {
  const s = res.statusCode;
  const said = vendorSays(res, secrets);
  if (s === 200 && res.body.trim() === 'ok') return { outcome: 'succeeded', statusCode: s };
  if (s >= 200 && s < 300) return { outcome: 'abandon', statusCode: s, error: `Slack answered ${s} without "ok"${said ? `: ${said}` : ''}` };
  if (s === 408 || s === 429 || s >= 500) {
    const wait = retryAfterMs(res);
    return { outcome: 'retry', statusCode: s, error: `Slack answered ${s}${said ? `: ${said}` : ''}`, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
  }
  if (s === 400) return { outcome: 'abandon', statusCode: s, error: `Slack refused the message (${said || s}); it is not sent again` };
  if (s === 401 || s === 403 || s === 404 || s === 410) {
    const why = Object.hasOwn(GONE, res.body.trim()) ? GONE[res.body.trim()] : GONE_OTHERWISE;
    return { outcome: 'abandon', statusCode: s, error: `Slack: the webhook no longer posts (${s}${said ? ` ${said}` : ''}): ${why}` };
  }
  return { outcome: 'abandon', statusCode: s, error: `Slack answered ${s}${said ? `: ${said}` : ''}` };
}

export const slack = chatConnector({ kind: 'slack', vendor: 'Slack', checkUrl: (v) => checkSlackWebhookUrl(v), render: renderSlack, interpret, credentialFields: ['appSigningSecret'] });

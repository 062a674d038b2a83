/**
 * Slack through an incoming webhook (docs/notifications.md; vendor-specs chat-and-email §2):
 * `{ text, blocks }` POSTed to the hook. 200 `ok` is success; 429 (honouring Retry-After) and 5xx
 * are retried; a refused payload (400 invalid_blocks…) and a gone hook or channel (403, 404
 * channel_not_found / no_service, 410 channel_is_archived) are final and say what to do.
 */
import { renderSlack } from '../notify/index.js';
import { chatConnector, vendorSays } from './chat.js';
import { checkSlackWebhookUrl } from './chat-urls.js';
import { retryAfterMs } from './shared.js';
import type { ConnectorResult, OutboundResponse } from './types.js';

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
  if (s === 403 || s === 404 || s === 410) {
    return {
      outcome: 'abandon',
      statusCode: s,
      error: `Slack: the webhook no longer posts (${s}${said ? ` ${said}` : ''}): the channel was deleted or archived, or the app was removed; add a new incoming webhook and save its URL here`,
    };
  }
  return { outcome: 'abandon', statusCode: s, error: `Slack answered ${s}${said ? `: ${said}` : ''}` };
}

export const slack = chatConnector({ kind: 'slack', vendor: 'Slack', checkUrl: (v) => checkSlackWebhookUrl(v), render: renderSlack, interpret });

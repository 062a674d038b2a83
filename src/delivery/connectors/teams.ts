/**
 * Microsoft Teams through a Workflows webhook (docs/notifications.md; vendor-specs
 * chat-and-email §1): an Adaptive Card 1.5 in the message envelope, POSTed to the workflow's
 * URL. 202 means the flow run started (the card's posting is the flow's job and shows only in its
 * run history); 408/429/5xx are retried (Retry-After honoured); any other answer is final, with
 * what the workflow said (its `error.code` and `message`) and what to do.
 */
import { renderTeams } from '../notify/index.js';
import { chatConnector, vendorSays } from './chat.js';
import { checkTeamsWebhookUrl } from './chat-urls.js';
import { excerpt, parseJson, redact, retryAfterMs } from './shared.js';
import type { ConnectorResult, OutboundResponse } from './types.js';

/**
 * What the workflow said: `code: message` from its `{ error: { code, message } }` body (README
 * §1.4), else the body itself — secret-free and short either way.
 */
function teamsSays(res: OutboundResponse, secrets: Record<string, string>): string {
  const error = (parseJson(res.body) as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (!error || typeof error !== 'object') return vendorSays(res, secrets);
  const parts = [error.code, error.message].filter((p): p is string => typeof p === 'string' && p !== '');
  return parts.length > 0 ? excerpt(redact(parts.join(': '), secrets), 200) : vendorSays(res, secrets);
}

function interpret(res: OutboundResponse, secrets: Record<string, string>): ConnectorResult {
  const s = res.statusCode;
  if (s >= 200 && s < 300) return { outcome: 'succeeded', statusCode: s, note: 'accepted by the workflow; the post itself shows in the flow run history' };
  const said = teamsSays(res, secrets);
  const saying = said ? ` — ${said}` : '';
  if (s === 408 || s === 429 || s >= 500) {
    const wait = retryAfterMs(res);
    return { outcome: 'retry', statusCode: s, error: `Teams workflow answered ${s}${said ? `: ${said}` : ''}`, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
  }
  if (s === 401 || s === 403) {
    return { outcome: 'abandon', statusCode: s, error: `Teams workflow refused the call (${s}${saying}): the URL's signature is no longer valid or the trigger accepts only signed-in users; set "Who can trigger the flow" to Anyone or create the URL again` };
  }
  if (s === 404 || s === 410) {
    return { outcome: 'abandon', statusCode: s, error: `Teams workflow not found (${s}${saying}): it was deleted or turned off; turn it on or create a new workflow and save its URL here` };
  }
  return { outcome: 'abandon', statusCode: s, error: `Teams workflow refused the message (${s})${said ? `: ${said}` : ''}` };
}

export const teams = chatConnector({ kind: 'teams', vendor: 'Teams', checkUrl: (v) => checkTeamsWebhookUrl(v), render: renderTeams, interpret });

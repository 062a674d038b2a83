/**
 * After a Slack button was answered: the clicked message is replaced through the interaction's
 * `response_url` so the channel sees who acted (docs/notifications.md, "Slack app: buttons that
 * act"). The URL comes from the request, so it is only followed to Slack's own host
 * (`hooks.slack.com`, https; VIGIA_DESTINATION_ALLOWLIST hosts too, for tests and local
 * development), through the guarded client like every other outbound call.
 */
import type { AppContext } from '../context.js';
import type { Language } from '../orgs/language.js';
import { Allowlist } from '../delivery/address-policy.js';
import { createGuardedSend } from '../delivery/guarded-http.js';
import { notifyTexts, SLACK_LIMITS, slackActionsBlock, slackActionsBlockId, slackLink } from '../delivery/notify/index.js';
import type { SlackClick } from './slack-actions.js';

export const SLACK_RESPONSE_HOST = 'hooks.slack.com';

const TEXTS: Record<Language, { ack: string; resolve: string; already: string }> = {
  'pt-BR': { ack: ':white_check_mark: Reconhecido por {who}', resolve: ':large_green_circle: Resolvido por {who}', already: '{who} clicou; o alerta já estava nesse estado' },
  en: { ack: ':white_check_mark: Acknowledged by {who}', resolve: ':large_green_circle: Resolved by {who}', already: '{who} clicked; the alert was already in that state' },
};

/** Escapes Slack mrkdwn control characters in a name or title. */
function mrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Whether a response_url may be followed: https on Slack's host (or an allowlisted one). */
export function responseUrlAllowed(url: string, allowlist: readonly string[]): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'https:' || u.username || u.password) return false;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === SLACK_RESPONSE_HOST) return true;
  const list = new Allowlist(allowlist);
  return list.hasHost(host) || list.hasAddress(host);
}

const isActionsOf = (b: unknown, blockId: string) =>
  !!b && typeof b === 'object' && (b as { type?: unknown }).type === 'actions' && (b as { block_id?: unknown }).block_id === blockId;

/**
 * The replacement: the original blocks with the clicked alert's buttons as they are now — Resolve
 * while it is open (after an acknowledgement), none once it is resolved — the other incidents'
 * buttons of a grouped message untouched, and a line saying who acted, with "Ver no Vigia" when
 * the kept blocks do not link the alert already.
 */
export function replacementBody(click: SlackClick): { replace_original: true; text: string; blocks: unknown[] } {
  const t = TEXTS[click.language];
  const line = (click.applied ? t[click.action] : t.already).replace('{who}', mrkdwn(click.who));
  const blockId = slackActionsBlockId(click.alertId);
  const buttons = click.actions ? slackActionsBlock(click.alertId, click.actions, click.language) : null;
  let placed = false;
  const kept = click.blocks.flatMap((b) => {
    if (!isActionsOf(b, blockId)) return [b];
    placed = true;
    return buttons ? [buttons] : [];
  });
  const linked = JSON.stringify(kept).includes(click.consoleUrl);
  const open = linked ? '' : slackLink(click.consoleUrl, notifyTexts.label('open', click.language));
  const tail = [{ type: 'context', elements: [{ type: 'mrkdwn', text: open ? `${line} · ${open}` : line }] }, ...(buttons && !placed ? [buttons] : [])];
  return {
    replace_original: true,
    text: `${line}: ${mrkdwn(click.alertTitle)}`,
    blocks: [...kept.slice(0, SLACK_LIMITS.blocks - tail.length), ...tail],
  };
}

/** Posts the replacement; failures are logged (without the URL, which authorizes), never thrown. */
export async function replaceSlackMessage(ctx: AppContext, click: SlackClick): Promise<void> {
  if (!click.responseUrl) return;
  if (!responseUrlAllowed(click.responseUrl, ctx.config.destinationAllowlist)) {
    ctx.log.warn({ destinationId: click.destinationId }, 'slack response_url refused: not https://hooks.slack.com');
    return;
  }
  const send = createGuardedSend(ctx);
  try {
    const res = await send({ method: 'POST', url: click.responseUrl, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(replacementBody(click)) });
    if (res.statusCode >= 300) ctx.log.warn({ destinationId: click.destinationId, statusCode: res.statusCode }, 'slack response_url answered with an error');
  } catch (err) {
    ctx.log.warn({ destinationId: click.destinationId, error: (err as Error).message }, 'slack response_url call failed');
  } finally {
    await send.close().catch(() => undefined);
  }
}

/**
 * The Slack body (docs/notifications.md): `{ text, blocks }` for an incoming webhook — `text` is
 * the notification and fallback text, `blocks` the Block Kit layout within Slack's limits
 * (SLACK_LIMITS, from vendor-specs chat-and-email §2.4). Platform text is always mrkdwn-escaped
 * (escape.ts); `plain_text` (headers) carries only Vigia's own words. Severity is a coloured emoji and a word (blocks carry no colour). Pure.
 */
import type { Language } from '../../orgs/language.js';
import type { NotificationItem, NotificationMessage } from './message.js';
import { cut, mrkdwn, mrkdwnUrl } from './escape.js';
import { notifyTexts as T } from './texts.js';
import { fallbackText, isSingle, itemFacts, itemHeadline, SEVERITY_STYLE, UPDATE_EMOJI } from './view.js';

export const SLACK_LIMITS = {
  blocks: 50,
  headerText: 150,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  contextElements: 10,
  text: 40_000,
  url: 3000,
} as const;

type Json = Record<string, unknown>;

const plain = (t: string, max: number): Json => ({ type: 'plain_text', text: cut(t, max), emoji: true });
const md = (t: string, max: number): Json => ({ type: 'mrkdwn', text: cut(t, max) });

/** A mrkdwn link, or nothing when the URL is over Slack's limit. */
export function slackLink(url: string, label: string): string {
  return url.length > SLACK_LIMITS.url ? '' : `<${mrkdwnUrl(url)}|${label}>`;
}
const link = slackLink;

function linksLine(item: NotificationItem, m: NotificationMessage): string {
  const parts = [link(item.consoleUrl, T.label('open', m.locale))];
  if (item.ackUrl && m.update === 'opened' && !item.slackActions) parts.push(link(item.ackUrl, T.label('acknowledge', m.locale)));
  return parts.filter(Boolean).join(' · ');
}

/** The facts as one mrkdwn context line: *Title:* value · … */
function factsContext(item: NotificationItem, m: NotificationMessage): Json {
  const line = itemFacts(item, m.locale).map((f) => `*${mrkdwn(f.title)}:* ${f.ours ? f.value : mrkdwn(f.value)}`).join(' · ');
  return { type: 'context', elements: [md(line, SLACK_LIMITS.sectionText)] };
}

/** One incident: its headline and summary (plain text), the facts, the links. */
function itemBlocks(item: NotificationItem, m: NotificationMessage): Json[] {
  const head = `${SEVERITY_STYLE[item.severity].emoji} *${mrkdwn(cut(itemHeadline(item, m.locale), 500))}*\n${mrkdwn(item.summary)}`;
  const blocks: Json[] = [{ type: 'section', text: md(head, SLACK_LIMITS.sectionText) }, factsContext(item, m)];
  const links = linksLine(item, m);
  if (links) blocks.push({ type: 'context', elements: [md(links, SLACK_LIMITS.sectionText)] });
  const buttons = actionsBlock(item, m);
  if (buttons) blocks.push(buttons);
  return blocks;
}

function actionsBlock(item: NotificationItem, m: NotificationMessage): Json | null {
  return item.slackActions ? slackActionsBlock(item.alertId, item.slackActions, m.locale) : null;
}

/** The block id of an incident's buttons: how a click's message replacement finds them again. */
export const slackActionsBlockId = (alertId: string): string => `vigia.${alertId}`.slice(0, 255);

/**
 * Acknowledge / Resolve buttons that post to Vigia's Slack door (docs/notifications.md, "Slack
 * app: buttons that act"): Acknowledge only while the incident is unacknowledged.
 */
export function slackActionsBlock(alertId: string, a: { ack: string | null; resolve: string }, locale: Language): Json {
  const button = (id: string, label: string, value: string, style?: 'primary') => ({ type: 'button', action_id: id, text: plain(label, 75), value, ...(style ? { style } : {}) });
  const elements = [
    ...(a.ack ? [button('vigia.ack', T.label('acknowledge', locale), a.ack, 'primary')] : []),
    button('vigia.resolve', T.label('resolve', locale), a.resolve),
  ];
  return { type: 'actions', block_id: slackActionsBlockId(alertId), elements };
}

function singleBlocks(m: NotificationMessage): Json[] {
  const item = m.items[0]!;
  const emoji = m.update === 'opened' ? SEVERITY_STYLE[item.severity].emoji : UPDATE_EMOJI[m.update];
  const header = { type: 'header', text: plain(`${emoji} ${T.update(m.update, m.locale)}`, SLACK_LIMITS.headerText) };
  if (m.update !== 'opened') {
    const links = linksLine(item, m);
    return [
      header,
      { type: 'section', text: md(mrkdwn(itemHeadline(item, m.locale)), SLACK_LIMITS.sectionText) },
      ...(links ? [{ type: 'context', elements: [md(links, SLACK_LIMITS.sectionText)] }] : []),
    ];
  }
  return [header, ...itemBlocks(item, m)];
}

function groupBlocks(m: NotificationMessage): Json[] {
  const blocks: Json[] = [{ type: 'header', text: plain(T.headline(m), SLACK_LIMITS.headerText) }];
  for (const item of m.items) blocks.push({ type: 'divider' }, ...itemBlocks(item, m));
  if (m.more > 0) blocks.push({ type: 'context', elements: [plain(T.more(m.more, m.locale), SLACK_LIMITS.sectionText)] });
  return blocks;
}

/** `{ text, blocks }`; incidents that would pass the block limit move into "and N more". */
export function renderSlack(message: NotificationMessage): string {
  let m = message;
  for (;;) {
    const blocks = isSingle(m) ? singleBlocks(m) : groupBlocks(m);
    if (blocks.length <= SLACK_LIMITS.blocks || m.items.length <= 1) {
      return JSON.stringify({ text: cut(mrkdwn(fallbackText(m)), SLACK_LIMITS.text), blocks });
    }
    m = { ...m, items: m.items.slice(0, -1), more: m.more + 1 };
  }
}

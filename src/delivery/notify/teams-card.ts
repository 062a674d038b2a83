/**
 * The Teams body (docs/notifications.md): an Adaptive Card 1.5 in the message envelope the
 * Workflows trigger expects — `{ type: "message", attachments: [{ contentType:
 * "application/vnd.microsoft.card.adaptive", contentUrl: null, content: <card> }] }` — within
 * the posted-message size limit (about 28 KB; we stay under TEAMS_MAX_BYTES). Pure: message → body.
 * Only TextBlock, FactSet, Container and Action.OpenUrl are used (Teams renders them; Flow-bot
 * cards cannot receive Action.Submit/Execute).
 */
import type { NotificationItem, NotificationMessage } from './message.js';
import { cardText, cut } from './escape.js';
import { notifyTexts as T } from './texts.js';
import { fallbackText, isSingle, itemFacts, itemHeadline, SEVERITY_STYLE, UPDATE_EMOJI } from './view.js';

export const TEAMS_MAX_BYTES = 27_000;
export const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';

type Json = Record<string, unknown>;

const text = (value: string, extra: Json = {}): Json => ({ type: 'TextBlock', text: value, wrap: true, ...extra });

function links(item: NotificationItem, m: NotificationMessage): string {
  const open = `[${T.label('open', m.locale)}](${item.consoleUrl})`;
  return item.ackUrl && m.update === 'opened' ? `${open} · [${T.label('acknowledge', m.locale)}](${item.ackUrl})` : open;
}

function facts(item: NotificationItem, m: NotificationMessage): Json {
  return {
    type: 'FactSet',
    facts: itemFacts(item, m.locale).map((f) => ({ title: cardText(cut(f.title, 100)), value: f.ours ? f.value : cardText(cut(f.value, 300)) })),
  };
}

/** One incident of a group: headline in its colour, summary, facts, links. */
function itemContainer(item: NotificationItem, m: NotificationMessage): Json {
  return {
    type: 'Container',
    separator: true,
    items: [
      text(cardText(cut(itemHeadline(item, m.locale), 300)), { weight: 'Bolder', color: SEVERITY_STYLE[item.severity].card }),
      text(cardText(item.summary), { isSubtle: true, spacing: 'None' }),
      facts(item, m),
      text(links(item, m), { spacing: 'Small' }),
    ],
  };
}

function singleBody(m: NotificationMessage): Json[] {
  const item = m.items[0]!;
  const emoji = UPDATE_EMOJI[m.update];
  return [
    text(`${emoji ? `${emoji} ` : ''}${cardText(T.update(m.update, m.locale))}`, { size: 'Small', isSubtle: true }),
    text(cardText(cut(itemHeadline(item, m.locale), 300)), { size: 'Large', weight: 'Bolder', color: SEVERITY_STYLE[item.severity].card }),
    ...(m.update === 'opened' ? [text(cardText(item.summary)), facts(item, m)] : []),
  ];
}

function singleActions(m: NotificationMessage): Json[] {
  const item = m.items[0]!;
  const actions: Json[] = [{ type: 'Action.OpenUrl', title: T.label('open', m.locale), url: item.consoleUrl }];
  if (item.ackUrl && m.update === 'opened') actions.push({ type: 'Action.OpenUrl', title: T.label('acknowledge', m.locale), url: item.ackUrl });
  return actions;
}

function card(m: NotificationMessage): Json {
  const single = isSingle(m);
  const body = single
    ? singleBody(m)
    : [
        text(cardText(T.headline(m)), { size: 'Large', weight: 'Bolder' }),
        ...m.items.map((i) => itemContainer(i, m)),
        ...(m.more > 0 ? [text(cardText(T.more(m.more, m.locale)), { isSubtle: true, separator: true })] : []),
      ];
  return {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.5',
    fallbackText: cut(fallbackText(m), 500),
    body,
    ...(single ? { actions: singleActions(m) } : {}),
    msteams: { width: 'Full' },
  };
}

/** The envelope with one card; incidents beyond what fits in TEAMS_MAX_BYTES move into "and N more". */
export function renderTeams(message: NotificationMessage): string {
  let m = message;
  for (;;) {
    const body = JSON.stringify({ type: 'message', attachments: [{ contentType: ADAPTIVE_CARD_CONTENT_TYPE, contentUrl: null, content: card(m) }] });
    if (Buffer.byteLength(body, 'utf8') <= TEAMS_MAX_BYTES || m.items.length <= 1) return body;
    m = { ...m, items: m.items.slice(0, -1), more: m.more + 1 };
  }
}

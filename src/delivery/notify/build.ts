/**
 * Builds the notification message from stored delivery bodies (one, or a group of `alert.opened`
 * bodies) and the organization's settings. Pure: what it needs from the database (tenant names,
 * root causes, acknowledge links) comes in `context` (context.ts loads it).
 */
import type { DeliveryBody } from '../../outbox/index.js';
import type { AlertEventName } from '../../outbox/index.js';
import type { Language } from '../../orgs/language.js';
import { MAX_MESSAGE_ITEMS, type NotificationItem, type NotificationMessage, type UpdateKind } from './message.js';
import { firstSentence, formatInstant } from './texts.js';
import { oneLine } from './escape.js';

/** Platform text is one line in every medium (a CR/LF in a title can never start a header or a block). */
const line = (text: string) => oneLine(text).trim();
const lineOrNull = (text: string | null | undefined) => (text ? line(text) : null);

export interface NotifySettings {
  language: Language;
  timeZone: string;
}

/** Per-alert facts the body does not carry, keyed by alert id. */
export interface MessageContext {
  tenants?: ReadonlyMap<string, string>;
  rootCauses?: ReadonlyMap<string, string>;
  ackUrls?: ReadonlyMap<string, string>;
  /** Slack button values by alert id (src/delivery/ack-links.ts, loadSlackActions). */
  slackActions?: ReadonlyMap<string, { ack: string | null; resolve: string }>;
}

const UPDATE_OF: Record<AlertEventName, UpdateKind> = {
  'alert.opened': 'opened',
  'alert.acknowledged': 'acknowledged',
  'alert.escalated': 'escalated',
  'alert.recovered': 'resolved',
};

export function updateKindOf(event: AlertEventName): UpdateKind {
  return UPDATE_OF[event];
}

function toItem(body: DeliveryBody, settings: NotifySettings, context: MessageContext): NotificationItem {
  const a = body.alert;
  const ackUrl = context.ackUrls?.get(a.id);
  const slackActions = context.slackActions?.get(a.id);
  return {
    alertId: a.id,
    severity: a.severity,
    title: line(a.title),
    source: {
      tenant: lineOrNull(context.tenants?.get(a.id)),
      workspace: lineOrNull(a.workspaceName),
      capacity: lineOrNull(a.capacityName),
      itemType: line(a.sourceType),
      item: line(a.sourceId),
    },
    summary: firstSentence(oneLine(a.message)),
    rootCause: lineOrNull(context.rootCauses?.get(a.id)),
    startedAt: a.openedAt,
    startedAtText: formatInstant(a.openedAt, settings.timeZone, settings.language),
    consoleUrl: a.url,
    ...(ackUrl ? { ackUrl } : {}),
    ...(slackActions ? { slackActions } : {}),
  };
}

/** What other incidents depend on (a tenant, a gateway, a capacity): listed first in a group. */
const SHARED_SOURCES = new Set(['Tenant', 'Gateway', 'Capacity']);
const SEVERITY_ORDER: Record<string, number> = { error: 0, info: 1 };

/**
 * The order of a group's incidents: what others depend on first (when a storm of refresh failures
 * opened before their gateway was known to be down, the gateway heads the list instead of hiding
 * in "and N more"), then the most severe, then the oldest.
 */
function listOrder(x: DeliveryBody, y: DeliveryBody): number {
  const shared = (b: DeliveryBody) => (SHARED_SOURCES.has(b.alert.sourceType) ? 0 : 1);
  const severity = (b: DeliveryBody) => SEVERITY_ORDER[b.alert.severity] ?? 2;
  return shared(x) - shared(y) || severity(x) - severity(y) || x.alert.openedAt.localeCompare(y.alert.openedAt) || x.alert.id.localeCompare(y.alert.id);
}

/**
 * One message for one delivery body, or for a group of bodies of the same event (the group's
 * incidents in listOrder, the first MAX_MESSAGE_ITEMS of them; the rest counted).
 */
export function buildNotificationMessage(
  bodies: readonly DeliveryBody[],
  settings: NotifySettings,
  context: MessageContext = {},
): NotificationMessage {
  if (bodies.length === 0) throw new Error('a notification message needs at least one delivery body');
  const sorted = [...bodies].sort(listOrder);
  const first = sorted[0]!;
  return {
    locale: settings.language,
    timeZone: settings.timeZone,
    update: updateKindOf(first.event),
    test: sorted.some((b) => b.test === true),
    items: sorted.slice(0, MAX_MESSAGE_ITEMS).map((b) => toItem(b, settings, context)),
    more: Math.max(0, sorted.length - MAX_MESSAGE_ITEMS),
  };
}

/**
 * The message of delivery bodies for people, for every kind that writes one (the chat
 * connectors, e-mail's deliveries, digests and test sends): the bodies, the organization's
 * language and time zone, the facts a body does not carry (tenant, root cause) and, for a
 * destination, the acknowledge links of its open, unacknowledged incidents — of an opening or an
 * escalation, never of a test (docs/notifications.md, "Acknowledge from the message") — and, for
 * a Slack app, its button values.
 */
import type { AppContext } from '../../context.js';
import type { DeliveryBody } from '../../outbox/index.js';
import { loadAckKey, loadAckUrls, loadSlackActions } from '../ack-links.js';
import { buildNotificationMessage, type NotifySettings } from './build.js';
import { loadMessageContext, loadNotifySettings } from './context.js';
import type { NotificationMessage } from './message.js';

export interface MessageScope {
  orgId: string;
  /** The destination the message goes to (links are bound to it); null: no links (a test send). */
  destinationId: string | null;
  /** The organization's settings when the caller read them already (e-mail reads them with its own). */
  settings?: NotifySettings;
  /** Slack's Acknowledge / Resolve button values too (a slack destination with its app's signing secret). */
  slackActions?: boolean;
}

/** Events whose message asks for an acknowledgement. */
const ASKS_ACK = new Set(['alert.opened', 'alert.escalated']);

export async function loadNotificationMessage(ctx: AppContext, scope: MessageScope, bodies: readonly DeliveryBody[]): Promise<NotificationMessage> {
  const real = bodies.filter((b) => !b.test);
  const linked = real.filter((b) => ASKS_ACK.has(b.event)).map((b) => b.alert.id);
  const buttons = scope.slackActions ? real.map((b) => b.alert.id) : [];
  const destinationId = scope.destinationId;
  // The link key only when a link or button can be made (the key is read before any transaction).
  const key = destinationId && (linked.length > 0 || buttons.length > 0) ? await loadAckKey(ctx) : null;
  const now = ctx.clock.now();
  const [settings, context, ackUrls, slackActions] = await Promise.all([
    scope.settings ?? loadNotifySettings(ctx.db, scope.orgId),
    loadMessageContext(ctx.db, scope.orgId, real.map((b) => b.alert.id)),
    key && destinationId && linked.length > 0 ? loadAckUrls(ctx.db, key, ctx.config.baseUrl, { orgId: scope.orgId, destinationId, alertIds: linked, now }) : undefined,
    key && destinationId && buttons.length > 0 ? loadSlackActions(ctx.db, key, { orgId: scope.orgId, destinationId, alertIds: buttons }) : undefined,
  ]);
  return buildNotificationMessage(bodies, settings, { ...context, ...(ackUrls ? { ackUrls } : {}), ...(slackActions ? { slackActions } : {}) });
}

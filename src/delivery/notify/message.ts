/**
 * The notification message: what a chat or e-mail destination says about one incident or one
 * group of incidents, independent of the medium. The builder (build.ts) makes it from stored
 * delivery bodies and the organization's language and time zone; each medium's renderer
 * (Teams card, Slack blocks, e-mail) is a pure function message → body (docs/notifications.md).
 */
import type { Language } from '../../orgs/language.js';

/** What happened: a new incident (or group), or a short update about one. */
export type UpdateKind = 'opened' | 'acknowledged' | 'escalated' | 'resolved';

/** At most this many incidents are listed in one message; the rest are counted in `more`. */
export const MAX_MESSAGE_ITEMS = 10;

export interface NotificationSource {
  /** The tenant connection's name; null for incidents that came through the signals API. */
  tenant: string | null;
  workspace: string | null;
  capacity: string | null;
  /** The kind of item (e.g. `Dataset`, `Gateway`) and its name or id. */
  itemType: string;
  item: string;
}

export interface NotificationItem {
  alertId: string;
  severity: 'error' | 'info';
  title: string;
  source: NotificationSource;
  /** One sentence of what happened (the alert message's first sentence, bounded). */
  summary: string;
  /** The root cause's title when the incident is correlated to one; null otherwise. */
  rootCause: string | null;
  /** ISO instant the incident opened. */
  startedAt: string;
  /** The same instant in the organization's time zone and language, e.g. `28/11/2026 14:05 (BRT)`. */
  startedAtText: string;
  /** The alert in the console: `${VIGIA_BASE_URL}/alerts/{id}`. */
  consoleUrl: string;
  /** A signed acknowledge link (only for open, unacknowledged incidents when one is issued). */
  ackUrl?: string;
  /**
   * Slack buttons that act (a `slack` destination with its app's signing secret): the values of
   * Acknowledge and Resolve (src/delivery/ack-links.ts, slackButtonValue). Open incidents only.
   */
  slackActions?: { ack: string | null; resolve: string };
}

export interface NotificationMessage {
  locale: Language;
  /** IANA time zone the times are shown in. */
  timeZone: string;
  update: UpdateKind;
  /** A test send from the console or API: renderers mark it as such. */
  test: boolean;
  /** First MAX_MESSAGE_ITEMS incidents, in build.ts listOrder (shared sources first, then errors, then the oldest). */
  items: NotificationItem[];
  /** How many more incidents the group holds beyond `items`. */
  more: number;
}

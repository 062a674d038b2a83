/**
 * The outbox's vocabulary: the event names, the alert snapshot an event carries, and an event
 * before and after it is written. Alerts produce these; delivery consumes them.
 */

export const ALERT_EVENTS = ['alert.opened', 'alert.acknowledged', 'alert.escalated', 'alert.recovered'] as const;
export type AlertEventName = (typeof ALERT_EVENTS)[number];

/**
 * The `alert` object of a delivery body. It is computed from the alert row inside the
 * transaction that emits the event and stored in alert_events.snapshot, so a delivery body shows
 * the alert exactly as it was when the event happened.
 */
export interface AlertSnapshot {
  id: string;
  title: string;
  message: string;
  sourceType: string;
  sourceId: string;
  workspaceName: string | null;
  capacityName: string | null;
  severity: 'error' | 'info';
  status: 'open' | 'resolved';
  acknowledged: boolean;
  openedAt: string;
  resolvedAt: string | null;
  failureCount: number;
  url: string;
  /**
   * The changes from the tenant's activity log joined to the incident as its likely causes, most
   * likely first; absent when none. Activity, object and time only — never who made the change.
   */
  changes?: AlertChangeRef[];
}

/** A change named in a payload (docs/monitoring.md "What changed before it broke"). */
export interface AlertChangeRef {
  activity: string;
  object: { kind: string; id: string | null; name: string | null };
  occurredAt: string;
}

/** An event as written to alert_events (seq is its global order). */
export interface RecordedEvent {
  id: string;
  seq: number;
  orgId: string;
  alertId: string;
  event: AlertEventName;
  occurredAt: Date;
  snapshot: AlertSnapshot;
}

/** An event before it is written (no sequence number yet). */
export type PendingEvent = Omit<RecordedEvent, 'seq'>;

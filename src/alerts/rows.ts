import type { Queryable } from '../db/index.js';
import { recordEvent, recordEvents, type AlertEventName, type RecordedEvent } from './events.js';
import { toAlertSnapshot, type AlertRowForSnapshot } from './snapshot.js';

/**
 * One row of the alerts table, as selected with `alertColumns()`: every column but the public
 * API's stored item (`item_json`, migration 081), which only the public list reads.
 */
export interface AlertRow extends AlertRowForSnapshot {
  org_id: string;
  source_name: string;
  notification_kind: string;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  last_occurrence_at: Date;
  silenced: boolean;
  silence_id: string | null;
  /** Why it was silenced without a silence rule ("found at connection"); such an incident is never released. */
  silence_reason: string | null;
  correlated: boolean;
  cause_alert_ids: string[];
  suppressed: boolean;
  released_at: Date | null;
  escalated_at: Date | null;
  updated_at: Date;
  /** The tenant connection whose collector raised it (migration 230); null for other sources. Absent on rows planned in memory. */
  tenant_ref?: string | null;
  /** When the acknowledgement last changed, by anyone, at that human action's time (migration 375). Absent on rows planned in memory. */
  ack_changed_at?: Date | null;
}

const ALERT_ROW_COLUMNS = [
  'id', 'org_id', 'source_type', 'source_id', 'source_name', 'notification_kind', 'severity', 'title', 'message',
  'workspace_name', 'capacity_name', 'status', 'acknowledged', 'acknowledged_at', 'acknowledged_by', 'created_at',
  'resolved_at', 'failure_count', 'last_occurrence_at', 'silenced', 'silence_id', 'silence_reason', 'correlated', 'cause_alert_ids',
  'suppressed', 'released_at', 'escalated_at', 'updated_at', 'tenant_ref', 'ack_changed_at',
] as const;

const ALERT_ROW_SELECT = ALERT_ROW_COLUMNS.join(', ');

/** The select list of an AlertRow (`qualifier.` before each column when given). */
export function alertColumns(qualifier?: string): string {
  return qualifier ? ALERT_ROW_COLUMNS.map((c) => `${qualifier}.${c}`).join(', ') : ALERT_ROW_SELECT;
}

/** The admin view of an alert (GET /orgs/{orgId}/alerts/{alertId}). */
export interface AlertJson {
  id: string;
  sourceType: string;
  sourceId: string;
  sourceName: string;
  notificationKind: string;
  severity: string;
  title: string;
  message: string;
  workspaceName: string | null;
  capacityName: string | null;
  status: string;
  acknowledged: boolean;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  createdAt: string;
  resolvedAt: string | null;
  failureCount: number;
  lastOccurrenceAt: string;
  silenced: boolean;
  silenceId: string | null;
  silenceReason: string | null;
  correlated: boolean;
  causeAlertIds: string[];
  suppressed: boolean;
  releasedAt: string | null;
  escalatedAt: string | null;
  updatedAt: string;
  url: string;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toAlertJson(r: AlertRow, baseUrl: string): AlertJson {
  return {
    id: r.id,
    sourceType: r.source_type,
    sourceId: r.source_id,
    sourceName: r.source_name,
    notificationKind: r.notification_kind,
    severity: r.severity,
    title: r.title,
    message: r.message,
    workspaceName: r.workspace_name,
    capacityName: r.capacity_name,
    status: r.status,
    acknowledged: r.acknowledged,
    acknowledgedAt: iso(r.acknowledged_at),
    acknowledgedBy: r.acknowledged_by,
    createdAt: r.created_at.toISOString(),
    resolvedAt: iso(r.resolved_at),
    failureCount: r.failure_count,
    lastOccurrenceAt: r.last_occurrence_at.toISOString(),
    silenced: r.silenced,
    silenceId: r.silence_id,
    silenceReason: r.silence_reason,
    correlated: r.correlated,
    causeAlertIds: r.cause_alert_ids,
    suppressed: r.suppressed,
    releasedAt: iso(r.released_at),
    escalatedAt: iso(r.escalated_at),
    updatedAt: r.updated_at.toISOString(),
    url: `${baseUrl}/alerts/${encodeURIComponent(r.id)}`,
  };
}

/**
 * Records an event for the alert in the caller's transaction — unless the incident is suppressed
 * (silenced or correlated and not released), which produces no event at all: silenced and correlated alerts are not delivered.
 */
export async function emitUnlessSuppressed(
  q: Queryable,
  row: AlertRow,
  event: AlertEventName,
  occurredAt: Date,
  now: Date,
  baseUrl: string,
  skipDestinationId?: string,
): Promise<RecordedEvent | null> {
  if (row.suppressed) return null;
  return recordEvent(q, {
    orgId: row.org_id,
    alertId: row.id,
    event,
    occurredAt,
    snapshot: toAlertSnapshot(row, baseUrl),
    now,
    skipDestinationId,
  });
}

/**
 * emitUnlessSuppressed for many alerts of one transaction, in the order given (one outbox
 * statement when possible, see recordEvents). Suppressed incidents produce no event.
 */
export async function emitAllUnlessSuppressed(
  q: Queryable,
  rows: AlertRow[],
  event: AlertEventName,
  occurredAt: Date,
  now: Date,
  baseUrl: string,
): Promise<RecordedEvent[]> {
  return recordEvents(
    q,
    rows
      .filter((row) => !row.suppressed)
      .map((row) => ({ orgId: row.org_id, alertId: row.id, event, occurredAt, snapshot: toAlertSnapshot(row, baseUrl), now })),
  );
}

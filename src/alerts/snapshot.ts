import type { AlertSnapshot } from '../outbox/index.js';

/** The alert object an event carries; the type belongs to the outbox, which stores it. */
export type { AlertSnapshot };

/** Columns of the alerts table the snapshot needs (snake_case, as selected). */
export interface AlertRowForSnapshot {
  id: string;
  title: string;
  message: string;
  source_type: string;
  source_id: string;
  workspace_name: string | null;
  capacity_name: string | null;
  severity: string;
  status: string;
  acknowledged: boolean;
  created_at: Date;
  resolved_at: Date | null;
  failure_count: number;
}

export function toAlertSnapshot(row: AlertRowForSnapshot, baseUrl: string): AlertSnapshot {
  return {
    id: row.id,
    title: row.title,
    message: row.message,
    sourceType: row.source_type,
    sourceId: row.source_id,
    workspaceName: row.workspace_name,
    capacityName: row.capacity_name,
    severity: row.severity as AlertSnapshot['severity'],
    status: row.status as AlertSnapshot['status'],
    acknowledged: row.acknowledged,
    openedAt: row.created_at.toISOString(),
    resolvedAt: row.resolved_at ? row.resolved_at.toISOString() : null,
    failureCount: row.failure_count,
    url: `${baseUrl}/alerts/${encodeURIComponent(row.id)}`,
  };
}

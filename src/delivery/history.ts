/**
 * Delivery history of the admin API: a destination's deliveries page by page, one delivery with
 * its attempt log, and redelivery. Reads and the redeliver transition are the outbox's; this
 * module scopes them to the organization, shapes the views and names the failures.
 */
import type { Database } from '../db/index.js';
import { conflictError, notFoundError } from '../errors.js';
import {
  findAlertDeliveries,
  findDelivery,
  listDestinationDeliveries,
  redeliver,
  type AttemptRecord,
  type DeliveryRecord,
  type DeliveryStatus,
} from '../outbox/index.js';

export interface DeliveryView {
  id: string;
  event: string;
  alertId: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  completedAt: string | null;
  test: boolean;
}

export function toDeliveryView(r: DeliveryRecord): DeliveryView {
  return {
    id: r.id,
    event: r.event,
    alertId: r.alert_id,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === 'pending' && r.next_attempt_at ? r.next_attempt_at.toISOString() : null,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    createdAt: r.created_at.toISOString(),
    completedAt: r.completed_at ? r.completed_at.toISOString() : null,
    test: r.test,
  };
}

function toAttemptView(a: AttemptRecord) {
  return { attempt: a.attempt, startedAt: a.started_at.toISOString(), durationMs: a.duration_ms, statusCode: a.status_code, error: a.error };
}

async function requireLiveDestination(db: Database, orgId: string, destinationId: string): Promise<void> {
  const { rows } = await db.query('SELECT 1 FROM destinations WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, destinationId]);
  if (rows.length === 0) throw notFoundError('destination');
}

/** One page (newest first) of a live destination's history; the total counts every page. */
export async function listDeliveries(
  db: Database,
  f: { orgId: string; destinationId: string; status?: DeliveryStatus; from?: Date; to?: Date; limit: number; offset: number },
): Promise<{ value: DeliveryView[]; totalCount: number }> {
  await requireLiveDestination(db, f.orgId, f.destinationId);
  const { rows, totalCount } = await listDestinationDeliveries(db, f);
  return { value: rows.map(toDeliveryView), totalCount };
}

export async function getDelivery(db: Database, orgId: string, deliveryId: string) {
  const found = await findDelivery(db, orgId, deliveryId);
  if (!found) throw notFoundError('delivery');
  return { ...toDeliveryView(found.delivery), destinationId: found.delivery.destination_id, attemptLog: found.attempts.map(toAttemptView) };
}

/** Queues a finished delivery again (same id and body, fresh attempt budget). */
export async function redeliverDelivery(db: Database, orgId: string, deliveryId: string, now: Date): Promise<DeliveryView> {
  const result = await db.tx((q) => redeliver(q, orgId, deliveryId, now));
  if (result.kind === 'not_found') throw notFoundError('delivery');
  if (result.kind === 'in_progress') throw conflictError('the delivery is still in progress');
  return toDeliveryView(result.row);
}

/** The deliveries made for one alert's events (the console's alert page), in event order. */
export async function listAlertDeliveries(db: Database, orgId: string, alertId: string) {
  const rows = await findAlertDeliveries(db, orgId, alertId);
  return rows.map((r) => ({
    ...toDeliveryView(r),
    eventId: r.event_id,
    destinationId: r.destination_id,
    destinationName: r.destination_name,
    destinationKind: r.destination_kind,
  }));
}

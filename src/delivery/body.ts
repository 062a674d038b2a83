/**
 * The SPEC §2.1 delivery body. Serialized once, when the delivery is created, and stored as the
 * exact bytes every attempt and redelivery sends (CONTRACT §4). Field order is fixed here.
 */
import type { AlertSnapshot } from '../alerts/snapshot.js';
import type { AlertEventName } from '../alerts/events.js';
import type { DeliveryBody } from './connectors/types.js';

export function buildDeliveryBody(input: {
  deliveryId: string;
  event: AlertEventName;
  occurredAt: Date;
  alert: AlertSnapshot;
  test?: boolean;
}): string {
  const a = input.alert;
  // Copy the snapshot field by field: only SPEC §2.2 fields may leave the service (no org ids,
  // no e-mail addresses), whatever else a snapshot might carry.
  const alert: AlertSnapshot = {
    id: a.id,
    title: a.title,
    message: a.message.length > 1000 ? a.message.slice(0, 1000) : a.message,
    sourceType: a.sourceType,
    sourceId: a.sourceId,
    workspaceName: a.workspaceName ?? null,
    capacityName: a.capacityName ?? null,
    severity: a.severity,
    status: a.status,
    acknowledged: a.acknowledged,
    openedAt: a.openedAt,
    resolvedAt: a.resolvedAt ?? null,
    failureCount: a.failureCount,
    url: a.url,
  };
  const body: DeliveryBody = {
    id: input.deliveryId,
    event: input.event,
    occurredAt: input.occurredAt.toISOString(),
    ...(input.test ? { test: true as const } : {}),
    alert,
  };
  return JSON.stringify(body);
}

/**
 * The delivery body. Serialized once, when the delivery is created, and stored as the exact
 * bytes every attempt and redelivery sends. Field order is fixed here.
 */
import type { AlertEventName, AlertSnapshot } from './events.js';

/** The delivery body as stored at creation; connectors read the incident from it. */
export interface DeliveryBody {
  id: string;
  event: AlertEventName;
  occurredAt: string;
  test?: true;
  alert: AlertSnapshot;
}

export function buildDeliveryBody(input: {
  deliveryId: string;
  event: AlertEventName;
  occurredAt: Date;
  alert: AlertSnapshot;
  test?: boolean;
}): string {
  const a = input.alert;
  // Copy the snapshot field by field: only the documented fields may leave the service (no org
  // ids, no e-mail addresses), whatever else a snapshot might carry. The message is sent as
  // stored: it was cut to 1000 code points once, at ingest, so it never ends in half a
  // surrogate pair here.
  const alert: AlertSnapshot = {
    id: a.id,
    title: a.title,
    message: a.message,
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
    // The likely changes, field by field: activity, object, time — the actor never leaves.
    ...(a.changes && a.changes.length > 0
      ? { changes: a.changes.map((c) => ({ activity: c.activity, object: { kind: c.object.kind, id: c.object.id, name: c.object.name }, occurredAt: c.occurredAt })) }
      : {}),
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

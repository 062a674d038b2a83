import type { Queryable } from '../db/index.js';
import type { RecordedEvent } from '../alerts/events.js';

/**
 * Creates one delivery row per (event, matching destination) inside the event's transaction and
 * signals the dispatcher (pg_notify) — owned by the delivery engine (issue 3).
 * Until that lands, events are recorded in the outbox only.
 */
export async function fanOutEvent(_q: Queryable, _event: RecordedEvent, _now: Date): Promise<void> {
  // Implemented by the delivery engine.
}

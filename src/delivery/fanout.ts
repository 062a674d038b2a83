/**
 * Fan-out planning: which destinations get a delivery of an event, and in which status. The
 * outbox writes the plan (appendEvent); this module only decides it.
 */
import type { Queryable } from '../db/index.js';
import { newId } from '../ids.js';
import {
  buildDeliveryBody,
  DESTINATION_DISABLED_REASON,
  incidentDeliveryState,
  lockIncidents,
  OPENING_FAILED_REASON,
  type PendingEvent,
  type PlannedDelivery,
} from '../outbox/index.js';
import { destinationsWithRef } from './connector-refs.js';
import { loadLiveDestinations, matchesFilter, type DestinationRow } from './destinations.js';
import { assignGroups } from './grouping.js';

/**
 * The organization's active destinations, loaded once per transaction: a transaction that
 * records many events (a batch of signals, an escalation or release pass) reads the
 * destinations table once instead of once per event. The cache is keyed by the transaction's
 * Queryable (a fresh object per transaction in both engines), so it dies with the transaction.
 * A Queryable that can open transactions itself (`tx`) is a pool, not a transaction: never
 * cached. As a safety net an entry is also reused for at most a second.
 */
const DESTINATION_CACHE_MS = 1_000;
const destinationCache = new WeakMap<object, Map<string, { at: number; rows: Promise<DestinationRow[]> }>>();

function liveDestinations(q: Queryable, orgId: string): Promise<DestinationRow[]> {
  if (typeof (q as { tx?: unknown }).tx === 'function') return loadLiveDestinations(q, orgId);
  let byOrg = destinationCache.get(q);
  if (!byOrg) {
    byOrg = new Map();
    destinationCache.set(q, byOrg);
  }
  const hit = byOrg.get(orgId);
  const now = Date.now();
  if (hit && now - hit.at < DESTINATION_CACHE_MS) return hit.rows;
  const rows = loadLiveDestinations(q, orgId);
  byOrg.set(orgId, { at: now, rows });
  rows.catch(() => byOrg!.delete(orgId));
  return rows;
}

async function matchingDestinations(q: Queryable, event: PendingEvent): Promise<DestinationRow[]> {
  return (await liveDestinations(q, event.orgId)).filter((d) =>
    matchesFilter(d.filter, { event: event.event, severity: event.snapshot.severity, sourceType: event.snapshot.sourceType }),
  );
}

function planned(event: PendingEvent, destinationId: string, now: Date, status: PlannedDelivery['status'] = 'pending', lastError: string | null = null): PlannedDelivery {
  const id = newId('dlv', now);
  const body = buildDeliveryBody({ deliveryId: id, event: event.event, occurredAt: event.occurredAt, alert: event.snapshot });
  return { id, destinationId, status, body, lastError };
}

/**
 * The deliveries an event creates: one per matching destination. A disabled destination gets a
 * `skipped` delivery (never sent, kept so it can be recovered). Needs no sequence
 * number, so the event and its deliveries can be written by one statement afterwards.
 *
 * Connector kinds keep an incident's events in order: a later event waits while an earlier
 * delivery of the same incident to that destination is unfinished; it is abandoned at once when
 * the opening delivery already failed for good and left no reference. Reading that state takes
 * the incident's lock at each such destination first (held until the transaction ends), so a
 * worker settling the incident's delivery meanwhile either ran before this read or sees this
 * event's held row (see src/outbox/incident-lock.ts). `skipDestinationId`: the destination whose
 * tool made the change (src/inbound) gets nothing back — no echo, no loop.
 */
export async function planFanOut(q: Queryable, event: PendingEvent, now: Date, skipDestinationId?: string): Promise<PlannedDelivery[]> {
  const destinations = (await matchingDestinations(q, event)).filter((d) => d.id !== skipDestinationId);
  if (destinations.length === 0) return [];
  const connectorIds = event.event === 'alert.opened' ? [] : destinations.filter((d) => d.enabled && d.kind !== 'webhook').map((d) => d.id);
  // One after the other: inside a transaction the Queryable is a single connection. The lock
  // is its own statement: a statement's snapshot is taken before it could wait for the lock.
  await lockIncidents(q, connectorIds.map((destinationId) => ({ destinationId, alertId: event.alertId })));
  const prior = await incidentDeliveryState(q, event.alertId, connectorIds);
  const withRef = await destinationsWithRef(q, event.alertId, connectorIds);
  const plans = destinations.map((d) => {
    if (!d.enabled) return planned(event, d.id, now, 'skipped', DESTINATION_DISABLED_REASON);
    const p = prior.get(d.id);
    if (p?.unfinished) return planned(event, d.id, now, 'waiting');
    if (p?.openingFailed && !withRef.has(d.id)) return planned(event, d.id, now, 'abandoned', OPENING_FAILED_REASON);
    return planned(event, d.id, now);
  });
  if (event.event === 'alert.opened') {
    await assignGroups(q, event.orgId, plans.map((p, i) => ({ planned: p, alertId: event.alertId, severity: event.snapshot.severity, destination: destinations[i]! })), now);
  }
  return plans;
}

/**
 * Plans a batch of events as one write, or returns null when the batch needs the per-event path:
 * the batch path is taken only when no event's deliveries depend on earlier state — every event
 * is an `alert.opened` (connector ordering never holds an opening) or none of its matching
 * enabled destinations is a connector. Every planned delivery is then what recording the events
 * one by one would give: 'pending', or 'skipped' at a disabled destination.
 */
export async function planFanOutBatch(q: Queryable, events: PendingEvent[], now: Date): Promise<PlannedDelivery[][] | null> {
  const out: PlannedDelivery[][] = [];
  const openings: Parameters<typeof assignGroups>[2] = [];
  for (const event of events) {
    const destinations = await matchingDestinations(q, event);
    if (event.event !== 'alert.opened' && destinations.some((d) => d.enabled && d.kind !== 'webhook')) return null;
    const plans = destinations.map((d) => (d.enabled ? planned(event, d.id, now) : planned(event, d.id, now, 'skipped', DESTINATION_DISABLED_REASON)));
    if (event.event === 'alert.opened') {
      for (const [i, p] of plans.entries()) openings.push({ planned: p, alertId: event.alertId, severity: event.snapshot.severity, destination: destinations[i]! });
    }
    out.push(plans);
  }
  // One read of the events' groups for the whole batch (events of one organization).
  const orgId = events[0]?.orgId;
  if (orgId && events.every((e) => e.orgId === orgId)) await assignGroups(q, orgId, openings, now);
  else for (const e of new Set(events.map((x) => x.orgId))) await assignGroups(q, e, openings.filter((o) => events.some((x) => x.orgId === e && x.alertId === o.alertId)), now);
  return out;
}

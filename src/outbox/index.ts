/**
 * The outbox: the only owner of alert_events, deliveries and delivery_attempts. Alerts append
 * events here; the dispatcher claims and settles rows here; the admin API reads history and
 * redelivers here. Every write to those tables, and the one NOTIFY channel, live in this folder.
 */
export * from './events.js';
export * from './status.js';
export * from './body.js';
export { DELIVERY_CHANNEL, onDeliveriesDue } from './channel.js';
export { appendEvent, appendEvents, incidentDeliveryState, type PlannedDelivery, type IncidentDeliveryState } from './append.js';
export { claimDue, cycleStart, type ClaimedRow, type ClaimOptions, type ClaimResult } from './claim.js';
export * from './transitions.js';
export * from './reads.js';
export * from './health.js';
export * from './recover.js';
export { incidentKey, lockDestinationKeys, lockIncidents, tryLockIncidents } from './incident-lock.js';
export { purgeAlertEvents } from './event-retention.js';

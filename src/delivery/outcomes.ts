/**
 * What a finished attempt means for its delivery (the retry policy), and writing a batch of them
 * through the outbox: attempt log and delivery states in one statement, then — for connector
 * deliveries — the incident's reference and the release (or abandonment) of the event held
 * behind it.
 */
import type { Queryable } from '../db/index.js';
import {
  abandonWaiting,
  OPENING_FAILED_REASON,
  releaseNextWaiting,
  settleAttempts,
  type DeliveryStatus,
  disableDue,
  type AutoDisabled,
  type IncidentAtDestination,
} from '../outbox/index.js';
import { destinationsWithRef, storeConnectorRef } from './connector-refs.js';
import type { ConnectorResult } from './connectors/types.js';
import { retryDelayMs } from './retry-policy.js';

export interface FinishedAttempt {
  id: string;
  destinationId: string;
  alertId: string;
  kind: string;
  event: string;
  /** Absolute attempt number (attempt log key). */
  attempt: number;
  /** Attempt number within the current budget (drives the retry schedule). */
  budgetAttempt: number;
  result: ConnectorResult;
  startedAt: Date;
  durationMs: number;
}

export type OutcomeStatus = Extract<DeliveryStatus, 'pending' | 'succeeded' | 'failed' | 'abandoned'>;

export interface AppliedOutcome {
  id: string;
  status: OutcomeStatus;
  /** False when this worker no longer held the lease (row changed meanwhile): nothing written but the log. */
  applied: boolean;
}

export function decideStatus(scheduleMs: readonly number[], a: FinishedAttempt, now: Date): { status: OutcomeStatus; next: Date | null } {
  if (a.result.outcome === 'succeeded') return { status: 'succeeded', next: null };
  if (a.result.outcome === 'abandon') return { status: 'abandoned', next: null };
  const delay = retryDelayMs(scheduleMs, a.budgetAttempt, a.result.retryAfterMs);
  if (delay === null) return { status: 'failed', next: null };
  return { status: 'pending', next: new Date(now.getTime() + delay) };
}

/** Webhook-only batches need nothing but the settle statement: one autocommit statement, no transaction. */
export function needsTransaction(items: FinishedAttempt[]): boolean {
  return items.some((a) => a.kind !== 'webhook');
}

export async function applyOutcomes(
  q: Pick<Queryable, 'query'>,
  items: FinishedAttempt[],
  o: { workerId: string; now: Date; scheduleMs: readonly number[]; autoDisableAfterMs: number | null },
): Promise<{ outcomes: AppliedOutcome[]; autoDisabled: AutoDisabled[] }> {
  if (items.length === 0) return { outcomes: [], autoDisabled: [] };
  const decided = items.map((a) => ({ a, ...decideStatus(o.scheduleMs, a, o.now) }));
  const { applied, disableDue: due } = await settleAttempts(
    q,
    decided.map(({ a, status, next }) => ({
      id: a.id,
      attempt: a.attempt,
      startedAt: a.startedAt,
      durationMs: a.durationMs,
      statusCode: a.result.statusCode ?? null,
      error: 'error' in a.result ? a.result.error : null,
      status,
      nextAttemptAt: next,
    })),
    o.workerId,
    o.now,
    o.autoDisableAfterMs,
  );
  const connectorDone = decided.filter((x) => applied.has(x.a.id) && x.a.kind !== 'webhook');
  for (const { a } of connectorDone) {
    if (a.result.outcome === 'succeeded' && a.result.ref) await storeConnectorRef(q, a.destinationId, a.alertId, a.result.ref, o.now);
  }
  // A final state frees the next held event of this incident at this destination — unless the
  // opening failed for good and left no reference: then the held ones can never succeed.
  const release: IncidentAtDestination[] = [];
  const abandon: IncidentAtDestination[] = [];
  for (const { a, status } of connectorDone) {
    if (status === 'pending') continue;
    const pair = { destinationId: a.destinationId, alertId: a.alertId };
    const openingLost = a.event === 'alert.opened' && status !== 'succeeded' && !(await destinationsWithRef(q, a.alertId, [a.destinationId])).size;
    (openingLost ? abandon : release).push(pair);
  }
  await abandonWaiting(q, abandon, OPENING_FAILED_REASON, o.now);
  await releaseNextWaiting(q, release, o.now);
  // Endpoint health (each delivery counted once, when it ends) was recorded by the settle
  // statement itself; the automatic rule's rare second statement runs only when it fires.
  const autoDisabled = await disableDue(q, due, o.now);
  return { outcomes: decided.map((x) => ({ id: x.a.id, status: x.status, applied: applied.has(x.a.id) })), autoDisabled };
}

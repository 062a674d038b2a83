/**
 * What a finished attempt means for its delivery (the retry policy), and writing a batch of them
 * through the outbox: attempt log and delivery states in one statement, then — for connector
 * deliveries — the incident's reference and the release (or abandonment) of the event held
 * behind it.
 */
import type { Queryable } from '../db/index.js';
import {
  incidentKey,
  OPENING_FAILED_REASON,
  resolveWaiting,
  settleAttempts,
  tryLockIncidents,
  type DeliveryStatus,
  disableDue,
  type AutoDisabled,
  type IncidentAtDestination,
} from '../outbox/index.js';
import { recordConnectorWrites, storeConnectorRefs } from './connector-refs.js';
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

export interface AppliedBatch {
  /** The outcomes written (or refused for a lost lease), in batch order. */
  outcomes: AppliedOutcome[];
  autoDisabled: AutoDisabled[];
  /**
   * Connector outcomes not written now because their incident is being recorded by another
   * transaction (its fan-out holds the incident's lock): write them in a later batch.
   */
  deferred: FinishedAttempt[];
}

/**
 * Writes a batch. Webhook deliveries: the settle statement alone. Connector deliveries (in a
 * transaction): the incident lock of each delivery that ends, then the settle statement, the
 * references of the openings that succeeded (one statement) and the held events of the
 * incidents whose delivery ended (one statement: released, or abandoned when the opening was
 * lost) — a fixed number of statements whatever the batch size.
 */
export async function applyOutcomes(
  q: Pick<Queryable, 'query'>,
  items: FinishedAttempt[],
  o: { workerId: string; now: Date; scheduleMs: readonly number[]; autoDisableAfterMs: number | null },
): Promise<AppliedBatch> {
  if (items.length === 0) return { outcomes: [], autoDisabled: [], deferred: [] };
  const decided = items.map((a) => ({ a, ...decideStatus(o.scheduleMs, a, o.now) }));
  const pairOf = (a: FinishedAttempt): IncidentAtDestination => ({ destinationId: a.destinationId, alertId: a.alertId });
  // A connector delivery that ends decides its incident's held events: serialized with fan-out
  // on the incident's lock, tried only (see incident-lock.ts); a busy incident waits a batch.
  const ending = decided.filter((x) => x.a.kind !== 'webhook' && x.status !== 'pending');
  const locked = await tryLockIncidents(q, ending.map((x) => pairOf(x.a)));
  const busy = new Set(ending.filter((x) => !locked.has(incidentKey(pairOf(x.a)))).map((x) => x.a.id));
  const writable = busy.size === 0 ? decided : decided.filter((x) => !busy.has(x.a.id));
  const { applied, disableDue: due } = await settleAttempts(
    q,
    writable.map(({ a, status, next }) => ({
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
  const connectorDone = writable.filter((x) => applied.has(x.a.id) && x.a.kind !== 'webhook');
  await storeConnectorRefs(
    q,
    connectorDone.flatMap(({ a }) => (a.result.outcome === 'succeeded' && a.result.ref ? [{ ...pairOf(a), ref: a.result.ref }] : [])),
    o.now,
  );
  await recordConnectorWrites(
    q,
    connectorDone.filter(({ a }) => a.result.outcome === 'succeeded').map(({ a }) => ({ ...pairOf(a), event: a.event, at: a.startedAt })),
  );
  // A final state frees the next held event of this incident at this destination — unless the
  // opening failed for good and left no reference: then the held ones can never succeed.
  await resolveWaiting(
    q,
    connectorDone.filter((x) => x.status !== 'pending').map((x) => pairOf(x.a)),
    o.now,
    OPENING_FAILED_REASON,
  );
  // Endpoint health (each delivery counted once, when it ends) was recorded by the settle
  // statement itself; the automatic rule's rare second statement runs only when it fires.
  const autoDisabled = await disableDue(q, due, o.now);
  return {
    outcomes: writable.map((x) => ({ id: x.a.id, status: x.status, applied: applied.has(x.a.id) })),
    autoDisabled,
    deferred: decided.filter((x) => busy.has(x.a.id)).map((x) => x.a),
  };
}

/**
 * One held row's attempt, from lease check to outcome. A row that waited long for a slot gets
 * its lease renewed first, so the lease still outlives every call the attempt can make; a row
 * whose lease was lost meanwhile is not sent (another worker owns it).
 */
import type { AppContext } from '../context.js';
import type { Database } from '../db/index.js';
import type { Logger } from '../logger.js';
import { renewLeases, type ClaimedRow } from '../outbox/index.js';
import { performAttempt } from './attempt.js';
import type { GuardedSend } from './guarded-http.js';
import type { SignatureScheme } from './signing.js';
import type { FinishedAttempt } from './outcomes.js';

/**
 * The lease is 4 × timeout + 5 s; a row that waited under 5 s still has at least 4 × timeout
 * left, which covers every call of an attempt.
 */
const RENEW_AFTER_WAIT_MS = 5_000;

export interface AttemptRunnerDeps {
  ctx: AppContext;
  db: Pick<Database, 'query'>;
  send: GuardedSend;
  log: Logger;
  workerId: string;
  leaseMs: number;
  /** Attempts one budget allows. */
  attemptBudget: number;
}

/** Runs the attempt of `row`; null when the row must not be sent (lease lost or not renewable). */
export async function runHeldRow(d: AttemptRunnerDeps, row: ClaimedRow, waitedMs: number): Promise<FinishedAttempt | null> {
  if (waitedMs > RENEW_AFTER_WAIT_MS && !(await renewLease(d, row))) return null;
  const budgetAttempt = row.attempts - row.attempt_base;
  const base = { id: row.id, destinationId: row.destination_id, alertId: row.alert_id, kind: row.kind, event: row.event, attempt: row.attempts, budgetAttempt };
  if (budgetAttempt > d.attemptBudget) {
    // Only reachable when a worker died mid-attempt on the last attempt of the budget: the
    // retry policy then marks it failed without another send.
    return { ...base, result: { outcome: 'retry', error: 'attempt outcome unknown' }, startedAt: d.ctx.clock.now(), durationMs: 0 };
  }
  const outcome = await performAttempt(d.ctx, d.send, {
    id: row.id,
    event: row.event,
    body: row.body,
    kind: row.kind,
    url: row.url,
    config: row.config,
    destinationId: row.destination_id,
    credentialsSealed: row.credentials_sealed,
    signingSecretSealed: row.signing_secret_sealed,
    signatureScheme: row.signature_scheme as SignatureScheme,
    ref: row.ref,
    attempt: budgetAttempt,
    previousOutcomeUnknown: row.previous_unknown,
  });
  return { ...base, result: outcome.result, startedAt: outcome.startedAt, durationMs: outcome.durationMs };
}

async function renewLease(d: AttemptRunnerDeps, row: ClaimedRow): Promise<boolean> {
  try {
    const held = await renewLeases(d.db, [row.id], d.workerId, new Date(d.ctx.clock.now().getTime() + d.leaseMs));
    return held.has(row.id);
  } catch (err) {
    // Cannot renew: do not send on a lease that may run out; the row comes back when it ends.
    d.log.warn({ err: (err as Error).message }, 'renewing the lease of a ready row failed; leaving it to the lease expiry');
    return false;
  }
}

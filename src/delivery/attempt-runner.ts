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
import { gatherGroup, groupsOpenings, type GroupMember } from './grouping.js';

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

/**
 * Runs the attempt of `row` — for a grouped opening, of its whole group (grouping.ts): one send,
 * one finished attempt per delivery it carried, the row's own first. Empty when the row must not
 * be sent (lease lost or not renewable).
 */
export async function runHeldRow(d: AttemptRunnerDeps, row: ClaimedRow, waitedMs: number): Promise<FinishedAttempt[]> {
  if (waitedMs > RENEW_AFTER_WAIT_MS && !(await renewLease(d, row))) return [];
  const budgetAttempt = row.attempts - row.attempt_base;
  const base = { id: row.id, destinationId: row.destination_id, alertId: row.alert_id, kind: row.kind, event: row.event, attempt: row.attempts, budgetAttempt };
  if (budgetAttempt > d.attemptBudget) {
    // Only reachable when a worker died mid-attempt on the last attempt of the budget: the
    // retry policy then marks it failed without another send.
    return [{ ...base, result: { outcome: 'retry', error: 'attempt outcome unknown' }, startedAt: d.ctx.clock.now(), durationMs: 0 }];
  }
  const members = await groupMembers(d, row);
  const outcome = await performAttempt(d.ctx, d.send, {
    id: row.id,
    orgId: row.org_id,
    event: row.event,
    body: row.body,
    kind: row.kind,
    url: row.url,
    config: row.config,
    destinationId: row.destination_id,
    credentialsSealed: row.credentials_sealed,
    signingSecretSealed: row.signing_secret_sealed,
    // The column's CHECK constraint admits only the known schemes.
    signatureScheme: row.signature_scheme as SignatureScheme,
    ref: row.ref,
    attempt: budgetAttempt,
    previousOutcomeUnknown: row.previous_unknown,
    ...(members.length > 0 ? { groupBodies: members.map((m) => m.body) } : {}),
  });
  const done = { result: outcome.result, startedAt: outcome.startedAt, durationMs: outcome.durationMs };
  return [
    { ...base, ...done },
    ...members.map((m) => ({
      id: m.id,
      destinationId: row.destination_id,
      alertId: m.alert_id,
      kind: row.kind,
      event: m.event,
      attempt: m.attempts,
      budgetAttempt: m.attempts - m.attempt_base,
      ...done,
    })),
  ];
}

/** The other pending openings of the row's group, leased to this worker; none for other rows. */
async function groupMembers(d: AttemptRunnerDeps, row: ClaimedRow): Promise<GroupMember[]> {
  if (!row.group_id || row.event !== 'alert.opened' || !groupsOpenings(row.kind)) return [];
  const now = d.ctx.clock.now();
  return gatherGroup(d.db, { id: row.id, destinationId: row.destination_id, groupId: row.group_id }, { now, leaseUntil: new Date(now.getTime() + d.leaseMs), workerId: d.workerId });
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

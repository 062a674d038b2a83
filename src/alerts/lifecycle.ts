/**
 * The incident lifecycle (docs/alerts.md): signals, acknowledge, resolve. Every state
 * change and its event are written in one transaction; `now` always comes from ctx.clock.
 */
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { conflictError, invalidInput, notFoundError } from '../errors.js';
import { requireOrg } from '../orgs/orgs.js';
import { planSignalBatch, type SignalOutcome } from './batch-plan.js';
import { loadBatchState, writeBatchPlan, type OpenedHook } from './batch-store.js';
import { releaseDependents } from './release.js';
import { alertColumns, emitUnlessSuppressed, toAlertJson, type AlertJson, type AlertRow } from './rows.js';
import { txWithRetry } from '../db/retry.js';
import { validateSignals, type Signal } from './signals.js';

export type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'>;

export type { SignalOutcome };

/**
 * Validates and applies signals (one object or an array ≤ 1000) in ONE transaction: a batch is
 * written completely or not at all. Signals apply in order, so a failure followed by a recovery
 * of the same key in one batch opens and then resolves the incident. The batch is set-based: a
 * few reads of its starting state, the effect of every signal worked out in memory
 * (batch-plan.ts), then a few bulk writes (batch-store.ts) — the same result as one signal at a
 * time, in a number of statements that does not grow with the batch.
 */
export async function ingestSignals(ctx: Ctx, orgId: string, body: unknown): Promise<{ outcomes: SignalOutcome[]; single: boolean }> {
  const now = ctx.clock.now();
  const { signals, single } = validateSignals(body, now);
  await requireOrg(ctx.db, orgId);
  const outcomes = await txWithRetry(ctx.db, (q) => applySignalsIn(q, ctx, orgId, signals, now));
  return { outcomes, single };
}

/**
 * Applies validated signals inside the caller's transaction (the same set-based batch as
 * ingestSignals), so a caller can commit other rows with them — the monitoring collectors commit
 * their remembered state in the same transaction as the signals it produced. `quietReason`: the
 * incidents the batch opens are silenced with it and never released (batch-plan.ts). `onOpened`:
 * runs on the new incidents' ids after they are written and before their events are (a collector
 * joins the changes that preceded them, so the opening payload names them).
 */
export async function applySignalsIn(
  q: Queryable,
  ctx: Pick<Ctx, 'config'>,
  orgId: string,
  signals: Signal[],
  now: Date,
  quietReason: string | null = null,
  onOpened?: OpenedHook,
): Promise<SignalOutcome[]> {
  if (signals.length === 0) return [];
  await lockIncidentKeys(q, orgId, signals);
  const state = await loadBatchState(q, orgId, signals, now);
  const plan = planSignalBatch(orgId, signals, state, now, ctx.config.baseUrl, quietReason);
  await writeBatchPlan(q, orgId, plan, now, onOpened);
  return plan.outcomes;
}

/**
 * Takes a transaction-scoped advisory lock per incident key of the batch, in one global order.
 * Two batches touching the same keys in different orders would otherwise deadlock on the rows
 * (and on ON CONFLICT's wait for an uncommitted insert); with the locks they simply queue.
 */
async function lockIncidentKeys(q: Queryable, orgId: string, signals: Signal[]): Promise<void> {
  const keys = [...new Set(signals.map((s) => incidentLockKey(orgId, s)))];
  await q.query(
    `SELECT count(pg_advisory_xact_lock(h)) FROM (
       SELECT DISTINCT hashtextextended(k, ${INCIDENT_LOCK_SEED}) AS h FROM unnest($1::text[]) AS k ORDER BY 1) AS ordered`,
    [keys],
  );
}

/** Advisory lock of an incident key: hashtextextended(incidentLockKey(…), INCIDENT_LOCK_SEED). */
export const INCIDENT_LOCK_SEED = 7342;
export function incidentLockKey(orgId: string, k: { sourceType: string; sourceId: string; notificationKind: string }): string {
  return [orgId, k.sourceType, k.sourceId, k.notificationKind].join('\u001f');
}

/** alert.recovered (unless suppressed), then release incidents that were waiting on this cause. */
async function afterResolved(q: Queryable, baseUrl: string, row: AlertRow, occurredAt: Date, now: Date, skipDestinationId?: string): Promise<void> {
  await emitUnlessSuppressed(q, row, 'alert.recovered', occurredAt, now, baseUrl, skipDestinationId);
  await releaseDependents(q, baseUrl, row.org_id, row.id, now);
}

async function loadAlert(q: Queryable, orgId: string, alertId: string): Promise<AlertRow | null> {
  const { rows } = await q.query<AlertRow>(`SELECT ${alertColumns()} FROM alerts WHERE id = $1 AND org_id = $2`, [alertId, orgId]);
  return rows[0] ?? null;
}

/**
 * Acknowledge: a conditional UPDATE, so it serializes with a racing recovery on the row lock —
 * whichever commits second sees the other's result (409 here, or a resolved acknowledged alert).
 */
/**
 * Acknowledges an open incident (alert.acknowledged). `at`: when the person acknowledged, for
 * acknowledgements recorded after the fact (a history replayed or imported); default now. It may
 * not be in the future nor before the incident opened, so time-to-acknowledge is never negative.
 */
export async function acknowledgeAlert(ctx: Ctx, orgId: string, alertId: string, by?: string | null, at?: Date): Promise<AlertJson> {
  const now = ctx.clock.now();
  const acknowledgedAt = at ?? now;
  if (acknowledgedAt.getTime() > now.getTime()) throw invalidInput('acknowledgedAt must not be in the future');
  const row = await txWithRetry(ctx.db, async (q) => {
    await requireOrg(q, orgId);
    const { rows } = await q.query<AlertRow>(
      `UPDATE alerts SET acknowledged = true, acknowledged_at = $3, ack_changed_at = $3, acknowledged_by = $4, updated_at = $5
       WHERE id = $1 AND org_id = $2 AND status = 'open' AND NOT acknowledged AND created_at <= $3 RETURNING ${alertColumns()}`,
      [alertId, orgId, acknowledgedAt, by ?? null, now],
    );
    const updated = rows[0];
    if (!updated) {
      const current = await loadAlert(q, orgId, alertId);
      if (!current) throw notFoundError('alert');
      if (current.status !== 'open') throw conflictError('alert is not open');
      if (current.acknowledged) throw conflictError('alert is already acknowledged');
      throw invalidInput(`acknowledgedAt must not be before the alert opened (${current.created_at.toISOString()})`);
    }
    await emitUnlessSuppressed(q, updated, 'alert.acknowledged', acknowledgedAt, now, ctx.config.baseUrl);
    return updated;
  });
  return toAlertJson(row, ctx.config.baseUrl);
}

/** Marks an open incident resolved (alert.recovered); 409 when it is already resolved. */
export async function resolveAlert(ctx: Ctx, orgId: string, alertId: string): Promise<AlertJson> {
  const now = ctx.clock.now();
  const row = await txWithRetry(ctx.db, async (q) => {
    await requireOrg(q, orgId);
    const { rows } = await q.query<AlertRow>(
      `UPDATE alerts SET status = 'resolved', resolved_at = GREATEST($3, created_at), updated_at = $3
       WHERE id = $1 AND org_id = $2 AND status = 'open' RETURNING ${alertColumns()}`,
      [alertId, orgId, now],
    );
    const updated = rows[0];
    if (!updated) {
      if (!(await loadAlert(q, orgId, alertId))) throw notFoundError('alert');
      throw conflictError('alert is not open');
    }
    await afterResolved(q, ctx.config.baseUrl, updated, updated.resolved_at!, now);
    return updated;
  });
  return toAlertJson(row, ctx.config.baseUrl);
}

export type ToolChange = 'acknowledge' | 'resolve' | 'unacknowledge';

/**
 * A change made by a person in an ITSM tool (src/inbound), applied in the caller's
 * transaction: acknowledge (at the tool's time, by the person's display name), resolve (at the
 * tool's time), or undo an acknowledgement. The times are clamped between the alert's opening and
 * now, so time-to-acknowledge and time-to-resolve are never negative. Returns the changed row, or
 * null when the alert's state makes it no change (already acknowledged, already resolved — an
 * acknowledgement arriving after the resolution changes nothing). The lifecycle event goes to
 * every matching destination but `originDestinationId`, the one the change came from. Undoing an
 * acknowledgement emits no event (there is no such event in the contract) but is recorded with its
 * time in ack_changed_at, as an acknowledgement is; an acknowledgement or its undoing not newer
 * than that time (whoever made the last change, in Vigia or in any tool) changes nothing, so
 * Vigia and the tools converge on the latest human action. Escalation applies again to an
 * un-acknowledged alert.
 */
export async function applyToolChangeIn(
  q: Queryable,
  baseUrl: string,
  change: { orgId: string; alertId: string; kind: ToolChange; at: Date; by: string | null; originDestinationId: string },
  now: Date,
): Promise<AlertRow | null> {
  const at = new Date(Math.min(change.at.getTime(), now.getTime()));
  const args = [change.alertId, change.orgId, at, now];
  if (change.kind === 'acknowledge') {
    const { rows } = await q.query<AlertRow>(
      `UPDATE alerts SET acknowledged = true, acknowledged_at = GREATEST($3, created_at), ack_changed_at = $3, acknowledged_by = $5, updated_at = $4
       WHERE id = $1 AND org_id = $2 AND status = 'open' AND NOT acknowledged AND (ack_changed_at IS NULL OR ack_changed_at < $3) RETURNING ${alertColumns()}`,
      [...args, change.by],
    );
    const row = rows[0];
    if (row) await emitUnlessSuppressed(q, row, 'alert.acknowledged', row.acknowledged_at!, now, baseUrl, change.originDestinationId);
    return row ?? null;
  }
  if (change.kind === 'resolve') {
    const { rows } = await q.query<AlertRow>(
      `UPDATE alerts SET status = 'resolved', resolved_at = GREATEST($3, created_at), updated_at = $4
       WHERE id = $1 AND org_id = $2 AND status = 'open' RETURNING ${alertColumns()}`,
      args,
    );
    const row = rows[0];
    if (row) await afterResolved(q, baseUrl, row, row.resolved_at!, now, change.originDestinationId);
    return row ?? null;
  }
  const { rows } = await q.query<AlertRow>(
    `UPDATE alerts SET acknowledged = false, acknowledged_at = NULL, acknowledged_by = NULL, ack_changed_at = $3, updated_at = $4
     WHERE id = $1 AND org_id = $2 AND status = 'open' AND acknowledged AND (ack_changed_at IS NULL OR ack_changed_at < $3) RETURNING ${alertColumns()}`,
    args,
  );
  return rows[0] ?? null;
}

export interface AlertEventJson {
  id: string;
  event: string;
  occurredAt: string;
  createdAt: string;
}

/** The full alert plus the events it emitted, in order. */
export async function getAlert(ctx: Ctx, orgId: string, alertId: string): Promise<AlertJson & { events: AlertEventJson[] }> {
  await requireOrg(ctx.db, orgId);
  const row = await loadAlert(ctx.db, orgId, alertId);
  if (!row) throw notFoundError('alert');
  const { rows } = await ctx.db.query<{ id: string; event: string; occurred_at: Date; created_at: Date }>(
    'SELECT id, event, occurred_at, created_at FROM alert_events WHERE alert_id = $1 AND org_id = $2 ORDER BY seq',
    [alertId, orgId],
  );
  return {
    ...toAlertJson(row, ctx.config.baseUrl),
    events: rows.map((e) => ({ id: e.id, event: e.event, occurredAt: e.occurred_at.toISOString(), createdAt: e.created_at.toISOString() })),
  };
}

/**
 * The incident lifecycle (SPEC §3, CONTRACT §2): signals, acknowledge, resolve. Every state
 * change and its event are written in one transaction; `now` always comes from ctx.clock.
 */
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { conflictError, notFoundError } from '../errors.js';
import { newId } from '../ids.js';
import { requireOrg } from '../orgs/orgs.js';
import { releaseDependents } from './release.js';
import { alertColumns, emitUnlessSuppressed, toAlertJson, type AlertJson, type AlertRow } from './rows.js';
import { txWithRetry } from './retry.js';
import { validateSignals, type Signal } from './signals.js';
import { activeSilences, findActiveSilence, matchSilence, type ActiveSilence } from './silences.js';

export type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'>;

export interface SignalOutcome {
  alertId: string | null;
  outcome: 'opened' | 'reoccurred' | 'recovered' | 'ignored';
  silenced: boolean;
  correlated: boolean;
}

/**
 * Validates and applies signals (one object or an array ≤ 1000) in ONE transaction: a batch is
 * written completely or not at all. Signals apply in order, so a failure followed by a recovery
 * of the same key in one batch opens and then resolves the incident.
 */
export async function ingestSignals(ctx: Ctx, orgId: string, body: unknown): Promise<{ outcomes: SignalOutcome[]; single: boolean }> {
  const now = ctx.clock.now();
  const { signals, single } = validateSignals(body, now);
  await requireOrg(ctx.db, orgId);
  const outcomes = await txWithRetry(ctx.db, async (q) => {
    await lockIncidentKeys(q, orgId, signals);
    // Active silences are read once per batch (not once per signal) and matched in memory.
    const silences = await activeSilences(q, orgId, now);
    const out: SignalOutcome[] = [];
    for (const s of signals) out.push(await applySignal(q, ctx.config.baseUrl, orgId, s, now, silences));
    return out;
  });
  return { outcomes, single };
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

export async function applySignal(
  q: Queryable,
  baseUrl: string,
  orgId: string,
  s: Signal,
  now: Date,
  silences?: ActiveSilence[],
): Promise<SignalOutcome> {
  if (s.kind === 'recovery') return applyRecovery(q, baseUrl, orgId, s, now);
  const silence = silences ? matchSilence(silences, s) : await findActiveSilence(q, orgId, s, now);
  return applyFailure(q, baseUrl, orgId, s, now, silence);
}

/**
 * Failure: one INSERT … ON CONFLICT on the partial unique index "one open incident per key".
 * Concurrent failures for the same key (other transactions, other processes) therefore end as
 * one incident plus reoccurrences — never two open incidents, never a unique-violation error.
 * Silence and correlation are computed up front; they only take effect if the row is new.
 */
async function applyFailure(q: Queryable, baseUrl: string, orgId: string, s: Signal, now: Date, silence: string | null): Promise<SignalOutcome> {
  const causeIds = await openCauseIds(q, orgId, s);
  const id = newId('alr', now);
  const { rows } = await q.query<AlertRow>(
    `INSERT INTO alerts (id, org_id, source_type, source_id, source_name, notification_kind, severity, title, message,
        workspace_name, capacity_name, status, acknowledged, created_at, failure_count, last_occurrence_at,
        silenced, silence_id, correlated, cause_alert_ids, suppressed, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'open', false, $12, 1, $12, $13, $14, $15, $16, $17, $18)
     ON CONFLICT (org_id, source_type, source_id, notification_kind) WHERE status = 'open'
     DO UPDATE SET failure_count = alerts.failure_count + 1,
        last_occurrence_at = GREATEST(alerts.last_occurrence_at, EXCLUDED.last_occurrence_at),
        updated_at = EXCLUDED.updated_at
     RETURNING ${alertColumns()}`,
    [
      id, orgId, s.sourceType, s.sourceId, s.sourceName, s.notificationKind, s.severity, s.title, s.message,
      s.workspaceName, s.capacityName, s.occurredAt, silence !== null, silence, causeIds.length > 0, causeIds,
      silence !== null || causeIds.length > 0, now,
    ],
  );
  const row = rows[0]!;
  if (row.id !== id) return { alertId: row.id, outcome: 'reoccurred', silenced: row.silenced, correlated: row.correlated };
  await emitUnlessSuppressed(q, row, 'alert.opened', s.occurredAt, now, baseUrl);
  return { alertId: row.id, outcome: 'opened', silenced: row.silenced, correlated: row.correlated };
}

/** Open incidents of the signal's causes (any notification kind); never the incident itself. */
async function openCauseIds(q: Queryable, orgId: string, s: Signal): Promise<string[]> {
  if (s.causes.length === 0) return [];
  const { rows } = await q.query<{ id: string }>(
    `SELECT a.id FROM alerts a
     JOIN unnest($2::text[], $3::text[]) AS c(source_type, source_id)
       ON a.source_type = c.source_type AND a.source_id = c.source_id
     WHERE a.org_id = $1 AND a.status = 'open'
       AND NOT (a.source_type = $4 AND a.source_id = $5 AND a.notification_kind = $6)
     ORDER BY a.id`,
    [orgId, s.causes.map((c) => c.sourceType), s.causes.map((c) => c.sourceId), s.sourceType, s.sourceId, s.notificationKind],
  );
  return rows.map((r) => r.id);
}

async function applyRecovery(q: Queryable, baseUrl: string, orgId: string, s: Signal, now: Date): Promise<SignalOutcome> {
  const { rows } = await q.query<AlertRow>(
    `UPDATE alerts SET status = 'resolved', resolved_at = GREATEST($5, created_at), updated_at = $6
     WHERE org_id = $1 AND source_type = $2 AND source_id = $3 AND notification_kind = $4 AND status = 'open'
     RETURNING ${alertColumns()}`,
    [orgId, s.sourceType, s.sourceId, s.notificationKind, s.occurredAt, now],
  );
  const row = rows[0];
  if (!row) return { alertId: null, outcome: 'ignored', silenced: false, correlated: false };
  await afterResolved(q, baseUrl, row, row.resolved_at!, now);
  return { alertId: row.id, outcome: 'recovered', silenced: row.silenced, correlated: row.correlated };
}

/** alert.recovered (unless suppressed), then release incidents that were waiting on this cause. */
async function afterResolved(q: Queryable, baseUrl: string, row: AlertRow, occurredAt: Date, now: Date): Promise<void> {
  await emitUnlessSuppressed(q, row, 'alert.recovered', occurredAt, now, baseUrl);
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
export async function acknowledgeAlert(ctx: Ctx, orgId: string, alertId: string, by?: string | null): Promise<AlertJson> {
  const now = ctx.clock.now();
  const row = await txWithRetry(ctx.db, async (q) => {
    await requireOrg(q, orgId);
    const { rows } = await q.query<AlertRow>(
      `UPDATE alerts SET acknowledged = true, acknowledged_at = $3, acknowledged_by = $4, updated_at = $3
       WHERE id = $1 AND org_id = $2 AND status = 'open' AND NOT acknowledged RETURNING ${alertColumns()}`,
      [alertId, orgId, now, by ?? null],
    );
    const updated = rows[0];
    if (!updated) {
      const current = await loadAlert(q, orgId, alertId);
      if (!current) throw notFoundError('alert');
      throw conflictError(current.status !== 'open' ? 'alert is not open' : 'alert is already acknowledged');
    }
    await emitUnlessSuppressed(q, updated, 'alert.acknowledged', now, now, ctx.config.baseUrl);
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

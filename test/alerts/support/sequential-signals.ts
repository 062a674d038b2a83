/**
 * Test oracle: the per-signal lifecycle as it was before batches became set-based (commit
 * fe16e76, src/alerts/lifecycle.ts), kept verbatim apart from this header and the exports. It
 * applies a batch one signal at a time, one INSERT … ON CONFLICT or UPDATE per signal, with
 * the same shared pieces (silence matching, release, outbox). The property test compares the
 * set-based batch with it.
 */
import type { Queryable } from '../../../src/db/index.js';
import { newId } from '../../../src/ids.js';
import { releaseDependents } from '../../../src/alerts/release.js';
import { alertColumns, emitUnlessSuppressed, type AlertRow } from '../../../src/alerts/rows.js';
import type { Signal } from '../../../src/alerts/signals.js';
import { activeSilences, matchSilence, type ActiveSilence } from '../../../src/alerts/silences.js';
import type { SignalOutcome } from '../../../src/alerts/lifecycle.js';

/** The old ingestSignals' transaction body (the advisory locks are left out: the test runs alone). */
export async function applySignalsOneByOne(q: Queryable, baseUrl: string, orgId: string, signals: Signal[], now: Date): Promise<SignalOutcome[]> {
  const silences = await activeSilences(q, orgId, now);
  const out: SignalOutcome[] = [];
  for (const s of signals) out.push(await applySignal(q, baseUrl, orgId, s, now, silences));
  return out;
}

async function applySignal(q: Queryable, baseUrl: string, orgId: string, s: Signal, now: Date, silences: ActiveSilence[]): Promise<SignalOutcome> {
  if (s.kind === 'recovery') return applyRecovery(q, baseUrl, orgId, s, now);
  return applyFailure(q, baseUrl, orgId, s, now, matchSilence(silences, s));
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

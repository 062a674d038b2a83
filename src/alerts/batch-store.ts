/**
 * The statements of a signal batch: read (and lock) what the batch starts from, then write the
 * plan batch-plan.ts worked out — a handful of statements whatever the batch's size.
 */
import type { Queryable } from '../db/index.js';
import type { BatchPlan, BatchState, OpenIncidentRef } from './batch-plan.js';
import { recordEvents } from './events.js';
import { alertColumns, type AlertRow } from './rows.js';
import type { Signal } from './signals.js';
import { activeSilences } from './silences.js';

const SEP = '\u001f';

function distinct<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}

/**
 * Reads the batch's starting state in at most four statements. The open incidents of the batch's
 * keys are locked (FOR UPDATE, in id order) and so are the suppressed incidents a recovery may
 * release (SKIP LOCKED: one another transaction holds is left to the background release pass,
 * as the per-signal release does). The caller already holds the keys' advisory locks, so no
 * other signal can open or change an incident of these keys before the batch commits.
 */
export async function loadBatchState(q: Queryable, orgId: string, signals: Signal[], now: Date): Promise<BatchState> {
  const keys = distinct(signals, (s) => s.sourceType + SEP + s.sourceId + SEP + s.notificationKind);
  const { rows: openRows } = await q.query<AlertRow>(
    `SELECT ${alertColumns('a')} FROM alerts a
       JOIN unnest($2::text[], $3::text[], $4::text[]) AS k(source_type, source_id, notification_kind)
         ON a.source_type = k.source_type AND a.source_id = k.source_id AND a.notification_kind = k.notification_kind
      WHERE a.org_id = $1 AND a.status = 'open'
      ORDER BY a.id FOR UPDATE OF a`,
    [orgId, keys.map((k) => k.sourceType), keys.map((k) => k.sourceId), keys.map((k) => k.notificationKind)],
  );

  const causes = distinct(
    signals.flatMap((s) => (s.kind === 'failure' ? s.causes : [])),
    (c) => c.sourceType + SEP + c.sourceId,
  );
  let openCauses: OpenIncidentRef[] = [];
  if (causes.length > 0) {
    ({ rows: openCauses } = await q.query<OpenIncidentRef>(
      `SELECT a.id, a.source_type, a.source_id, a.notification_kind FROM alerts a
         JOIN unnest($2::text[], $3::text[]) AS c(source_type, source_id)
           ON a.source_type = c.source_type AND a.source_id = c.source_id
        WHERE a.org_id = $1 AND a.status = 'open'`,
      [orgId, causes.map((c) => c.sourceType), causes.map((c) => c.sourceId)],
    ));
  }

  // Only an incident open before the batch can be a cause of one that is not in the batch.
  const recovering = new Set(signals.filter((s) => s.kind === 'recovery').map((s) => s.sourceType + SEP + s.sourceId + SEP + s.notificationKind));
  const resolvable = openRows.filter((r) => recovering.has(r.source_type + SEP + r.source_id + SEP + r.notification_kind)).map((r) => r.id);
  let dependents: BatchState['dependents'] = [];
  if (resolvable.length > 0) {
    const { rows } = await q.query<AlertRow & { open_cause_ids: string[] }>(
      `SELECT ${alertColumns('a')},
              ARRAY(SELECT c.id FROM alerts c WHERE c.id = ANY(a.cause_alert_ids) AND c.status = 'open') AS open_cause_ids
         FROM alerts a
        WHERE a.org_id = $1 AND a.status = 'open' AND a.suppressed AND a.cause_alert_ids && $2::text[]
        ORDER BY a.id FOR UPDATE OF a SKIP LOCKED`,
      [orgId, resolvable],
    );
    dependents = rows.map(({ open_cause_ids, ...row }) => ({ row, openCauseIds: open_cause_ids }));
  }

  // Active silences are read once per batch and matched in memory.
  return { openRows, openCauses, dependents, silences: await activeSilences(q, orgId, now) };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Writes the plan: one UPDATE of the incidents that existed (first, so a key the batch recovers
 * and then fails again has no open incident left when its new one is inserted), one INSERT of
 * the new incidents, then the events and their deliveries (recordEvents).
 */
/** Runs on the ids of the incidents a batch inserted, before their events are recorded. */
export type OpenedHook = (q: Queryable, alertIds: string[]) => Promise<void>;

export async function writeBatchPlan(q: Queryable, orgId: string, plan: BatchPlan, now: Date, onOpened?: OpenedHook): Promise<void> {
  const upd = plan.updates;
  if (upd.length > 0) {
    // Relative to the stored row (count added, later occurrence, resolve time against the stored
    // created_at), so the stored values keep their full precision as the per-signal UPDATEs did.
    const { rowCount } = await q.query(
      `UPDATE alerts a SET
          failure_count = a.failure_count + u.added,
          last_occurrence_at = CASE WHEN u.last_occ IS NULL THEN a.last_occurrence_at ELSE GREATEST(a.last_occurrence_at, u.last_occ) END,
          status = CASE WHEN u.recovered IS NULL THEN a.status ELSE 'resolved' END,
          resolved_at = CASE WHEN u.recovered IS NULL THEN a.resolved_at ELSE GREATEST(u.recovered, a.created_at) END,
          suppressed = a.suppressed AND u.released IS NULL,
          released_at = COALESCE(u.released, a.released_at),
          message = COALESCE(u.message, a.message),
          updated_at = $2
         FROM unnest($3::text[], $4::int[], $5::timestamptz[], $6::timestamptz[], $7::timestamptz[], $8::text[]) AS u(id, added, last_occ, recovered, released, message)
        WHERE a.id = u.id AND a.org_id = $1 AND a.status = 'open'`,
      [
        orgId, now, upd.map((u) => u.id), upd.map((u) => u.addedFailures), upd.map((u) => iso(u.lastOccurrence)),
        upd.map((u) => iso(u.recoveredAt)), upd.map((u) => iso(u.releasedAt)), upd.map((u) => u.message),
      ],
    );
    if (rowCount !== upd.length) throw staleBatchError();
  }

  const ins = plan.inserts;
  if (ins.length > 0) {
    // The rows in their final state (an incident opened and resolved by the same batch is
    // inserted resolved). cause_alert_ids are sorted by the database, in its collation, as
    // the per-signal lookup's ORDER BY did. DO NOTHING + the count check: the advisory locks
    // make a conflict impossible, so one means the plan is stale and the transaction retries.
    const { rowCount } = await q.query(
      `INSERT INTO alerts (id, org_id, source_type, source_id, source_name, notification_kind, severity, title, message,
          workspace_name, capacity_name, status, acknowledged, created_at, resolved_at, failure_count, last_occurrence_at,
          silenced, silence_id, silence_reason, correlated, cause_alert_ids, suppressed, released_at, updated_at)
       SELECT r.id, $1, r.st, r.sid, r.sname, r.nk, r.sev, r.title, r.msg, r.ws, r.cap, r.status, false, r.created,
              r.resolved, r.failures, r.last_occ, r.silence IS NOT NULL OR r.reason IS NOT NULL, r.silence, r.reason, r.causes <> '',
              ARRAY(SELECT x FROM unnest(string_to_array(r.causes, chr(31))) AS x ORDER BY x), r.suppressed, r.released, $2::timestamptz
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                     $11::text[], $12::text[], $13::text[], $14::timestamptz[], $15::timestamptz[], $16::int[],
                     $17::timestamptz[], $18::text[], $19::text[], $20::boolean[], $21::timestamptz[], $22::text[])
              WITH ORDINALITY AS r(id, st, sid, sname, nk, sev, title, msg, ws, cap, status, created, resolved, failures,
                                   last_occ, silence, causes, suppressed, released, reason, n)
        ORDER BY r.n
       ON CONFLICT (org_id, source_type, source_id, notification_kind) WHERE status = 'open' DO NOTHING`,
      [
        orgId, now,
        ins.map((r) => r.id), ins.map((r) => r.source_type), ins.map((r) => r.source_id), ins.map((r) => r.source_name),
        ins.map((r) => r.notification_kind), ins.map((r) => r.severity), ins.map((r) => r.title), ins.map((r) => r.message),
        ins.map((r) => r.workspace_name), ins.map((r) => r.capacity_name), ins.map((r) => r.status),
        ins.map((r) => r.created_at.toISOString()), ins.map((r) => iso(r.resolved_at)), ins.map((r) => r.failure_count),
        ins.map((r) => r.last_occurrence_at.toISOString()), ins.map((r) => r.silence_id), ins.map((r) => r.cause_alert_ids.join(SEP)),
        ins.map((r) => r.suppressed), ins.map((r) => iso(r.released_at)), ins.map((r) => r.silence_reason),
      ],
    );
    if (rowCount !== ins.length) throw staleBatchError();
    if (onOpened) await onOpened(q, ins.map((r) => r.id));
  }

  await recordEvents(q, plan.events);
}

/**
 * The batch's starting state changed under it (it cannot while the locks are held): a
 * serialization failure, so txWithRetry runs the batch again from a fresh read.
 */
function staleBatchError(): Error {
  return Object.assign(new Error('signal batch: the incidents changed while the batch was applied'), { code: '40001' });
}

/**
 * The effect of a batch of signals, worked out in memory from the state the batch starts from
 * (batch-state.ts loads it, batch-write.ts writes the result in a few statements). Signals apply
 * in array order exactly as if each ran alone, one after the other: the same outcomes, the same
 * rows and the same events in the same order. Holding the batch's keys (advisory locks) and
 * their open rows (row locks) for the whole transaction is what makes the in-memory state the
 * true state between two signals.
 */
import { newId } from '../ids.js';
import type { EventInput } from './events.js';
import type { AlertRow } from './rows.js';
import type { Signal } from './signals.js';
import { matchSilence, type ActiveSilence } from './silences.js';
import { toAlertSnapshot } from './snapshot.js';

export interface SignalOutcome {
  alertId: string | null;
  outcome: 'opened' | 'reoccurred' | 'recovered' | 'ignored';
  silenced: boolean;
  correlated: boolean;
}

/** An open incident of a cause's source, seen when the batch starts. */
export interface OpenIncidentRef {
  id: string;
  source_type: string;
  source_id: string;
  notification_kind: string;
}

/** What the batch starts from. Every row the batch may change is here, locked by the caller. */
export interface BatchState {
  /** The open incident of each key of the batch that has one. */
  openRows: AlertRow[];
  /** Open incidents of every cause named by the batch's failures (any notification kind). */
  openCauses: OpenIncidentRef[];
  /**
   * Suppressed open incidents that name an incident the batch may resolve among their causes,
   * each with the ids of its causes that were open when the batch started.
   */
  dependents: Array<{ row: AlertRow; openCauseIds: string[] }>;
  silences: ActiveSilence[];
}

/** A changed pre-existing incident: what its row's UPDATE needs (relative to the stored row). */
export interface IncidentUpdate {
  id: string;
  addedFailures: number;
  /** Latest occurredAt of the batch's failures for it, or null. */
  lastOccurrence: Date | null;
  /** The recovery's occurredAt (resolved_at is the later of it and created_at), or null. */
  recoveredAt: Date | null;
  /** Set when the batch released it. */
  releasedAt: Date | null;
}

export interface BatchPlan {
  outcomes: SignalOutcome[];
  /** Incidents the batch opened, in opening order, in their final state. */
  inserts: AlertRow[];
  updates: IncidentUpdate[];
  /** Events in the order the signals emitted them. */
  events: EventInput[];
}

type Tracked = { row: AlertRow; existing: boolean; update: IncidentUpdate | null };

const SEP = '\u001f';
const keyOf = (k: { source_type: string; source_id: string; notification_kind: string }) =>
  k.source_type + SEP + k.source_id + SEP + k.notification_kind;
const sourceOf = (sourceType: string, sourceId: string) => sourceType + SEP + sourceId;
const signalKey = (s: Signal) => s.sourceType + SEP + s.sourceId + SEP + s.notificationKind;
const later = (a: Date, b: Date) => (b.getTime() > a.getTime() ? b : a);

/**
 * `quietReason`: every incident the batch opens is silenced with this reason (a tenant's first
 * pass, "found at connection"). Such an incident is never released: it stays quiet until it
 * resolves, and a later failure of its key opens a new incident that pages as usual.
 */
export function planSignalBatch(orgId: string, signals: Signal[], state: BatchState, now: Date, baseUrl: string, quietReason: string | null = null): BatchPlan {
  const tracked = new Map<string, Tracked>();
  const openByKey = new Map<string, Tracked>();
  /** Open incidents by (sourceType, sourceId): id → notification kind. Exact for every cause's source. */
  const openBySource = new Map<string, Map<string, string>>();
  /** Open incidents not tracked here (causes outside the batch): open for the whole batch. */
  const untrackedOpen = new Set<string>();
  /** Suppressed incidents by the cause ids they wait on. */
  const waitingOn = new Map<string, Tracked[]>();

  const addOpenSource = (r: OpenIncidentRef) => {
    const k = sourceOf(r.source_type, r.source_id);
    const m = openBySource.get(k) ?? new Map<string, string>();
    openBySource.set(k, m);
    m.set(r.id, r.notification_kind);
  };
  const track = (row: AlertRow, existing: boolean): Tracked => {
    const known = tracked.get(row.id);
    if (known) return known;
    const t: Tracked = { row: { ...row }, existing, update: null };
    tracked.set(row.id, t);
    if (row.status === 'open') {
      addOpenSource(row);
      if (row.suppressed) {
        for (const c of row.cause_alert_ids) {
          const list = waitingOn.get(c);
          if (list) list.push(t);
          else waitingOn.set(c, [t]);
        }
      }
    }
    return t;
  };
  const updateOf = (t: Tracked): IncidentUpdate | null => {
    if (!t.existing) return null;
    if (!t.update) t.update = { id: t.row.id, addedFailures: 0, lastOccurrence: null, recoveredAt: null, releasedAt: null };
    return t.update;
  };
  const isOpen = (id: string) => {
    const t = tracked.get(id);
    return t ? t.row.status === 'open' : untrackedOpen.has(id);
  };

  for (const r of state.openRows) openByKey.set(keyOf(r), track(r, true));
  for (const d of state.dependents) {
    track(d.row, true);
    for (const c of d.openCauseIds) untrackedOpen.add(c);
  }
  for (const c of state.openCauses) {
    untrackedOpen.add(c.id);
    addOpenSource(c);
  }

  const outcomes: SignalOutcome[] = [];
  const inserts: Tracked[] = [];
  const events: EventInput[] = [];
  const emit = (row: AlertRow, event: EventInput['event'], occurredAt: Date) => {
    if (row.suppressed) return;
    events.push({ orgId, alertId: row.id, event, occurredAt, snapshot: toAlertSnapshot(row, baseUrl), now });
  };

  /** Open incidents of the causes' sources, any notification kind, never the signal's own key. */
  const openCauseIds = (s: Signal): string[] => {
    const ids = new Set<string>();
    for (const c of s.causes) {
      for (const [id, kind] of openBySource.get(sourceOf(c.sourceType, c.sourceId)) ?? []) {
        if (c.sourceType === s.sourceType && c.sourceId === s.sourceId && kind === s.notificationKind) continue;
        ids.add(id);
      }
    }
    return [...ids];
  };

  const release = (causeId: string) => {
    const due = (waitingOn.get(causeId) ?? []).filter(
      (t) =>
        t.row.status === 'open' &&
        t.row.suppressed &&
        t.row.silence_reason === null &&
        matchSilence(state.silences, { sourceType: t.row.source_type, sourceId: t.row.source_id, notificationKind: t.row.notification_kind }) === null &&
        !t.row.cause_alert_ids.some(isOpen),
    );
    // Released incidents emit in id order (code-unit order, as the release pass sorts them).
    due.sort((x, y) => (x.row.id < y.row.id ? -1 : 1));
    for (const t of due) {
      t.row.suppressed = false;
      t.row.released_at = now;
      t.row.updated_at = now;
      const u = updateOf(t);
      if (u) u.releasedAt = now;
      emit(t.row, 'alert.opened', now);
    }
  };

  for (const s of signals) {
    const key = signalKey(s);
    const open = openByKey.get(key);
    if (s.kind === 'failure') {
      if (open) {
        const r = open.row;
        r.failure_count += 1;
        r.last_occurrence_at = later(r.last_occurrence_at, s.occurredAt);
        r.updated_at = now;
        const u = updateOf(open);
        if (u) {
          u.addedFailures += 1;
          u.lastOccurrence = u.lastOccurrence ? later(u.lastOccurrence, s.occurredAt) : s.occurredAt;
        }
        outcomes.push({ alertId: r.id, outcome: 'reoccurred', silenced: r.silenced, correlated: r.correlated });
        continue;
      }
      const silence = matchSilence(state.silences, s);
      const causeIds = openCauseIds(s);
      const row: AlertRow = {
        id: newId('alr', now),
        org_id: orgId,
        source_type: s.sourceType,
        source_id: s.sourceId,
        source_name: s.sourceName,
        notification_kind: s.notificationKind,
        severity: s.severity,
        title: s.title,
        message: s.message,
        workspace_name: s.workspaceName,
        capacity_name: s.capacityName,
        status: 'open',
        acknowledged: false,
        acknowledged_at: null,
        acknowledged_by: null,
        created_at: s.occurredAt,
        resolved_at: null,
        failure_count: 1,
        last_occurrence_at: s.occurredAt,
        silenced: silence !== null || quietReason !== null,
        silence_id: silence,
        silence_reason: quietReason,
        correlated: causeIds.length > 0,
        cause_alert_ids: causeIds,
        suppressed: silence !== null || quietReason !== null || causeIds.length > 0,
        released_at: null,
        escalated_at: null,
        updated_at: now,
      };
      const t = track(row, false);
      inserts.push(t);
      openByKey.set(key, t);
      emit(t.row, 'alert.opened', s.occurredAt);
      outcomes.push({ alertId: row.id, outcome: 'opened', silenced: row.silenced, correlated: row.correlated });
      continue;
    }
    if (!open) {
      outcomes.push({ alertId: null, outcome: 'ignored', silenced: false, correlated: false });
      continue;
    }
    const r = open.row;
    r.status = 'resolved';
    r.resolved_at = later(s.occurredAt, r.created_at);
    r.updated_at = now;
    const u = updateOf(open);
    if (u) u.recoveredAt = s.occurredAt;
    openByKey.delete(key);
    openBySource.get(sourceOf(r.source_type, r.source_id))?.delete(r.id);
    emit(r, 'alert.recovered', r.resolved_at);
    release(r.id);
    outcomes.push({ alertId: r.id, outcome: 'recovered', silenced: r.silenced, correlated: r.correlated });
  }

  return {
    outcomes,
    inserts: inserts.map((t) => t.row),
    updates: [...tracked.values()].flatMap((t) => (t.update ? [t.update] : [])),
    events,
  };
}

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
  /** The new message, when a reoccurrence restated it (Signal.restatesMessage); null keeps the stored one. */
  message: string | null;
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
  const planner = new BatchPlanner(orgId, state, now, baseUrl, quietReason);
  for (const s of signals) planner.apply(s);
  return planner.plan();
}

/** The batch's in-memory state between two signals, and what each kind of signal does to it. */
class BatchPlanner {
  private readonly tracked = new Map<string, Tracked>();
  private readonly openByKey = new Map<string, Tracked>();
  /** Open incidents by (sourceType, sourceId): id → notification kind. Exact for every cause's source. */
  private readonly openBySource = new Map<string, Map<string, string>>();
  /** Open incidents not tracked here (causes outside the batch): open for the whole batch. */
  private readonly untrackedOpen = new Set<string>();
  /** Suppressed incidents by the cause ids they wait on. */
  private readonly waitingOn = new Map<string, Tracked[]>();
  private readonly outcomes: SignalOutcome[] = [];
  private readonly inserts: Tracked[] = [];
  private readonly events: EventInput[] = [];

  constructor(
    private readonly orgId: string,
    private readonly state: BatchState,
    private readonly now: Date,
    private readonly baseUrl: string,
    private readonly quietReason: string | null,
  ) {
    for (const r of state.openRows) this.openByKey.set(keyOf(r), this.track(r, true));
    for (const d of state.dependents) {
      this.track(d.row, true);
      for (const c of d.openCauseIds) this.untrackedOpen.add(c);
    }
    for (const c of state.openCauses) {
      this.untrackedOpen.add(c.id);
      this.addOpenSource(c);
    }
  }

  apply(s: Signal): void {
    const key = signalKey(s);
    const open = this.openByKey.get(key);
    if (s.kind === 'failure') {
      if (open) this.reoccur(open, s);
      else this.open(key, s);
    } else if (open) this.recover(key, open, s);
    else this.outcomes.push({ alertId: null, outcome: 'ignored', silenced: false, correlated: false });
  }

  plan(): BatchPlan {
    return {
      outcomes: this.outcomes,
      inserts: this.inserts.map((t) => t.row),
      updates: [...this.tracked.values()].flatMap((t) => (t.update ? [t.update] : [])),
      events: this.events,
    };
  }

  private reoccur(open: Tracked, s: Signal): void {
    const r = open.row;
    r.failure_count += 1;
    r.last_occurrence_at = later(r.last_occurrence_at, s.occurredAt);
    r.updated_at = this.now;
    if (s.restatesMessage) r.message = s.message;
    const u = this.updateOf(open);
    if (u) {
      u.addedFailures += 1;
      u.lastOccurrence = u.lastOccurrence ? later(u.lastOccurrence, s.occurredAt) : s.occurredAt;
      if (s.restatesMessage) u.message = s.message;
    }
    this.outcomes.push({ alertId: r.id, outcome: 'reoccurred', silenced: r.silenced, correlated: r.correlated });
  }

  private open(key: string, s: Signal): void {
    const silence = matchSilence(this.state.silences, s);
    const causeIds = this.openCauseIds(s);
    const quiet = silence !== null || this.quietReason !== null;
    const row: AlertRow = {
      id: newId('alr', this.now),
      org_id: this.orgId,
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
      silenced: quiet,
      silence_id: silence,
      silence_reason: this.quietReason,
      correlated: causeIds.length > 0,
      cause_alert_ids: causeIds,
      suppressed: quiet || causeIds.length > 0,
      released_at: null,
      escalated_at: null,
      updated_at: this.now,
    };
    const t = this.track(row, false);
    this.inserts.push(t);
    this.openByKey.set(key, t);
    this.emit(t.row, 'alert.opened', s.occurredAt);
    this.outcomes.push({ alertId: row.id, outcome: 'opened', silenced: row.silenced, correlated: row.correlated });
  }

  private recover(key: string, open: Tracked, s: Signal): void {
    const r = open.row;
    r.status = 'resolved';
    r.resolved_at = later(s.occurredAt, r.created_at);
    r.updated_at = this.now;
    const u = this.updateOf(open);
    if (u) u.recoveredAt = s.occurredAt;
    this.openByKey.delete(key);
    this.openBySource.get(sourceOf(r.source_type, r.source_id))?.delete(r.id);
    this.emit(r, 'alert.recovered', r.resolved_at);
    this.release(r.id);
    this.outcomes.push({ alertId: r.id, outcome: 'recovered', silenced: r.silenced, correlated: r.correlated });
  }

  private addOpenSource(r: OpenIncidentRef): void {
    const k = sourceOf(r.source_type, r.source_id);
    const m = this.openBySource.get(k) ?? new Map<string, string>();
    this.openBySource.set(k, m);
    m.set(r.id, r.notification_kind);
  }

  private track(row: AlertRow, existing: boolean): Tracked {
    const known = this.tracked.get(row.id);
    if (known) return known;
    const t: Tracked = { row: { ...row }, existing, update: null };
    this.tracked.set(row.id, t);
    if (row.status === 'open') {
      this.addOpenSource(row);
      if (row.suppressed) {
        for (const c of row.cause_alert_ids) {
          const list = this.waitingOn.get(c);
          if (list) list.push(t);
          else this.waitingOn.set(c, [t]);
        }
      }
    }
    return t;
  }

  private updateOf(t: Tracked): IncidentUpdate | null {
    if (!t.existing) return null;
    if (!t.update) t.update = { id: t.row.id, addedFailures: 0, lastOccurrence: null, recoveredAt: null, releasedAt: null, message: null };
    return t.update;
  }

  private isOpen(id: string): boolean {
    const t = this.tracked.get(id);
    return t ? t.row.status === 'open' : this.untrackedOpen.has(id);
  }

  private emit(row: AlertRow, event: EventInput['event'], occurredAt: Date): void {
    if (row.suppressed) return;
    this.events.push({ orgId: this.orgId, alertId: row.id, event, occurredAt, snapshot: toAlertSnapshot(row, this.baseUrl), now: this.now });
  }

  /** Open incidents of the causes' sources, any notification kind, never the signal's own key. */
  private openCauseIds(s: Signal): string[] {
    const ids = new Set<string>();
    for (const c of s.causes) {
      for (const [id, kind] of this.openBySource.get(sourceOf(c.sourceType, c.sourceId)) ?? []) {
        if (c.sourceType === s.sourceType && c.sourceId === s.sourceId && kind === s.notificationKind) continue;
        ids.add(id);
      }
    }
    return [...ids];
  }

  /** Releases the suppressed incidents that waited on `causeId` and have no other open cause. */
  private release(causeId: string): void {
    const due = (this.waitingOn.get(causeId) ?? []).filter(
      (t) =>
        t.row.status === 'open' &&
        t.row.suppressed &&
        t.row.silence_reason === null &&
        matchSilence(this.state.silences, { sourceType: t.row.source_type, sourceId: t.row.source_id, notificationKind: t.row.notification_kind }) === null &&
        !t.row.cause_alert_ids.some((id) => this.isOpen(id)),
    );
    // Released incidents emit in id order (code-unit order, as the release pass sorts them).
    due.sort((x, y) => (x.row.id < y.row.id ? -1 : 1));
    for (const t of due) {
      t.row.suppressed = false;
      t.row.released_at = this.now;
      t.row.updated_at = this.now;
      const u = this.updateOf(t);
      if (u) u.releasedAt = this.now;
      this.emit(t.row, 'alert.opened', this.now);
    }
  }
}

/**
 * A starved collector says so. A collector that reads resources one by one reports, per run, how
 * many it read (`polled`) and how many that were due it left for a later run (`deferred`). One
 * that keeps leaving due resources unread — three runs in a row, or for longer than twice its
 * effective interval (the one its budget can honour: RunProgress.effectiveIntervalSeconds) — raises the self-incident `Tenant` / `CollectorBehind` (info, naming the collector);
 * the incident recovers when no collector of the tenant is behind any more. A failed run changes
 * nothing here: its error is the collector's `lastError` and the other self-watch problems.
 */
import type { SignalInput } from '../../alerts/signals.js';
import type { Texts } from '../messages/fixes.js';
import { collectorBehindTitle } from '../messages/titles.js';

export const COLLECTOR_BEHIND = 'CollectorBehind';

/** What a run read, and the due resources it left for a later run. */
export interface RunProgress {
  polled: number;
  deferred: number;
  /**
   * The interval the collector's budget can honour, when it is longer than the one asked for:
   * the next run is that far away, and being behind is measured against it.
   */
  effectiveIntervalSeconds?: number;
  /** Rows the platform served that the run skipped as unbelievable (engine/rejected-rows.ts), and why. */
  rejected?: number;
  rejectedNote?: string | null;
}

/** A reported progress made whole: counts are whole and not negative, the note bounded. */
export function cleanProgress(p: RunProgress): RunProgress {
  const n = (v: number | undefined) => Math.max(0, Math.floor(Number(v) || 0));
  return { polled: n(p.polled), deferred: n(p.deferred), rejected: n(p.rejected), rejectedNote: p.rejectedNote ? String(p.rejectedNote).slice(0, 1000) : null, effectiveIntervalSeconds: p.effectiveIntervalSeconds };
}

export interface BehindState {
  /** Start of the first run of the current streak that left due resources unread. */
  since: Date | null;
  /** Runs in a row that left due resources unread. */
  runs: number;
  /** The CollectorBehind incident was raised for this streak. */
  reported: boolean;
}

/** Runs in a row that leave due resources unread before the incident opens. */
export const BEHIND_RUNS = 3;

export interface BehindStep {
  next: BehindState;
  /** Open (or reoccur) the incident now. */
  raise: boolean;
  /** This collector caught up after it had raised the incident. */
  caughtUp: boolean;
}

export function behindStep(prev: BehindState, progress: RunProgress | null, failed: boolean, startedAt: Date, end: Date, intervalSeconds: number): BehindStep {
  if (failed || progress === null) return { next: prev, raise: false, caughtUp: false };
  if (progress.deferred <= 0) return { next: { since: null, runs: 0, reported: false }, raise: false, caughtUp: prev.reported };
  const since = prev.since ?? startedAt;
  const runs = prev.runs + 1;
  const late = runs >= BEHIND_RUNS || end.getTime() - new Date(since).getTime() > 2 * intervalSeconds * 1000;
  const raise = late && !prev.reported;
  return { next: { since, runs, reported: prev.reported || raise }, raise, caughtUp: false };
}

export function collectorBehindSignal(kind: 'failure' | 'recovery', collector: string, tenant: { id: string; name: string }, detail: string | Texts, occurredAt: Date): SignalInput {
  return {
    sourceType: 'Tenant',
    sourceId: tenant.id,
    sourceName: tenant.name,
    kind,
    notificationKind: COLLECTOR_BEHIND,
    severity: 'info',
    title: collectorBehindTitle(kind, collector, tenant.name),
    message: detail,
    occurredAt,
  };
}

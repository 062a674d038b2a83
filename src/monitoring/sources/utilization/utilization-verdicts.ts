/**
 * What a capacity's 30-second windows mean for its incidents. Pure: remembered state and new
 * windows in, signals and new state out.
 *
 * - `CapacityThrottled` (error) opens when a window's interactive delay (next 10 min), interactive
 *   rejection (next hour) or background rejection (next 24 h) figure passes 100 %, and again
 *   (a reoccurrence) when it reaches a worse stage while open.
 * - `CapacityHighUtilization` (info) opens when the 10-minute figure passes `warnPercent`.
 * - Each recovers only after `recoverWindows` consecutive windows below its threshold: a missing
 *   window (lost event, idle or paused capacity) is not a calm one, so it neither counts nor
 *   resets the count.
 * - A window at or before the last one judged is a duplicate or came late: stored, not judged.
 * - A window over 500 % is the spike the platform writes when a capacity is paused (everything
 *   still owed lands in one window): not judged.
 * - A pause (State `Suspended`/`Deleted`) bills the carry-forward: both incidents recover.
 */
import type { SignalInput } from '../../../alerts/signals.js';
import type { Texts } from '../../messages/fixes.js';
import * as T from '../../messages/titles.js';
import type { CapacityThresholds } from '../../connection/utilization-settings.js';
import type { StateChangeEvent, WindowFigures } from './utilization-events.js';

import { THROTTLED_KIND } from '../../lineage/root-causes.js';

export { THROTTLED_KIND };
export const HIGH_UTILIZATION_KIND = 'CapacityHighUtilization';
export const PAUSE_SPIKE_PERCENT = 500;

export type Stage = 'interactiveDelay' | 'interactiveRejection' | 'backgroundRejection';
const RANK: Record<Stage, number> = { interactiveDelay: 1, interactiveRejection: 2, backgroundRejection: 3 };

export interface CapacityMemory {
  name: string;
  /** Start (ISO) of the last window judged. */
  lastWindow: string | null;
  /** The open CapacityThrottled incident's worst stage, or null. */
  stage: Stage | null;
  high: boolean;
  calmThrottled: number;
  calmHigh: number;
}

export const freshMemory = (name: string): CapacityMemory => ({ name, lastWindow: null, stage: null, high: false, calmThrottled: 0, calmHigh: 0 });

export function stageOf(w: Pick<WindowFigures, 'delayPct' | 'interactiveRejectionPct' | 'backgroundRejectionPct'>): Stage | null {
  if (w.backgroundRejectionPct > 100) return 'backgroundRejection';
  if (w.interactiveRejectionPct > 100) return 'interactiveRejection';
  if (w.delayPct > 100) return 'interactiveDelay';
  return null;
}

/** Expected minutes until the carry-forward is paid, at the window's utilization (or idle, when it is at or over 100 %). */
export function burnDownMinutes(w: WindowFigures): { minutes: number; assumption: 'current' | 'idle' } {
  const budget = w.baseCu * 30_000;
  if (budget <= 0 || w.carryForwardCuMs <= 0) return { minutes: 0, assumption: 'current' };
  const spare = budget - w.capacityUnitMs;
  if (spare > 0) return { minutes: (w.carryForwardCuMs / spare) * 0.5, assumption: 'current' };
  return { minutes: (w.carryForwardCuMs / budget) * 0.5, assumption: 'idle' };
}

export interface Judged {
  memory: CapacityMemory;
  signals: SignalInput[];
  /** Windows that opened or worsened a CapacityThrottled incident (their culprits are looked up). */
  throttledAt: WindowFigures[];
}

function base(id: string, name: string) {
  return { sourceType: 'Capacity', sourceId: id, sourceName: name, capacityName: name };
}

/**
 * The high-utilization warning is a source of its own beside the capacity: a failure correlated
 * to the capacity (root-causes.ts) waits on every open incident of its source, and a warning at
 * 80 % must not hold a refresh failure back once the throttling that caused it is over.
 */
export const highUtilizationSourceId = (capacityId: string) => `${capacityId}/load`;

function highBase(id: string, name: string) {
  return { ...base(highUtilizationSourceId(id), name) };
}

/** The throttling incident's message in every language; `culprits` says what used the most, when known. */
export function throttledMessage(w: WindowFigures, stage: Stage, culprits: Texts | null): Texts {
  const figurePct = stage === 'backgroundRejection' ? w.backgroundRejectionPct : stage === 'interactiveRejection' ? w.interactiveRejectionPct : w.delayPct;
  const carryMinutes = w.baseCu > 0 ? w.carryForwardCuMs / (w.baseCu * 1000) / 60 : 0;
  return T.capacityThrottledMessage({ capacityName: w.capacityName, sku: w.sku, figurePct, utilizationPct: w.utilizationPct, carryForwardCuMs: w.carryForwardCuMs, carryMinutes, burn: burnDownMinutes(w) }, stage, culprits);
}

/** Judges a capacity's new windows and state changes, in time order. */
export function judgeCapacity(id: string, prev: CapacityMemory, windows: WindowFigures[], states: StateChangeEvent[], t: CapacityThresholds): Judged {
  const m: CapacityMemory = { ...prev };
  const signals: SignalInput[] = [];
  const throttledAt: WindowFigures[] = [];
  type Step = { at: number; window?: WindowFigures; state?: StateChangeEvent };
  const steps: Step[] = [
    ...windows.map((w) => ({ at: w.windowStart.getTime() + 30_000, window: w })),
    ...states.map((s) => ({ at: s.at.getTime(), state: s })),
  ].sort((a, b) => a.at - b.at);
  for (const step of steps) {
    if (step.state) {
      const s = step.state;
      if (s.state === 'Suspended' || s.state === 'Deleted' || s.state === 'Paused') {
        const at = s.at;
        if (m.stage) signals.push({ ...base(id, m.name), notificationKind: THROTTLED_KIND, severity: 'error', kind: 'recovery', occurredAt: at, ...T.capacityPaused(m.name, s.reason, true) });
        if (m.high) signals.push({ ...highBase(id, m.name), notificationKind: HIGH_UTILIZATION_KIND, severity: 'info', kind: 'recovery', occurredAt: at, ...T.capacityPaused(m.name, s.reason, false) });
        Object.assign(m, { stage: null, high: false, calmThrottled: 0, calmHigh: 0 });
      }
      continue;
    }
    const w = step.window!;
    if (m.lastWindow && w.windowStart.toISOString() <= m.lastWindow) continue;
    m.lastWindow = w.windowStart.toISOString();
    m.name = w.capacityName;
    if (w.utilizationPct > PAUSE_SPIKE_PERCENT) continue;
    const at = new Date(w.windowStart.getTime() + 30_000);
    const stage = stageOf(w);
    if (stage) {
      m.calmThrottled = 0;
      if (!m.stage || RANK[stage] > RANK[m.stage]) {
        m.stage = stage;
        throttledAt.push(w);
        signals.push({ ...base(id, w.capacityName), notificationKind: THROTTLED_KIND, severity: 'error', kind: 'failure', occurredAt: at, title: T.capacityThrottledTitle(w.capacityName, stage), message: throttledMessage(w, stage, null) });
      }
    } else if (m.stage) {
      m.calmThrottled++;
      if (m.calmThrottled >= t.recoverWindows) {
        signals.push({ ...base(id, w.capacityName), notificationKind: THROTTLED_KIND, severity: 'error', kind: 'recovery', occurredAt: at, ...T.capacityThrottleEnded(w.capacityName, t.recoverWindows, w.delayPct, w.interactiveRejectionPct, w.backgroundRejectionPct) });
        m.stage = null;
        m.calmThrottled = 0;
      }
    }
    if (w.delayPct > t.warnPercent) {
      m.calmHigh = 0;
      if (!m.high) {
        m.high = true;
        signals.push({ ...highBase(id, w.capacityName), notificationKind: HIGH_UTILIZATION_KIND, severity: 'info', kind: 'failure', occurredAt: at, ...T.capacityHighUtilization(w.capacityName, w.sku, w.delayPct, t.warnPercent) });
      }
    } else if (m.high) {
      m.calmHigh++;
      if (m.calmHigh >= t.recoverWindows) {
        signals.push({ ...highBase(id, w.capacityName), notificationKind: HIGH_UTILIZATION_KIND, severity: 'info', kind: 'recovery', occurredAt: at, ...T.capacityHighUtilizationEnded(w.capacityName, t.recoverWindows, w.delayPct, t.warnPercent) });
        m.high = false;
        m.calmHigh = 0;
      }
    }
  }
  return { memory: m, signals, throttledAt };
}

/** Open incidents of a capacity no longer watched recover. */
export function releaseSignals(id: string, m: CapacityMemory, now: Date): SignalInput[] {
  const out: SignalInput[] = [];
  const msg = T.capacityNoLongerWatched(m.name);
  if (m.stage) out.push({ ...base(id, m.name), notificationKind: THROTTLED_KIND, severity: 'error', kind: 'recovery', occurredAt: now, ...msg });
  if (m.high) out.push({ ...highBase(id, m.name), notificationKind: HIGH_UTILIZATION_KIND, severity: 'info', kind: 'recovery', occurredAt: now, ...msg });
  return out;
}

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
import type { SignalInput } from '../../alerts/signals.js';
import type { CapacityThresholds } from '../utilization-settings.js';
import type { StateChangeEvent, WindowFigures } from './utilization-events.js';

export const THROTTLED_KIND = 'CapacityThrottled';
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

const STAGE_PT: Record<Stage, { name: string; figure: string; effect: string }> = {
  interactiveDelay: { name: 'atraso interativo', figure: 'uso já comprometido dos próximos 10 min', effect: 'novas consultas interativas esperam 20 s' },
  interactiveRejection: { name: 'rejeição interativa', figure: 'uso já comprometido da próxima 1 h', effect: 'novas consultas interativas são rejeitadas' },
  backgroundRejection: { name: 'rejeição em segundo plano', figure: 'uso já comprometido das próximas 24 h', effect: 'tudo o que é novo é rejeitado, inclusive atualizações, pipelines e notebooks' },
};

const pct = (n: number) => `${Math.round(n).toLocaleString('pt-BR')} %`;
const minutes = (m: number) => (m < 1 ? 'menos de 1 min' : m < 90 ? `${Math.round(m)} min` : `${(m / 60).toLocaleString('pt-BR', { maximumFractionDigits: 1 })} h`);

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

export function throttledMessage(w: WindowFigures, stage: Stage, culprits: string): string {
  const s = STAGE_PT[stage];
  const figure = stage === 'backgroundRejection' ? w.backgroundRejectionPct : stage === 'interactiveRejection' ? w.interactiveRejectionPct : w.delayPct;
  const carryMin = w.baseCu > 0 ? w.carryForwardCuMs / (w.baseCu * 1000) / 60 : 0;
  const burn = burnDownMinutes(w);
  const burnText =
    w.carryForwardCuMs <= 0
      ? 'Sem carry-forward acumulado.'
      : burn.assumption === 'current'
        ? `Queima prevista do carry-forward: ~${minutes(burn.minutes)} no uso atual (${pct(w.utilizationPct)}).`
        : `O carry-forward só diminui com o uso abaixo de 100 % (agora ${pct(w.utilizationPct)}); com a capacidade ociosa, ~${minutes(burn.minutes)}.`;
  return [
    `Capacidade ${w.capacityName} (${w.sku}) em ${s.name}: ${s.figure} em ${pct(figure)} (limite 100 %); ${s.effect}.`,
    `Carry-forward: ${Math.round(w.carryForwardCuMs / 1000).toLocaleString('pt-BR')} CU·s (${minutes(carryMin)} da capacidade inteira).`,
    burnText,
    culprits,
  ]
    .filter(Boolean)
    .join(' ');
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
        if (m.stage) signals.push({ ...base(id, m.name), notificationKind: THROTTLED_KIND, severity: 'error', kind: 'recovery', occurredAt: at, title: `Capacidade ${m.name} pausada`, message: `Capacidade ${m.name} foi pausada (${s.reason}): o carry-forward foi cobrado e a limitação terminou.` });
        if (m.high) signals.push({ ...highBase(id, m.name), notificationKind: HIGH_UTILIZATION_KIND, severity: 'info', kind: 'recovery', occurredAt: at, title: `Capacidade ${m.name} pausada`, message: `Capacidade ${m.name} foi pausada (${s.reason}).` });
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
        signals.push({ ...base(id, w.capacityName), notificationKind: THROTTLED_KIND, severity: 'error', kind: 'failure', occurredAt: at, title: `Capacidade ${w.capacityName} em ${STAGE_PT[stage].name}`, message: throttledMessage(w, stage, '') });
      }
    } else if (m.stage) {
      m.calmThrottled++;
      if (m.calmThrottled >= t.recoverWindows) {
        signals.push({ ...base(id, w.capacityName), notificationKind: THROTTLED_KIND, severity: 'error', kind: 'recovery', occurredAt: at, title: `Capacidade ${w.capacityName} sem limitação`, message: `Capacidade ${w.capacityName}: ${t.recoverWindows} janelas de 30 s seguidas abaixo de 100 % (10 min: ${pct(w.delayPct)}, 1 h: ${pct(w.interactiveRejectionPct)}, 24 h: ${pct(w.backgroundRejectionPct)}).` });
        m.stage = null;
        m.calmThrottled = 0;
      }
    }
    if (w.delayPct > t.warnPercent) {
      m.calmHigh = 0;
      if (!m.high) {
        m.high = true;
        signals.push({ ...highBase(id, w.capacityName), notificationKind: HIGH_UTILIZATION_KIND, severity: 'info', kind: 'failure', occurredAt: at, title: `Capacidade ${w.capacityName} acima de ${t.warnPercent} %`, message: `Capacidade ${w.capacityName} (${w.sku}): uso já comprometido dos próximos 10 min em ${pct(w.delayPct)}, acima do aviso de ${t.warnPercent} %; a limitação começa em 100 %.` });
      }
    } else if (m.high) {
      m.calmHigh++;
      if (m.calmHigh >= t.recoverWindows) {
        signals.push({ ...highBase(id, w.capacityName), notificationKind: HIGH_UTILIZATION_KIND, severity: 'info', kind: 'recovery', occurredAt: at, title: `Capacidade ${w.capacityName} abaixo de ${t.warnPercent} %`, message: `Capacidade ${w.capacityName}: ${t.recoverWindows} janelas de 30 s seguidas abaixo de ${t.warnPercent} % (10 min: ${pct(w.delayPct)}).` });
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
  const msg = `Capacidade ${m.name} não é mais observada.`;
  if (m.stage) out.push({ ...base(id, m.name), notificationKind: THROTTLED_KIND, severity: 'error', kind: 'recovery', occurredAt: now, title: msg, message: msg });
  if (m.high) out.push({ ...highBase(id, m.name), notificationKind: HIGH_UTILIZATION_KIND, severity: 'info', kind: 'recovery', occurredAt: now, title: msg, message: msg });
  return out;
}

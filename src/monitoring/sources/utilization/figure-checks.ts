/**
 * Range checks on every capacity figure read from a platform (the Eventhouse's events, the
 * Capacity Metrics app's model, Azure Monitor), before anything is stored or judged. A figure the
 * platform cannot have meant — negative CU, a percentage below 0 or past 10,000, a value that is
 * not a finite number (`1e308` overflows the history's columns) — makes its row rejected: the row
 * is skipped, counted and named (RejectedRows, shown in the collector's status), and the rows after
 * it are read as usual. One malformed event never blinds the collector to every other capacity.
 */
/** The figures of one window that are checked (utilization-events.ts's WindowFigures adds where and when). */
export interface WindowFigureValues {
  baseCu: number;
  capacityUnitMs: number;
  utilizationPct: number;
  delayPct: number;
  interactiveRejectionPct: number;
  backgroundRejectionPct: number;
  carryForwardCuMs: number;
}

/** A percentage the platform publishes (the throttling figures, CPU) lies in 0–10,000. */
export const MAX_PERCENT = 10_000;
/**
 * The utilization derived from CU may pass 10,000 % in the window of a pause, which carries all the
 * smoothed usage still owed (documented up to ~288,000 %); past this it is not a figure.
 */
export const MAX_UTILIZATION_PERCENT = 1_000_000;
/**
 * CU ms no capacity can use or owe: the largest SKU (F2048) has 6.1e7 CU ms per window; its pause
 * spike (~2,880 windows) and a carry-forward at 10,000 % of the next 24 hours stay below 2e13.
 */
export const MAX_CU_MS = 1e15;
/** Reasons kept per run (the count covers every row). */
const REASONS_KEPT = 3;

type Check = [label: string, value: number, max: number];

function problemOf(checks: Check[]): string | null {
  for (const [label, value, max] of checks) {
    if (!Number.isFinite(value)) return `${label} is not a finite number (${String(value)})`;
    if (value < 0) return `${label} ${value} is negative`;
    if (value > max) return `${label} ${value} is beyond ${max.toLocaleString('en')}`;
  }
  return null;
}

/** Why a window's figures cannot be true, or null when every figure is in range. */
export function figuresProblem(w: WindowFigureValues, names: { delay: string; irej: string; brej: string; cu: string; carry: string }): string | null {
  return problemOf([
    [names.delay, w.delayPct, MAX_PERCENT],
    [names.irej, w.interactiveRejectionPct, MAX_PERCENT],
    [names.brej, w.backgroundRejectionPct, MAX_PERCENT],
    [names.cu, w.capacityUnitMs, MAX_CU_MS],
    [names.carry, w.carryForwardCuMs, MAX_CU_MS],
    ['baseCapacityUnits', w.baseCu, MAX_CU_MS],
    ['the utilization derived from CU (%)', w.utilizationPct, MAX_UTILIZATION_PERCENT],
  ]);
}

/** A percentage read alone (Azure Monitor's CPU), or a count that is at least 0 (its overload flag). */
export function valueProblem(label: string, value: number, max = MAX_PERCENT): string | null {
  return problemOf([[label, value, max]]);
}

/** The rows one run rejected: how many, and the first few reasons. */
export class RejectedRows {
  /** Rows (or points) read and kept. */
  read = 0;
  count = 0;
  readonly reasons: string[] = [];

  add(reason: string): void {
    this.count++;
    if (this.reasons.length < REASONS_KEPT) this.reasons.push(reason);
  }

  /** One line for the collector's status; null when nothing was rejected. */
  note(): string | null {
    if (this.count === 0) return null;
    const more = this.count > this.reasons.length ? ` (and ${this.count - this.reasons.length} more)` : '';
    return `${this.count} row${this.count === 1 ? '' : 's'} skipped: ${this.reasons.join('; ')}${more}`.slice(0, 1000);
  }
}

/**
 * How a window [start, end) of UTC days is read from the metrics rollups (migrations 070, 071):
 * which rows, with which signs, sum to exactly the window's counts and durations.
 */

export const DAY_MS = 86_400_000;

/**
 * How a window is read from the rollup: 'periods' merges the whole months inside it (monthly
 * rows) and its edge days (daily rows); 'checkpoints' takes the difference of two prefix
 * checkpoints (migration 071), corrected by the daily rows between each checkpoint and the
 * window's edge. Both are exact; 'auto' picks the one that reads fewer rows.
 */
export type Strategy = 'auto' | 'periods' | 'checkpoints';

/** What the choice of plan needs: the last day with alerts and the checkpoints (epoch ms, comma list). */
export interface RollupState {
  last_day: Date | null;
  checkpoints: string;
}

const checkpointsOf = (s: RollupState): number[] => (s.checkpoints === '' ? [] : s.checkpoints.split(',').map(Number));

const startOfNextUtcMonth = (d: Date) => {
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  return m.getTime() === d.getTime() ? m : new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
};
const startOfUtcMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

/**
 * Rough cost, in rollup rows, of each source: a month's or a checkpoint's rows hold every source
 * group and duration seen (saturated), a day's only that day's. The choice never changes an answer.
 */
const COST = { month: 1, checkpoint: 1.3, day: 0.4 };

export interface Plan {
  /** SQL yielding signed rows (source_type, source_name, incidents, …) whose sums are the window's. */
  metrics: string;
  /** SQL yielding signed rows (kind, micros, n). */
  durations: string;
  params: unknown[];
}

const M_COLS = 'incidents, occurrences, acknowledged, resolved, open_unacknowledged, silenced, correlated';
const signed = (s: string) => M_COLS.split(', ').map((c) => `${s} * ${c} AS ${c}`).join(', ');

/**
 * Days of daily rows a checkpoint at `c` costs for a window edge at `x`: the days between them,
 * not counting days after the last day with alerts (they hold no rows).
 */
function edgeDays(c: number, x: number, lastDay: number): number {
  const lo = Math.min(c, x);
  const hi = Math.min(Math.max(c, x), lastDay + DAY_MS);
  return Math.max(0, (hi - lo) / DAY_MS);
}

export function planWindow(orgId: string, start: Date, end: Date, state: RollupState, strategy: Strategy): Plan {
  const monthsFrom = startOfNextUtcMonth(start);
  const monthsTo = startOfUtcMonth(end);
  const wholeMonths = monthsFrom < monthsTo;
  const lastDay = state.last_day === null ? -Infinity : state.last_day.getTime();
  const periodsCost = wholeMonths
    ? COST.month * Math.round((monthsTo.getTime() - monthsFrom.getTime()) / (30.44 * DAY_MS)) +
      COST.day * (edgeDays(start.getTime(), monthsFrom.getTime(), lastDay) + edgeDays(monthsTo.getTime(), end.getTime(), lastDay))
    : COST.day * edgeDays(start.getTime(), end.getTime(), lastDay);
  const cps = checkpointsOf(state);
  if (strategy !== 'periods' && cps.length > 0 && lastDay !== -Infinity) {
    const nearest = (x: number) =>
      cps.reduce((best, c) => (edgeDays(c, x, lastDay) < edgeDays(best, x, lastDay) ? c : best), cps[0]!);
    const ca = nearest(start.getTime());
    const cb = nearest(end.getTime());
    const cost = 2 * COST.checkpoint + COST.day * (edgeDays(ca, start.getTime(), lastDay) + edgeDays(cb, end.getTime(), lastDay));
    if (strategy === 'checkpoints' || cost < periodsCost) return checkpointPlan(orgId, start, end, ca, cb);
  }
  return periodsPlan(orgId, start, end, monthsFrom, monthsTo, wholeMonths);
}

/**
 * The rollup rows that cover [start, end) exactly once: the whole UTC months inside it from the
 * monthly rows, the days before the first and after the last whole month from the daily rows.
 */
function periodsPlan(orgId: string, start: Date, end: Date, monthsFrom: Date, monthsTo: Date, wholeMonths: boolean): Plan {
  const where = wholeMonths
    ? `org_id = $1 AND ((span = 'm' AND period >= $3 AND period < $4)
              OR (span = 'd' AND ((period >= $2 AND period < $3) OR (period >= $4 AND period < $5))))`
    : `org_id = $1 AND span = 'd' AND period >= $2 AND period < $3`;
  return {
    metrics: `SELECT source_type, source_name, ${M_COLS} FROM alert_metrics_rollup WHERE ${where}`,
    durations: `SELECT kind, micros, n FROM alert_durations_rollup WHERE ${where}`,
    params: wholeMonths ? [orgId, start, monthsFrom, monthsTo, end] : [orgId, start, end],
  };
}

/**
 * [start, end) as P(end) − P(start), P(x) the sums of the daily rows before x:
 * P(x) = checkpoint(c) + (pending daily rows before c) ± (daily rows between c and x).
 * Parameters: $2/$3 the checkpoints for end and start; daily rows in [$4, $5) count with sign $6
 * (end side) and rows in [$7, $8) with sign $9 (start side).
 */
function checkpointPlan(orgId: string, start: Date, end: Date, ca: number, cb: number): Plan {
  const e = end.getTime();
  const s = start.getTime();
  // End side: P(end) = P(cb) + D[cb, end) when cb ≤ end, else P(cb) − D[end, cb).
  const endRange = cb <= e ? [new Date(cb), end, 1] : [end, new Date(cb), -1];
  // Start side: −P(start) = −P(ca) − D[ca, start) when ca ≤ start, else −P(ca) + D[start, ca).
  const startRange = ca <= s ? [new Date(ca), start, -1] : [start, new Date(ca), 1];
  // One branch per source with its own index condition (a join with a VALUES list of the
  // checkpoints and ranges was planned as a scan of the whole rollup).
  const branches = (table: string, cols: (sign: string) => string) =>
    [
      `SELECT ${cols('1')} FROM ${table.replace('rollup', 'prefix')} WHERE org_id = $1 AND upto = $2`,
      `SELECT ${cols('-1')} FROM ${table.replace('rollup', 'prefix')} WHERE org_id = $1 AND upto = $3`,
      `SELECT ${cols('1')} FROM ${table} WHERE org_id = $1 AND pending AND span = 'd' AND period < $2`,
      `SELECT ${cols('-1')} FROM ${table} WHERE org_id = $1 AND pending AND span = 'd' AND period < $3`,
      `SELECT ${cols('$6::int')} FROM ${table} WHERE org_id = $1 AND span = 'd' AND period >= $4 AND period < $5`,
      `SELECT ${cols('$9::int')} FROM ${table} WHERE org_id = $1 AND span = 'd' AND period >= $7 AND period < $8`,
    ].join('\n      UNION ALL\n      ');
  return {
    metrics: branches('alert_metrics_rollup', (sg) => `source_type, source_name, ${signed(sg)}`),
    durations: branches('alert_durations_rollup', (sg) => `kind, micros, ${sg} * n AS n`),
    params: [orgId, new Date(cb), new Date(ca), ...endRange, ...startRange],
  };
}

import type { ChartSeries } from './chart.js';
import type { Column } from './lists.js';

/**
 * The columns of a chart's table that hold its series: row `i` shows series value `i`, formatted,
 * with the number as `data-value` (empty when there is none). The chart's table rows are the
 * points' indexes.
 */
export function seriesColumns(series: ChartSeries[], format: (v: number | null | undefined) => string): Array<Column<number>> {
  return series.map((s) => ({ label: s.label, cell: (i) => format(s.values[i]), value: (i) => s.values[i] ?? '' }));
}

/** The rows of a chart's table: one per point of its x axis, by index. */
export function pointRows(labels: unknown[]): number[] {
  return labels.map((_, i) => i);
}

import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './charts.css';
import { useConsole } from './app-context.js';

/**
 * Okabe–Ito: eight colours told apart with every common colour-vision deficiency (and in grey,
 * by lightness). Charts use them in this order; lines also differ by dash, so no reading depends
 * on colour alone.
 */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];
const DASHES: number[][] = [[], [6, 4], [2, 3], [10, 3, 2, 3]];

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
}

interface ChartProps {
  /** Element id of the figure; the table keeps `{id}-table`. */
  id: string;
  title: string;
  kind: 'stacked-bars' | 'bars' | 'lines';
  /** One label per point of the x axis (days, weeks, months, capacities), already in the viewer's language. */
  labels: string[];
  series: ChartSeries[];
  format: (v: number) => string;
  /** The y axis' tick labels when they should be shorter than `format` (money ticks need no cents). */
  axisFormat?: (v: number) => string;
  /**
   * The y axis' range when 0 to the largest value would hide the differences (availability:
   * 95.5 % and 100 % look alike on 0–100). Bars are drawn from its lower end.
   */
  yRange?: [number, number];
  /** A horizontal reference line (capacity load: the 100 % above which the platform throttles). */
  refLine?: number;
  /** Spans of the x axis to shade (incidents open from one point to another, both inclusive). */
  bands?: Array<{ from: number; to: number; severity: 'error' | 'info' }>;
  /** "Show data": the summary of the collapsed table, in the viewer's language. */
  dataLabel: string;
  /** The text alternative: a table with the same numbers (screen readers, tests, copy-paste). */
  children: ComponentChildren;
}

/** Running sums, so stacked bars are drawn as overlapping bars from the tallest down. */
function stack(series: ChartSeries[]): Array<Array<number | null>> {
  const sums = series[0]?.values.map(() => 0) ?? [];
  return series.map((s) => s.values.map((v, i) => (sums[i] = (sums[i] ?? 0) + (v ?? 0))));
}

/** A tooltip that follows the cursor and says the point's label and every series' value. */
function tooltipPlugin(labels: string[], series: ChartSeries[], format: (v: number) => string): uPlot.Plugin {
  let tip: HTMLDivElement;
  return {
    hooks: {
      init: (u) => {
        tip = document.createElement('div');
        tip.className = 'chart-tip';
        tip.hidden = true;
        u.over.appendChild(tip);
      },
      setCursor: (u) => {
        const i = u.cursor.idx;
        if (i === null || i === undefined || u.cursor.left === undefined || u.cursor.left < 0) {
          tip.hidden = true;
          return;
        }
        tip.replaceChildren();
        const head = document.createElement('strong');
        head.textContent = labels[i] ?? '';
        tip.appendChild(head);
        for (const s of series) {
          const line = document.createElement('div');
          const v = s.values[i];
          line.textContent = `${s.label}: ${v === null || v === undefined ? '—' : format(v)}`;
          tip.appendChild(line);
        }
        tip.hidden = false;
        const left = Math.min(u.cursor.left + 12, Math.max(0, u.over.clientWidth - tip.offsetWidth));
        tip.style.left = `${left}px`;
        tip.style.top = `${Math.max(0, (u.cursor.top ?? 0) - tip.offsetHeight - 8)}px`;
      },
    },
  };
}

/** The reference line (dashed, black) and the shaded spans (vermilion for errors, sky blue for info), over the plot. */
function drawMarks(u: uPlot, refLine: number | undefined, bands: Array<{ from: number; to: number; severity: 'error' | 'info' }>): void {
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  ctx.save();
  for (const b of bands) {
    const x0 = u.valToPos(b.from - 0.5, 'x', true);
    const x1 = u.valToPos(b.to + 0.5, 'x', true);
    ctx.fillStyle = b.severity === 'error' ? 'rgba(213, 94, 0, 0.18)' : 'rgba(86, 180, 233, 0.18)';
    ctx.fillRect(Math.max(left, x0), top, Math.min(left + width, x1) - Math.max(left, x0), height);
  }
  if (refLine !== undefined) {
    const y = u.valToPos(refLine, 'y', true);
    ctx.strokeStyle = '#000000';
    ctx.lineWidth = 1.5 * devicePixelRatio;
    ctx.setLineDash([8 * devicePixelRatio, 4 * devicePixelRatio]);
    ctx.beginPath();
    ctx.moveTo(left, y);
    ctx.lineTo(left + width, y);
    ctx.stroke();
  }
  ctx.restore();
}

/** Nothing to draw (no point, or no value at any): the card says "sem dados", not a blank frame. */
function nothingToDraw(props: Pick<ChartProps, 'labels' | 'series'>): boolean {
  return props.labels.length === 0 || props.series.every((s) => s.values.every((v) => v === null || v === undefined));
}

function NoData(props: { shown: boolean; text: string }) {
  return props.shown ? (
    <p class="empty" data-testid="no-data">
      {props.text}
    </p>
  ) : null;
}

/**
 * A uPlot chart (canvas, hidden from screen readers) followed by its text alternative, one click
 * away: a <details> whose table stays in the document (screen readers reach it through the
 * summary button; copy and exports read it) but takes no room until opened. The x axis is
 * categorical: the caller's labels, so dates read in the viewer's language.
 */
export function Chart(props: ChartProps) {
  const { t } = useConsole();
  const box = useRef<HTMLDivElement>(null);
  const empty = nothingToDraw(props);
  useEffect(() => {
    const el = box.current;
    if (!el || empty) return;
    const stacked = props.kind === 'stacked-bars';
    const ys = stacked ? stack(props.series) : props.series.map((s) => s.values);
    const x = props.labels.map((_, i) => i);
    const order = props.series.map((_, i) => i);
    // Stacked: tallest running sum first, each later bar overdraws the part below it.
    if (stacked) order.reverse();
    const bars = props.kind !== 'lines' ? uPlot.paths.bars!({ size: [0.7, 48] }) : undefined;
    const yRange = props.yRange;
    const floor = yRange ? yRange[0] : 0;
    const opts: uPlot.Options = {
      width: Math.max(240, el.clientWidth),
      height: 240,
      legend: { show: true, live: false },
      cursor: { drag: { x: false, y: false }, points: { show: props.kind === 'lines' } },
      scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] }, y: { range: (_u, _min, max) => yRange ?? [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        {
          values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? (props.labels[i] ?? '') : '')),
          // Room for the longest label, so long ones ("dez. de 2025") skip ticks instead of overlapping.
          space: Math.max(56, Math.max(0, ...props.labels.map((l) => l.length)) * 7 + 8),
          incrs: [1, 2, 3, 7, 14, 30],
        },
        { values: (_u, splits) => splits.map((v) => (props.axisFormat ?? props.format)(v)), size: 64 },
      ],
      series: [
        {},
        ...order.map((i) => {
          const color = PALETTE[i % PALETTE.length]!;
          return bars
            ? { label: props.series[i]!.label, stroke: color, fill: color, width: 0, paths: bars, points: { show: false }, fillTo: floor }
            : { label: props.series[i]!.label, stroke: color, width: 2, dash: DASHES[i % DASHES.length], points: { size: 5 } };
        }),
      ],
      plugins: [tooltipPlugin(props.labels, props.series, props.format)],
    };
    // The drawn y range, for tests and tools reading the page (the axis itself is canvas).
    opts.hooks = {
      draw: [
        (u) => {
          el.dataset.yMin = String(u.scales.y?.min ?? '');
          el.dataset.yMax = String(u.scales.y?.max ?? '');
          drawMarks(u, props.refLine, props.bands ?? []);
          el.dataset.refLine = props.refLine === undefined ? '' : String(props.refLine);
          el.dataset.bands = String(props.bands?.length ?? 0);
        },
      ],
    };
    const plot = new uPlot(opts, [x, ...order.map((i) => ys[i]!)] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(240, el.clientWidth), height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [empty, props.kind, props.labels.join('\u0000'), JSON.stringify(props.series), JSON.stringify(props.yRange), props.refLine, JSON.stringify(props.bands)]);

  return (
    <figure class="chart" id={props.id} aria-labelledby={`${props.id}-title`} data-empty={empty ? 'true' : undefined}>
      <figcaption id={`${props.id}-title`}>
        <h2>{props.title}</h2>
      </figcaption>
      <NoData shown={empty} text={t('noData')} />
      <div class="chart-canvas" ref={box} aria-hidden="true" />
      <details class="chart-data">
        <summary>{props.dataLabel}</summary>
        <div class="table-wrap">{props.children}</div>
      </details>
    </figure>
  );
}

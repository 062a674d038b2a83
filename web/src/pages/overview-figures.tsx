import type { ComponentChildren } from 'preact';
import type { components } from '../admin-api.gen.js';
import { useConsole } from '../app-context.js';
import { Chart } from '../chart.js';
import { pointRows, seriesColumns } from '../chart-table.js';
import { Empty } from '../components.js';
import { DataTable } from '../lists.js';
import { dayLabel, monthLabel } from '../period.js';
import { Link } from '../router.js';
import { sourceTypeName } from '../i18n-sources.js';

type S = components['schemas'];

export interface OverviewData {
  open: S['OpenIncidents'];
  metrics: S['AlertMetrics'];
  daily: S['MetricsSeries'];
  weekly: S['MetricsSeries'];
  sla: S['SlaHistory'];
  month: S['SlaReport'];
  costs: S['DailyCostSeries'];
}

/** How the overview writes numbers: `fmt` any figure ("—" when there is none), `money` with two decimals. */
export interface Formats {
  fmt: (v: number | null | undefined) => string;
  money: (v: number) => string;
}

const minutes = (seconds: number | null) => (seconds === null ? null : Math.round((seconds / 60) * 10) / 10);

/** Every figure of the overview, each chart with its table. */
export function Figures(props: { data: OverviewData } & Formats) {
  const { data, fmt, money } = props;
  return (
    <div class="figures">
      <OpenNow open={data.open} fmt={fmt} />
      <IncidentsPerDay daily={data.daily} metrics={data.metrics} fmt={fmt} />
      <WeeklyTimes weekly={data.weekly} fmt={fmt} />
      <SlaMonths sla={data.sla} fmt={fmt} />
      <Availability month={data.month} fmt={fmt} />
      <DailyCosts costs={data.costs} fmt={fmt} money={money} />
      <Noisiest metrics={data.metrics} fmt={fmt} />
    </div>
  );
}

/** A titled card of the overview (the figures that are a number or a table, not a chart). */
function Card(props: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={`${props.id}-title`} id={props.id}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.children}
    </section>
  );
}

/**
 * The availability axis: from just under the lowest capacity to 100, so 95.5 % and 100 % look
 * different (on 0–100 they are the same bar). Never below 0.
 */
export function availabilityRange(values: number[]): [number, number] {
  const low = Math.min(100, ...values);
  return [Math.max(0, Math.floor(low - Math.max(1, (100 - low) * 0.25))), 100];
}

function OpenNow(props: { open: S['OpenIncidents']; fmt: Formats['fmt'] }) {
  const { t, lang } = useConsole();
  const { open, fmt } = props;
  return (
    <Card id="open-now" title={t('ovOpenNow')}>
      <p class="big" data-value={open.total}>
        <Link href="/alerts">{t('ovOpenTotal', { n: open.total })}</Link>
      </p>
      {open.groups.length > 0 && (
        <DataTable
          wrap
          rows={open.groups}
          rowKey={(g) => `${g.severity}/${g.sourceType}`}
          columns={[
            { label: t('severity'), cell: (g) => (g.severity === 'error' ? t('sevError') : t('sevInfo')) },
            { label: t('sourceType'), cell: (g) => sourceTypeName(lang, g.sourceType) },
            { label: t('ovIncidents'), cell: (g) => fmt(g.incidents), value: (g) => g.incidents },
          ]}
        />
      )}
    </Card>
  );
}

function IncidentsPerDay(props: { daily: S['MetricsSeries']; metrics: S['AlertMetrics']; fmt: Formats['fmt'] }) {
  const { t, lang } = useConsole();
  const { daily, metrics, fmt } = props;
  const sourceTypes = [...new Set(daily.buckets.flatMap((b) => b.bySourceType.map((s) => s.sourceType)))].sort();
  const perDay = sourceTypes.map((st) => ({
    label: sourceTypeName(lang, st),
    values: daily.buckets.map((b) => b.bySourceType.find((s) => s.sourceType === st)?.incidents ?? 0),
  }));
  const totalOf = (st: string) => metrics.bySourceType.find((s) => s.sourceType === st)?.incidents ?? 0;
  const foot = (
    <tr>
      <th scope="row">{t('ovTotal')}</th>
      {sourceTypes.map((st) => (
        <td key={st} data-value={totalOf(st)}>
          {fmt(totalOf(st))}
        </td>
      ))}
      <td data-value={metrics.totals.incidents} data-testid="incidents-total">
        {fmt(metrics.totals.incidents)}
      </td>
    </tr>
  );
  const labels = daily.buckets.map((b) => dayLabel(lang, b.from, 'short'));
  return (
    <Chart id="incidents-per-day" title={t('ovIncidentsPerDay')} kind="stacked-bars" labels={labels} series={perDay} format={fmt} dataLabel={t('ovShowData')}>
      <DataTable
        rows={pointRows(daily.buckets)}
        rowKey={(i) => daily.buckets[i]!.from}
        rowAttrs={(i) => ({ 'data-day': daily.buckets[i]!.from })}
        columns={[
          { label: t('ovDay'), rowHeader: true, cell: (i) => dayLabel(lang, daily.buckets[i]!.from, 'long') },
          ...seriesColumns(perDay, fmt),
          { label: t('ovTotal'), cell: (i) => fmt(daily.buckets[i]!.incidents), value: (i) => daily.buckets[i]!.incidents },
        ]}
        foot={foot}
      />
    </Chart>
  );
}

function WeeklyTimes(props: { weekly: S['MetricsSeries']; fmt: Formats['fmt'] }) {
  const { t, lang } = useConsole();
  const { weekly, fmt } = props;
  const b = weekly.buckets;
  const series = [
    { label: t('ovMttaMedian'), values: b.map((w) => minutes(w.mtta.medianSeconds)) },
    { label: t('ovMttaMean'), values: b.map((w) => minutes(w.mtta.meanSeconds)) },
    { label: t('ovMttrMedian'), values: b.map((w) => minutes(w.mttr.medianSeconds)) },
    { label: t('ovMttrMean'), values: b.map((w) => minutes(w.mttr.meanSeconds)) },
  ];
  const labels = b.map((w) => dayLabel(lang, w.from, 'short'));
  return (
    <Chart id="mtta-mttr" title={t('ovWeekly')} kind="lines" labels={labels} series={series} format={fmt} dataLabel={t('ovShowData')}>
      <DataTable
        rows={pointRows(b)}
        rowKey={(i) => b[i]!.from}
        columns={[{ label: t('ovWeekOf'), rowHeader: true, cell: (i) => `${dayLabel(lang, b[i]!.from, 'long')} – ${dayLabel(lang, b[i]!.to, 'long')}` }, ...seriesColumns(series, fmt)]}
      />
    </Chart>
  );
}

function SlaMonths(props: { sla: S['SlaHistory']; fmt: Formats['fmt'] }) {
  const { t, lang } = useConsole();
  const { sla, fmt } = props;
  const months = sla.months;
  // A month without incidents has no sample: the API's 100 % is "nothing missed", not a measured
  // compliance, so the chart leaves a gap and the table says "no data".
  const sampled = (m: (typeof months)[number], v: number) => (m.totals.incidents > 0 ? v : null);
  const series = [
    { label: t('ovAckCompliance'), values: months.map((m) => sampled(m, m.totals.ackCompliancePercent)) },
    { label: t('ovResolveCompliance'), values: months.map((m) => sampled(m, m.totals.resolutionCompliancePercent)) },
  ];
  const targets = months.at(-1)?.targets;
  const noSample = (v: number | null | undefined) => v === null || v === undefined;
  return (
    // Compliance is a share: its axis is 0–100 %, whatever the few months sampled (not 0–5 %).
    <Chart id="sla" title={t('ovSla')} kind="lines" labels={months.map((m) => monthLabel(lang, m.month))} series={series} format={fmt} yRange={[0, 100]} dataLabel={t('ovShowData')}>
      {targets && <p class="muted">{t('ovTargets', { mtta: targets.mttaMinutes, mttr: targets.mttrMinutes, avail: fmt(targets.availabilityPercent) })}</p>}
      <DataTable
        rows={pointRows(months)}
        rowKey={(i) => months[i]!.month}
        rowAttrs={(i) => ({ 'data-month': months[i]!.month })}
        columns={[
          { label: t('ovMonthCol'), rowHeader: true, cell: (i) => monthLabel(lang, months[i]!.month) },
          { label: t('ovIncidents'), cell: (i) => fmt(months[i]!.totals.incidents), value: (i) => months[i]!.totals.incidents },
          ...series.map((s) => ({
            label: s.label,
            cell: (i: number) => (noSample(s.values[i]) ? t('ovNoSample') : fmt(s.values[i])),
            value: (i: number) => (noSample(s.values[i]) ? undefined : s.values[i]),
            attrs: (i: number): Record<string, string> => (noSample(s.values[i]) ? { 'data-no-data': 'true' } : {}),
          })),
        ]}
      />
    </Chart>
  );
}

function Availability(props: { month: S['SlaReport']; fmt: Formats['fmt'] }) {
  const { t, lang } = useConsole();
  const { month, fmt } = props;
  const caps = month.availability;
  return (
    <Chart
      id="availability"
      title={t('ovAvailability', { month: monthLabel(lang, month.month) })}
      kind="bars"
      labels={caps.map((a) => a.capacityName)}
      series={[{ label: t('ovAvailabilityCol'), values: caps.map((a) => a.availabilityPercent) }]}
      format={fmt}
      yRange={availabilityRange(caps.map((a) => a.availabilityPercent))}
      dataLabel={t('ovShowData')}
    >
      <DataTable
        rows={caps}
        rowKey={(a) => a.capacityName}
        rowAttrs={(a) => ({ 'data-capacity': a.capacityName })}
        columns={[
          { label: t('capName'), rowHeader: true, cell: (a) => a.capacityName },
          { label: t('ovAvailabilityCol'), cell: (a) => fmt(a.availabilityPercent), value: (a) => a.availabilityPercent },
          { label: t('ovDowntime'), cell: (a) => fmt(a.downtimeMinutes), value: (a) => a.downtimeMinutes },
          { label: t('ovMeetsTarget'), cell: (a) => (a.meetsTarget ? t('yes') : t('no')) },
        ]}
      />
    </Chart>
  );
}

function DailyCosts(props: { costs: S['DailyCostSeries'] } & Formats) {
  const { t, lang } = useConsole();
  const { costs, fmt, money } = props;
  if (costs.items.length === 0) {
    return (
      <Card id="costs" title={t('ovCosts', { currency: '—' })}>
        <Empty>{t('ovNoCosts')}</Empty>
      </Card>
    );
  }
  const days = [...new Set(costs.items.map((c) => c.date))].sort();
  const caps = [...new Set(costs.items.map((c) => c.capacityName))].sort();
  const costOf = (day: string, cap: string) => costs.items.find((c) => c.date === day && c.capacityName === cap);
  const series = caps.map((cap) => ({ label: cap, values: days.map((d) => costOf(d, cap)?.cost ?? 0) }));
  const dayTotal = (i: number, field: 'cost' | 'amortizedCost') =>
    Math.round(costs.items.filter((c) => c.date === days[i]).reduce((n, c) => n + c[field], 0) * 100) / 100;
  return (
    <Chart
      id="costs"
      title={t('ovCosts', { currency: costs.currency ?? '—' })}
      kind="stacked-bars"
      labels={days.map((d) => dayLabel(lang, d, 'short'))}
      series={series}
      format={money}
      axisFormat={fmt}
      dataLabel={t('ovShowData')}
    >
      <DataTable
        rows={pointRows(days)}
        rowKey={(i) => days[i]!}
        rowAttrs={(i) => ({ 'data-day': days[i]! })}
        columns={[
          { label: t('ovDay'), rowHeader: true, cell: (i) => dayLabel(lang, days[i]!, 'long') },
          ...seriesColumns(series, (v) => money(v ?? 0)),
          { label: t('ovCostActual'), cell: (i) => money(dayTotal(i, 'cost')), value: (i) => dayTotal(i, 'cost') },
          { label: t('ovCostAmortized'), cell: (i) => money(dayTotal(i, 'amortizedCost')), value: (i) => dayTotal(i, 'amortizedCost') },
        ]}
      />
    </Chart>
  );
}

function Noisiest(props: { metrics: S['AlertMetrics']; fmt: Formats['fmt'] }) {
  const { t, lang } = useConsole();
  const sources = props.metrics.noisiestSources;
  const { fmt } = props;
  return (
    <Card id="noisiest" title={t('ovNoisiest')}>
      {sources.length === 0 ? (
        <Empty>{t('ovNoData')}</Empty>
      ) : (
        <DataTable
          wrap
          rows={sources}
          rowKey={(s) => `${s.sourceType}/${s.sourceName}`}
          columns={[
            { label: t('ovSource'), rowHeader: true, cell: (s) => s.sourceName },
            { label: t('sourceType'), cell: (s) => sourceTypeName(lang, s.sourceType) },
            { label: t('ovIncidents'), cell: (s) => fmt(s.incidents), value: (s) => s.incidents },
            { label: t('ovOccurrences'), cell: (s) => fmt(s.occurrences), value: (s) => s.occurrences },
          ]}
        />
      )}
    </Card>
  );
}

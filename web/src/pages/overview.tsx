import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-api.gen.js';
import { orgPath, useConsole } from '../app-context.js';
import { Chart } from '../chart.js';
import { Empty, ErrorMessage, Loading, useLoad, usePageTitle } from '../components.js';
import { dayLabel, monthLabel, lastMonths, periodDays, type Period } from '../period.js';
import { Link } from '../router.js';
import { sourceTypeName } from '../i18n-sources.js';

type S = components['schemas'];

interface OverviewData {
  open: S['OpenIncidents'];
  metrics: S['AlertMetrics'];
  daily: S['MetricsSeries'];
  weekly: S['MetricsSeries'];
  sla: S['SlaHistory'];
  month: S['SlaReport'];
  costs: S['DailyCostSeries'];
}

const minutes = (seconds: number | null) => (seconds === null ? null : Math.round((seconds / 60) * 10) / 10);

/** The organization's home: every figure of the chosen period, each chart with its table. */
export function OverviewPage(props: { orgId: string }) {
  const { t, call, lang } = useConsole();
  usePageTitle(t('ovTitle'));
  const [period, setPeriod] = useState<Period>({ kind: 'days', days: 30 });
  const { from, to } = periodDays(period, new Date());
  const base = (p: string) => orgPath(props.orgId, p);
  const q = `from=${from}&to=${to}`;
  const load = useLoad(
    async (signal): Promise<OverviewData> => {
      const get = <T,>(p: string) => call<T>('GET', base(p), undefined, signal);
      const [open, metrics, daily, weekly, sla, month, costs] = await Promise.all([
        get<S['OpenIncidents']>('/incidents/open'),
        get<S['AlertMetrics']>(`/metrics?${q}`),
        get<S['MetricsSeries']>(`/metrics/series?${q}&step=day`),
        get<S['MetricsSeries']>(`/metrics/series?${q}&step=week`),
        get<S['SlaHistory']>('/sla/history'),
        get<S['SlaReport']>(`/sla?month=${to.slice(0, 7)}`),
        get<S['DailyCostSeries']>(`/costs/daily?${q}`),
      ]);
      return { open, metrics, daily, weekly, sla, month, costs };
    },
    [props.orgId, q],
  );
  const num = new Intl.NumberFormat(lang, { maximumFractionDigits: 2 });
  const fmt = (v: number | null | undefined) => (v === null || v === undefined ? '—' : num.format(v));
  // Money always with two decimals, in the viewer's locale ("1.270,00", not "1.270" beside "1.324,1").
  const moneyFormat = new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const money = (v: number) => moneyFormat.format(v);

  return (
    <section class="overview">
      <h1>{t('ovTitle')}</h1>
      <PeriodPicker period={period} onChange={setPeriod} />
      <p class="muted" data-testid="period-shown" data-from={from} data-to={to}>
        {t('ovPeriodShown', { from: dayLabel(lang, from, 'long'), to: dayLabel(lang, to, 'long') })}
      </p>
      {load.loading && <Loading />}
      <ErrorMessage error={load.error} onRetry={load.reload} />
      {load.data && <Figures data={load.data} fmt={fmt} money={money} />}
    </section>
  );
}

function PeriodPicker(props: { period: Period; onChange: (p: Period) => void }) {
  const { t, lang } = useConsole();
  const months = lastMonths(new Date(), 12);
  const p = props.period;
  const value = p.kind === 'days' ? String(p.days) : 'month';
  return (
    <form class="filters period" onSubmit={(e) => e.preventDefault()}>
      <div class="field">
        <label for="period-kind">{t('ovPeriod')}</label>
        <select
          id="period-kind"
          value={value}
          onChange={(e) => {
            const v = (e.target as HTMLSelectElement).value;
            props.onChange(v === 'month' ? { kind: 'month', month: months[0]! } : { kind: 'days', days: Number(v) });
          }}
        >
          <option value="7">{t('ovLast7')}</option>
          <option value="30">{t('ovLast30')}</option>
          <option value="90">{t('ovLast90')}</option>
          <option value="month">{t('ovMonth')}</option>
        </select>
      </div>
      {p.kind === 'month' && (
        // A list of months in the interface language, not a browser date input (which follows
        // the browser's locale, not the console's: mm/dd/yyyy in the Portuguese console).
        <div class="field">
          <label for="period-month">{t('ovMonthPick')}</label>
          <select id="period-month" value={p.month} onChange={(e) => props.onChange({ kind: 'month', month: (e.target as HTMLSelectElement).value })}>
            {months.map((m) => (
              <option key={m} value={m}>
                {monthLabel(lang, m)}
              </option>
            ))}
          </select>
        </div>
      )}
    </form>
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

function Figures(props: { data: OverviewData; fmt: (v: number | null | undefined) => string; money: (v: number) => string }) {
  const { t, lang } = useConsole();
  const { open, metrics, daily, weekly, sla, month, costs } = props.data;
  const { fmt, money } = props;
  const num = (v: number) => fmt(v);
  const dataLabel = t('ovShowData');

  const sourceTypes = [...new Set(daily.buckets.flatMap((b) => b.bySourceType.map((s) => s.sourceType)))].sort();
  const perDay = sourceTypes.map((st) => ({
    label: sourceTypeName(lang, st),
    values: daily.buckets.map((b) => b.bySourceType.find((s) => s.sourceType === st)?.incidents ?? 0),
  }));
  const dayLabels = daily.buckets.map((b) => dayLabel(lang, b.from, 'short'));

  const weekLabels = weekly.buckets.map((b) => dayLabel(lang, b.from, 'short'));
  const weekSeries = [
    { label: t('ovMttaMedian'), values: weekly.buckets.map((b) => minutes(b.mtta.medianSeconds)) },
    { label: t('ovMttaMean'), values: weekly.buckets.map((b) => minutes(b.mtta.meanSeconds)) },
    { label: t('ovMttrMedian'), values: weekly.buckets.map((b) => minutes(b.mttr.medianSeconds)) },
    { label: t('ovMttrMean'), values: weekly.buckets.map((b) => minutes(b.mttr.meanSeconds)) },
  ];

  const slaLabels = sla.months.map((m) => monthLabel(lang, m.month));
  // A month without incidents has no sample: the API's 100 % is "nothing missed", not a measured
  // compliance, so the chart leaves a gap and the table says "no data".
  const sampled = (m: (typeof sla.months)[number], v: number) => (m.totals.incidents > 0 ? v : null);
  const slaSeries = [
    { label: t('ovAckCompliance'), values: sla.months.map((m) => sampled(m, m.totals.ackCompliancePercent)) },
    { label: t('ovResolveCompliance'), values: sla.months.map((m) => sampled(m, m.totals.resolutionCompliancePercent)) },
  ];
  const targets = sla.months.at(-1)?.targets;

  const costDays = [...new Set(costs.items.map((c) => c.date))].sort();
  const costCaps = [...new Set(costs.items.map((c) => c.capacityName))].sort();
  const costOf = (day: string, cap: string) => costs.items.find((c) => c.date === day && c.capacityName === cap);
  const costSeries = costCaps.map((cap) => ({ label: cap, values: costDays.map((d) => costOf(d, cap)?.cost ?? 0) }));
  const dayTotal = (d: string, field: 'cost' | 'amortizedCost') =>
    Math.round(costs.items.filter((c) => c.date === d).reduce((n, c) => n + c[field], 0) * 100) / 100;

  return (
    <div class="figures">
      <Card id="open-now" title={t('ovOpenNow')}>
        <p class="big" data-value={open.total}>
          <Link href="/alerts">{t('ovOpenTotal', { n: open.total })}</Link>
        </p>
        {open.groups.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('severity')}</th>
                  <th scope="col">{t('sourceType')}</th>
                  <th scope="col">{t('ovIncidents')}</th>
                </tr>
              </thead>
              <tbody>
                {open.groups.map((g) => (
                  <tr key={`${g.severity}/${g.sourceType}`}>
                    <td>{g.severity === 'error' ? t('sevError') : t('sevInfo')}</td>
                    <td>{sourceTypeName(lang, g.sourceType)}</td>
                    <td data-value={g.incidents}>{num(g.incidents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>

      <Chart id="incidents-per-day" title={t('ovIncidentsPerDay')} kind="stacked-bars" labels={dayLabels} series={perDay} format={num} dataLabel={dataLabel}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('ovDay')}</th>
              {sourceTypes.map((st) => (
                <th scope="col" key={st}>
                  {sourceTypeName(lang, st)}
                </th>
              ))}
              <th scope="col">{t('ovTotal')}</th>
            </tr>
          </thead>
          <tbody>
            {daily.buckets.map((b, i) => (
              <tr key={b.from} data-day={b.from}>
                <th scope="row">{dayLabel(lang, b.from, 'long')}</th>
                {perDay.map((s) => (
                  <td key={s.label} data-value={s.values[i]}>
                    {num(s.values[i]!)}
                  </td>
                ))}
                <td data-value={b.incidents}>{num(b.incidents)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">{t('ovTotal')}</th>
              {sourceTypes.map((st) => {
                const n = metrics.bySourceType.find((s) => s.sourceType === st)?.incidents ?? 0;
                return (
                  <td key={st} data-value={n}>
                    {num(n)}
                  </td>
                );
              })}
              <td data-value={metrics.totals.incidents} data-testid="incidents-total">
                {num(metrics.totals.incidents)}
              </td>
            </tr>
          </tfoot>
        </table>
      </Chart>

      <Chart id="mtta-mttr" title={t('ovWeekly')} kind="lines" labels={weekLabels} series={weekSeries} format={num} dataLabel={dataLabel}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('ovWeekOf')}</th>
              {weekSeries.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {weekly.buckets.map((b, i) => (
              <tr key={b.from}>
                <th scope="row">
                  {dayLabel(lang, b.from, 'long')} – {dayLabel(lang, b.to, 'long')}
                </th>
                {weekSeries.map((s) => (
                  <td key={s.label} data-value={s.values[i] ?? ''}>
                    {fmt(s.values[i])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </Chart>

      <Chart id="sla" title={t('ovSla')} kind="lines" labels={slaLabels} series={slaSeries} format={num} dataLabel={dataLabel}>
        {targets && <p class="muted">{t('ovTargets', { mtta: targets.mttaMinutes, mttr: targets.mttrMinutes, avail: fmt(targets.availabilityPercent) })}</p>}
        <table>
          <thead>
            <tr>
              <th scope="col">{t('ovMonthCol')}</th>
              <th scope="col">{t('ovIncidents')}</th>
              {slaSeries.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {sla.months.map((m, i) => (
              <tr key={m.month} data-month={m.month}>
                <th scope="row">{monthLabel(lang, m.month)}</th>
                <td data-value={m.totals.incidents}>{num(m.totals.incidents)}</td>
                {slaSeries.map((s) => {
                  const v = s.values[i];
                  return v === null || v === undefined ? (
                    <td key={s.label} data-no-data="true">
                      {t('ovNoSample')}
                    </td>
                  ) : (
                    <td key={s.label} data-value={v}>
                      {num(v)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </Chart>

      <Chart
        id="availability"
        title={t('ovAvailability', { month: monthLabel(lang, month.month) })}
        kind="bars"
        labels={month.availability.map((a) => a.capacityName)}
        series={[{ label: t('ovAvailabilityCol'), values: month.availability.map((a) => a.availabilityPercent) }]}
        format={num}
        yRange={availabilityRange(month.availability.map((a) => a.availabilityPercent))}
        dataLabel={dataLabel}
      >
        <table>
          <thead>
            <tr>
              <th scope="col">{t('capName')}</th>
              <th scope="col">{t('ovAvailabilityCol')}</th>
              <th scope="col">{t('ovDowntime')}</th>
              <th scope="col">{t('ovMeetsTarget')}</th>
            </tr>
          </thead>
          <tbody>
            {month.availability.map((a) => (
              <tr key={a.capacityName} data-capacity={a.capacityName}>
                <th scope="row">{a.capacityName}</th>
                <td data-value={a.availabilityPercent}>{num(a.availabilityPercent)}</td>
                <td data-value={a.downtimeMinutes}>{num(a.downtimeMinutes)}</td>
                <td>{a.meetsTarget ? t('yes') : t('no')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Chart>

      {costs.items.length === 0 ? (
        <Card id="costs" title={t('ovCosts', { currency: '—' })}>
          <Empty>{t('ovNoCosts')}</Empty>
        </Card>
      ) : (
        <Chart
          id="costs"
          title={t('ovCosts', { currency: costs.currency ?? '—' })}
          kind="stacked-bars"
          labels={costDays.map((d) => dayLabel(lang, d, 'short'))}
          series={costSeries}
          format={money}
          axisFormat={num}
          dataLabel={dataLabel}
        >
          <table>
            <thead>
              <tr>
                <th scope="col">{t('ovDay')}</th>
                {costCaps.map((c) => (
                  <th scope="col" key={c}>
                    {c}
                  </th>
                ))}
                <th scope="col">{t('ovCostActual')}</th>
                <th scope="col">{t('ovCostAmortized')}</th>
              </tr>
            </thead>
            <tbody>
              {costDays.map((d, i) => (
                <tr key={d} data-day={d}>
                  <th scope="row">{dayLabel(lang, d, 'long')}</th>
                  {costSeries.map((s) => (
                    <td key={s.label} data-value={s.values[i]}>
                      {money(s.values[i]!)}
                    </td>
                  ))}
                  <td data-value={dayTotal(d, 'cost')}>{money(dayTotal(d, 'cost'))}</td>
                  <td data-value={dayTotal(d, 'amortizedCost')}>{money(dayTotal(d, 'amortizedCost'))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Chart>
      )}

      <Card id="noisiest" title={t('ovNoisiest')}>
        {metrics.noisiestSources.length === 0 ? (
          <Empty>{t('ovNoData')}</Empty>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('ovSource')}</th>
                  <th scope="col">{t('sourceType')}</th>
                  <th scope="col">{t('ovIncidents')}</th>
                  <th scope="col">{t('ovOccurrences')}</th>
                </tr>
              </thead>
              <tbody>
                {metrics.noisiestSources.map((s) => (
                  <tr key={`${s.sourceType}/${s.sourceName}`}>
                    <th scope="row">{s.sourceName}</th>
                    <td>{sourceTypeName(lang, s.sourceType)}</td>
                    <td data-value={s.incidents}>{num(s.incidents)}</td>
                    <td data-value={s.occurrences}>{num(s.occurrences)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </div>
  );
}

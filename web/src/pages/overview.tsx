import { useState } from 'preact/hooks';
import type { components } from '../admin-api.gen.js';
import { orgPath, useConsole } from '../app-context.js';
import { ErrorMessage, Loading, useLoad, usePageTitle } from '../components.js';
import { dayLabel, monthLabel, lastMonths, periodDays, type Period } from '../period.js';
import { Figures, type OverviewData } from './overview-figures.js';
import { SelectField } from '../forms.js';

type S = components['schemas'];

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
      <SelectField
        id="period-kind"
        label={t('ovPeriod')}
        value={value}
        onValue={(v) => props.onChange(v === 'month' ? { kind: 'month', month: months[0]! } : { kind: 'days', days: Number(v) })}
        options={[
          ['7', t('ovLast7')],
          ['30', t('ovLast30')],
          ['90', t('ovLast90')],
          ['month', t('ovMonth')],
        ]}
      />
      {p.kind === 'month' && (
        // A list of months in the interface language, not a browser date input (which follows
        // the browser's locale, not the console's: mm/dd/yyyy in the Portuguese console).
        <SelectField
          id="period-month"
          label={t('ovMonthPick')}
          value={p.month}
          onValue={(month) => props.onChange({ kind: 'month', month })}
          options={months.map((m) => [m, monthLabel(lang, m)] as const)}
        />
      )}
    </form>
  );
}

import { useEffect, useState } from 'preact/hooks';
import type { components } from '../admin-api.gen.js';
import { orgPath, useConsole } from '../app-context.js';
import { Chart } from '../chart.js';
import { pointRows, seriesColumns } from '../chart-table.js';
import { DataTable, LoadState } from '../lists.js';
import { useLoad } from '../components.js';
import { formatDate } from '../format.js';
import { Link } from '../router.js';

type S = components['schemas'];
type Item = S['CapacityUtilization'];
type Incident = S['CapacityLoadIncident'];

const PERIODS = {
  '24h': { days: 1, granularity: '30s', label: 'loadLast24h' },
  '7d': { days: 7, granularity: 'hour', label: 'loadLast7d' },
  '30d': { days: 30, granularity: 'hour', label: 'loadLast30d' },
} as const;
type PeriodKey = keyof typeof PERIODS;
const DAY_MS = 86_400_000;

/**
 * The period the section opens on: the last 7 days, unless every point of them lies in the last
 * 24 hours (a tenant connected today: one dot at the far left of a week) — then the last 24 hours.
 */
export function periodWithData(view: { to: string; items: Array<{ time: string }> }): PeriodKey {
  if (view.items.length === 0) return '7d';
  const since = Date.parse(view.to) - DAY_MS;
  return view.items.every((it) => Date.parse(it.time) >= since) ? '24h' : '7d';
}

/** The point an instant falls in: the last item starting at or before it (the first when before them all). */
function pointOf(items: Item[], iso: string): number {
  const at = Date.parse(iso);
  let idx = 0;
  items.forEach((it, i) => {
    if (Date.parse(it.time) <= at) idx = i;
  });
  return idx;
}

/**
 * Each capacity's load over a period (Capacidades page): use and the three throttling figures
 * with the 100 % line, its load incidents shaded from opening to recovery, and the same numbers
 * one click away as a table (admin route `GET …/capacities/utilization`, the public API's query).
 */
export function CapacityLoadSection(props: { orgId: string }) {
  const { t, call } = useConsole();
  const [period, setPeriod] = useState<PeriodKey>('7d');
  // Until the person picks a period, the section opens on the one that has data.
  const [picked, setPicked] = useState(false);
  const p = PERIODS[period];
  const query = new URLSearchParams({ days: String(p.days), granularity: p.granularity });
  const load = useLoad((signal) => call<S['CapacityLoadView']>('GET', orgPath(props.orgId, `/capacities/utilization?${query}`), undefined, signal), [props.orgId, period]);
  useEffect(() => {
    if (!picked && period === '7d' && load.data && periodWithData(load.data) === '24h') setPeriod('24h');
  }, [load.data]);
  const byCapacity = new Map<string, Item[]>();
  for (const it of load.data?.items ?? []) byCapacity.set(it.capacityName, [...(byCapacity.get(it.capacityName) ?? []), it]);
  return (
    <section aria-labelledby="capacity-load" data-testid="capacity-load">
      <h2 id="capacity-load">{t('loadTitle')}</h2>
      <p class="muted">{t('loadHelp')}</p>
      <label for="load-period">{t('loadPeriod')}</label>{' '}
      <select id="load-period" value={period} onChange={(e) => {
          setPicked(true);
          setPeriod((e.target as HTMLSelectElement).value as PeriodKey);
        }}
      >
        {(Object.keys(PERIODS) as PeriodKey[]).map((k) => (
          <option key={k} value={k}>
            {t(PERIODS[k].label)}
          </option>
        ))}
      </select>
      <LoadState list={load} whileReloading empty={t('loadEmpty')} count={() => byCapacity.size}>
        {(d) =>
          [...byCapacity.entries()].map(([name, items], i) => (
            <CapacityLoadChart key={name} index={i} name={name} items={items} seconds={d.granularity === '30s'} incidents={d.incidents.filter((x) => x.capacityName === name)} />
          ))
        }
      </LoadState>
    </section>
  );
}

function CapacityLoadChart(props: { index: number; name: string; items: Item[]; seconds: boolean; incidents: Incident[] }) {
  const { t, lang } = useConsole();
  const { items } = props;
  // 30-second windows read with their seconds ("28/11, 01:50:30"), else two rows would say the same minute.
  const when = new Intl.DateTimeFormat(lang, { day: '2-digit', month: '2-digit', hour: '2-digit', minute: '2-digit', ...(props.seconds ? { second: '2-digit' } : {}) });
  const num = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 });
  const labels = items.map((it) => when.format(new Date(it.time)));
  const series = [
    { label: t('loadUse'), values: items.map((it) => it.utilizationMax) },
    { label: t('loadDelay'), values: items.map((it) => it.interactiveDelayMax) },
    { label: t('loadInteractive'), values: items.map((it) => it.interactiveRejectionMax) },
    { label: t('loadBackground'), values: items.map((it) => it.backgroundRejectionMax) },
  ];
  const top = Math.max(0, ...series.flatMap((s) => s.values));
  const bands = props.incidents.map((x) => ({
    from: pointOf(items, x.openedAt),
    to: x.resolvedAt ? pointOf(items, x.resolvedAt) : items.length - 1,
    severity: x.severity === 'error' ? ('error' as const) : ('info' as const),
  }));
  const opensAt = new Map<number, Incident[]>();
  props.incidents.forEach((x, i) => {
    opensAt.set(bands[i]!.from, [...(opensAt.get(bands[i]!.from) ?? []), x]);
  });
  const id = `load-${props.index}`;
  return (
    <div data-capacity-load={props.name}>
      <Chart
        id={id}
        title={t('loadChartOf', { name: props.name })}
        kind="lines"
        labels={labels}
        series={series}
        format={(v) => `${num.format(v)} %`}
        yRange={[0, Math.max(120, Math.ceil(top * 1.1))]}
        refLine={100}
        bands={bands}
        dataLabel={t('ovShowData')}
      >
        <DataTable
          id={`${id}-table`}
          caption={t('loadChartOf', { name: props.name })}
          captionClass="sr-only"
          rows={pointRows(items)}
          rowKey={(i) => items[i]!.time}
          rowAttrs={(i) => ({ 'data-time': items[i]!.time })}
          columns={[
            { label: t('loadTime'), rowHeader: true, cell: (i) => labels[i] },
            ...seriesColumns(series, (v) => num.format(v ?? 0)),
            { label: t('loadCarry'), cell: (i) => num.format(items[i]!.carryForwardMaxCuSeconds), value: (i) => items[i]!.carryForwardMaxCuSeconds },
            { label: t('loadIncident'), cell: (i) => (opensAt.get(i) ?? []).map((x) => x.title).join('; ') },
          ]}
        />
      </Chart>
      <LoadIncidents name={props.name} incidents={props.incidents} />
    </div>
  );
}

/** A capacity's load incidents of the period, each linking to its page, with when it opened and recovered. */
function LoadIncidents(props: { name: string; incidents: Incident[] }) {
  const { t, lang } = useConsole();
  if (props.incidents.length === 0) return null;
  return (
    <section aria-label={t('loadIncidents', { name: props.name })}>
      <h3>{t('loadIncidents', { name: props.name })}</h3>
      <ul data-testid="load-incidents">
        {props.incidents.map((x) => (
          <li key={x.id}>
            <Link href={`/alerts/${encodeURIComponent(x.id)}`}>{x.title}</Link> ·{' '}
            {x.resolvedAt ? t('loadFromTo', { from: formatDate(lang, x.openedAt), to: formatDate(lang, x.resolvedAt) }) : t('loadOpenSince', { at: formatDate(lang, x.openedAt) })}
          </li>
        ))}
      </ul>
    </section>
  );
}

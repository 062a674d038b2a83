import type { Tenant } from '../api.js';
import { useConsole } from '../app-context.js';
import { ErrorMessage, Notice, useAction } from '../components.js';
import { formatDate } from '../format.js';
import { collectorName } from '../i18n-sources.js';
import { serverText } from '../labels.js';
import { DataTable } from '../lists.js';

type Collector = Tenant['collectors'][number];

/** A tenant connection's collectors: state, last and next run, cost of the last run, rotation, last error, and "run now". */
export function CollectorsTable(props: { path: string; tenant: Tenant; onChanged: () => void }) {
  const { t, call, can, lang } = useConsole();
  const run = useAction();
  const num = new Intl.NumberFormat(lang);
  const count = (v: number | null) => (v === null ? '—' : num.format(v));
  const runNow = (c: Collector) =>
    can('operator') &&
    c.enabled && (
      <button
        type="button"
        class="secondary"
        disabled={run.busy}
        aria-label={t('tnRunNowOf', { collector: collectorName(lang, c.name) })}
        onClick={() =>
          run.run(async () => {
            await call('POST', `${props.path}/collectors/${encodeURIComponent(c.name)}/run`);
            props.onChanged();
            return t('tnRunQueued', { collector: collectorName(lang, c.name) });
          })
        }
      >
        {t('tnRunNow')}
      </button>
    );
  return (
    <>
      {run.notice && <Notice>{run.notice}</Notice>}
      <ErrorMessage error={run.error} />
      <DataTable
        list
        wrap
        caption={t('tnCollectors', { name: props.tenant.name })}
        rows={props.tenant.collectors}
        rowKey={(c) => c.name}
        rowAttrs={(c) => ({ 'data-collector': c.name })}
        columns={[
          {
            label: t('tnCollector'),
            rowHeader: true,
            cell: (c) => (
              <>
                {collectorName(lang, c.name)} <code class="muted">{c.name}</code>
              </>
            ),
          },
          { label: t('tnEnabled'), cell: (c) => (c.enabled ? t('tnYes') : t('tnNo')) },
          {
            label: t('tnLastRun'),
            cell: (c) => (c.running ? t('tnRunning') : formatDate(lang, c.lastRunAt, t('never'))),
            value: (c) => c.lastRunAt ?? '',
            attrs: () => ({ 'data-testid': 'last-run' }),
          },
          {
            label: t('tnNextRun'),
            cell: (c) => (
              <>
                {formatDate(lang, c.nextRunAt)}
                <EffectiveInterval collector={c} />
              </>
            ),
          },
          { label: t('tnDuration'), cell: (c) => (c.lastDurationMs === null ? '—' : `${num.format(c.lastDurationMs)} ms`) },
          { label: t('tnCalls'), cell: (c) => count(c.lastCalls) },
          { label: t('tnThrottled'), cell: (c) => count(c.lastThrottledCalls) },
          { label: t('tnRotation'), cell: (c) => <Rotation rotation={c.rotation} />, attrs: () => ({ 'data-testid': 'rotation' }) },
          { label: t('tnLastError'), cell: (c) => (c.lastErrorText ? c.lastErrorText[lang] : c.lastError ? serverText(t, lang, c.lastError) : '—') },
          { label: t('tnRunNow'), hidden: true, cell: runNow },
        ]}
      />
    </>
  );
}

/** A rotating collector's turns: the last full rotation (or "every run" when nothing takes turns), hot and cold counts, the catalog's pass. */
function Rotation(props: { rotation: Collector['rotation'] }) {
  const { t, lang } = useConsole();
  const r = props.rotation;
  if (!r) return <>—</>;
  const num = new Intl.NumberFormat(lang);
  const seconds = (s: number | null) => (s === null ? t('tnRotationPending') : `${num.format(s)} s`);
  return (
    <>
      {t('tnRotationValue', {
        // Nothing taking turns: every resource every run; else the last full rotation, once one completed.
        time: r.cold === 0 ? t('tnRotationEveryRun') : seconds(r.lastFullRotationSeconds),
        hot: num.format(r.hot),
        cold: num.format(r.cold),
      })}
      {r.catalog && (
        // freshness: its catalog's pass over the workspaces, read in slices beside the models' rotation.
        <div class="muted" data-testid="catalog-rotation">
          {t('tnCatalogRotation', { time: seconds(r.catalog.lastFullRotationSeconds), workspaces: num.format(r.catalog.cold) })}
        </div>
      )}
    </>
  );
}

/** The interval a collector runs at when its budget cannot honour the one asked for (the admin API's effectiveIntervalSeconds). */
function EffectiveInterval(props: { collector: Tenant['collectors'][number] }) {
  const { t, lang } = useConsole();
  const c = props.collector;
  if (c.effectiveIntervalSeconds <= c.intervalSeconds) return null;
  const num = new Intl.NumberFormat(lang);
  return (
    <div class="muted" data-testid="effective-interval" title={c.effectiveIntervalNote ?? undefined}>
      {t('tnEffectiveInterval', { seconds: num.format(c.effectiveIntervalSeconds), asked: num.format(c.intervalSeconds) })}
    </div>
  );
}

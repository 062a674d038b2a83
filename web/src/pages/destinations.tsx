import { useState } from 'preact/hooks';
import type { Destination, Health } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { Empty, ErrorMessage, Notice, ShownOnce, useLoad, usePageTitle } from '../components.js';
import { formatDate, formatPercent } from '../format.js';
import type { Lang, Translate } from '../i18n.js';
import { healthLabel, kindLabel } from '../labels.js';
import { Link } from '../router.js';
import { DestinationForm } from './destination-form.js';

/** `successRate24h` is a ratio 0–1 (null when nothing ended in the last 24 hours). */
export function successRate(lang: Lang, rate: number | null | undefined): string {
  return formatPercent(lang, rate);
}

export function HealthSummary(props: { health: Health | undefined; t: Translate; lang: Lang }) {
  const { health, t, lang } = props;
  if (!health) return <span class="muted">{t('healthUnknown')}</span>;
  return (
    <span>
      <span class={`badge health-${health.state}`}>{healthLabel(t, health)}</span> {successRate(lang, health.successRate24h)}
      {health.lastFailureAt && (
        <small class="muted">
          {' '}
          · {t('lastFailureAt')}: {formatDate(lang, health.lastFailureAt)}
        </small>
      )}
    </span>
  );
}

export function DestinationsPage(props: { orgId: string }) {
  const { t, call, lang, can } = useConsole();
  usePageTitle(t('destinationsTitle'));
  const list = useLoad((signal) => call<Destination[]>('GET', orgPath(props.orgId, '/destinations'), undefined, signal), [props.orgId]);
  const [created, setCreated] = useState<{ name: string; secret?: string } | null>(null);

  return (
    <section>
      <h1>{t('destinationsTitle')}</h1>
      {created && <Notice>{t('destinationCreated', { name: created.name })}</Notice>}
      {created?.secret && (
        <ShownOnce title={t('secretTitle')} warning={t('secretOnce')} value={created.secret} onDone={() => setCreated({ name: created.name })} />
      )}
      {list.loading && !list.data && <p>{t('loading')}</p>}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && list.data.length === 0 && <Empty>{t('destinationsEmpty')}</Empty>}
      {list.data && list.data.length > 0 && (
        <table class="list">
          <caption class="sr-only">{t('destinationsTitle')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('name')}</th>
              <th scope="col">{t('kind')}</th>
              <th scope="col">{t('state')}</th>
              <th scope="col">{t('health')}</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((d) => (
              <tr key={d.id}>
                <td data-label={t('name')}>
                  <Link href={`/destinations/${encodeURIComponent(d.id)}`}>{d.name}</Link>
                </td>
                <td data-label={t('kind')}>{kindLabel(t, d.kind)}</td>
                <td data-label={t('state')}>
                  <span class={`badge ${d.enabled ? 'ok' : 'warn'}`}>{d.enabled ? t('enabled') : t('disabled')}</span>
                </td>
                <td data-label={t('health')}>
                  <HealthSummary health={d.health} t={t} lang={lang} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {can('owner') && (
        <DestinationForm
          orgId={props.orgId}
          onCreated={(d) => {
            setCreated({ name: d.name, secret: d.signingSecret });
            list.reload();
          }}
        />
      )}
    </section>
  );
}

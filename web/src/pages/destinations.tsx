import { useState } from 'preact/hooks';
import type { Destination, Health } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { Notice, ShownOnce } from '../components.js';
import { DataTable, ListPage, useGet } from '../lists.js';
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
  const { t, lang, can } = useConsole();
  const list = useGet<Destination[]>(orgPath(props.orgId, '/destinations'));
  const [created, setCreated] = useState<{ name: string; secret?: string } | null>(null);
  const before = created && (
    <>
      <Notice>{t('destinationCreated', { name: created.name })}</Notice>
      {created.secret && <ShownOnce title={t('secretTitle')} warning={t('secretOnce')} value={created.secret} onDone={() => setCreated({ name: created.name })} />}
    </>
  );
  const form = can('owner') && (
    <DestinationForm
      orgId={props.orgId}
      onCreated={(d) => {
        setCreated({ name: d.name, secret: d.signingSecret });
        list.reload();
      }}
    />
  );
  return (
    <ListPage title={t('destinationsTitle')} list={list} empty={t('destinationsEmpty')} before={before} after={form}>
      {(destinations) => (
        <DataTable
          list
          caption={t('destinationsTitle')}
          captionClass="sr-only"
          rows={destinations}
          rowKey={(d) => d.id}
          columns={[
            { label: t('name'), cell: (d) => <Link href={`/destinations/${encodeURIComponent(d.id)}`}>{d.name}</Link> },
            { label: t('kind'), cell: (d) => kindLabel(t, d.kind) },
            { label: t('state'), cell: (d) => <EnabledBadge enabled={d.enabled} /> },
            { label: t('health'), cell: (d) => <HealthSummary health={d.health} t={t} lang={lang} /> },
          ]}
        />
      )}
    </ListPage>
  );
}

/** Whether a destination is enabled, as a badge. */
export function EnabledBadge(props: { enabled: boolean }) {
  const { t } = useConsole();
  return <span class={`badge ${props.enabled ? 'ok' : 'warn'}`}>{props.enabled ? t('enabled') : t('disabled')}</span>;
}

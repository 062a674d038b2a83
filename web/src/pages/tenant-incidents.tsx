import type { AlertPage } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { ErrorMessage, useLoad } from '../components.js';
import { formatDate } from '../format.js';
import { Link } from '../router.js';

/**
 * The monitor's own incidents about this connection (source type "Tenant", source id the
 * connection's id), said to be exactly that, and a link to every open incident of the tenant
 * (the alerts list filtered by the connection), with their count.
 */
export function TenantIncidents(props: { orgId: string; tenantId: string; tenantName: string }) {
  const { t, call, lang } = useConsole();
  const own = new URLSearchParams({ status: 'open', sourceType: 'Tenant', sourceId: props.tenantId, pageSize: '100' });
  const all = new URLSearchParams({ status: 'open', tenant: props.tenantId, pageSize: '1' });
  const list = useLoad(
    async (signal) => {
      const [mine, every] = await Promise.all([
        call<AlertPage>('GET', orgPath(props.orgId, `/alerts?${own}`), undefined, signal),
        call<AlertPage>('GET', orgPath(props.orgId, `/alerts?${all}`), undefined, signal),
      ]);
      return { mine: mine.value, total: every.totalCount };
    },
    [props.orgId, props.tenantId],
  );
  const mine = list.data?.mine ?? [];
  const href = `/alerts?${new URLSearchParams({ tenant: props.tenantId, tenantName: props.tenantName })}`;
  return (
    <section aria-label={t('tnIncidents', { name: props.tenantName })} data-testid="tenant-incidents">
      <h3>{t('tnIncidents', { name: props.tenantName })}</h3>
      <p class="muted">{t('tnIncidentsHelp')}</p>
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && mine.length === 0 && <p class="muted">{t('tnNoIncidents')}</p>}
      {mine.length > 0 && (
        <ul>
          {mine.map((a) => (
            <li key={a.id}>
              <Link href={`/alerts/${encodeURIComponent(a.id)}`}>{a.title}</Link> · {a.severity === 'error' ? t('sevError') : t('sevInfo')} · {formatDate(lang, a.createdAt)}
            </li>
          ))}
        </ul>
      )}
      {list.data && (
        <p>
          <Link href={href} data-testid="tenant-all-incidents">
            {t('tnAllIncidents', { name: props.tenantName, n: list.data.total })}
          </Link>
        </p>
      )}
    </section>
  );
}

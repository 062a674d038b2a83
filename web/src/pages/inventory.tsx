import type { components } from '../admin-api.gen.js';
import { orgPath, useConsole } from '../app-context.js';
import { Empty, ErrorMessage, Loading, useLoad, usePageTitle } from '../components.js';
import { monthLabel } from '../period.js';
import { Link } from '../router.js';
import '../charts.css';

type S = components['schemas'];

/** The open incidents of one capacity or workspace: the alert list, filtered. */
export function incidentsHref(by: 'capacityName' | 'workspaceName', name: string): string {
  return `/alerts?${new URLSearchParams({ [by]: name })}`;
}

/** Capacities: SKU, state, region, availability and cost this month, open incidents (linked). */
export function CapacitiesPage(props: { orgId: string }) {
  const { t, call, lang } = useConsole();
  usePageTitle(t('capTitle'));
  const list = useLoad((signal) => call<S['CapacityInventory']>('GET', orgPath(props.orgId, '/capacities'), undefined, signal), [props.orgId]);
  const num = new Intl.NumberFormat(lang, { maximumFractionDigits: 2 });
  const money = (v: number | null, currency: string | null) =>
    v === null ? '—' : currency ? new Intl.NumberFormat(lang, { style: 'currency', currency }).format(v) : num.format(v);
  const d = list.data;
  return (
    <section>
      <h1>{t('capTitle')}</h1>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {d && d.items.length === 0 && <Empty>{t('capEmpty')}</Empty>}
      {d && d.items.length > 0 && (
        <div class="table-wrap">
          <table id="capacities">
            <caption class="muted">{monthLabel(lang, d.month)}</caption>
            <thead>
              <tr>
                <th scope="col">{t('capName')}</th>
                <th scope="col">{t('capSku')}</th>
                <th scope="col">{t('capState')}</th>
                <th scope="col">{t('capRegion')}</th>
                <th scope="col">{t('capAvailability')}</th>
                <th scope="col">{t('capCost')}</th>
                <th scope="col">{t('capOpen')}</th>
              </tr>
            </thead>
            <tbody>
              {d.items.map((c) => (
                <tr key={c.name} data-capacity={c.name}>
                  <th scope="row">{c.name}</th>
                  <td>{c.sku}</td>
                  <td>{c.state}</td>
                  <td>{c.region}</td>
                  <td data-value={c.availabilityPercent}>{num.format(c.availabilityPercent)}</td>
                  <td data-value={c.costThisMonth ?? ''}>{money(c.costThisMonth, d.currency)}</td>
                  <td data-value={c.openIncidents}>
                    <Link href={incidentsHref('capacityName', c.name)} aria-label={t('capIncidentsOf', { name: c.name, n: c.openIncidents })}>
                      {num.format(c.openIncidents)}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Workspaces: their capacity and open incidents (linked). */
export function WorkspacesPage(props: { orgId: string }) {
  const { t, call, lang } = useConsole();
  usePageTitle(t('wsTitle'));
  const list = useLoad((signal) => call<S['WorkspaceInventory']>('GET', orgPath(props.orgId, '/workspaces'), undefined, signal), [props.orgId]);
  const num = new Intl.NumberFormat(lang);
  const d = list.data;
  return (
    <section>
      <h1>{t('wsTitle')}</h1>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {d && d.items.length === 0 && <Empty>{t('wsEmpty')}</Empty>}
      {d && d.items.length > 0 && (
        <div class="table-wrap">
          <table id="workspaces">
            <thead>
              <tr>
                <th scope="col">{t('wsName')}</th>
                <th scope="col">{t('wsCapacity')}</th>
                <th scope="col">{t('capOpen')}</th>
              </tr>
            </thead>
            <tbody>
              {d.items.map((w) => (
                <tr key={w.remoteId} data-workspace={w.name}>
                  <th scope="row">{w.name}</th>
                  <td>{w.capacityName ? <Link href={incidentsHref('capacityName', w.capacityName)}>{w.capacityName}</Link> : t('none')}</td>
                  <td data-value={w.openIncidents}>
                    <Link href={incidentsHref('workspaceName', w.name)} aria-label={t('capIncidentsOf', { name: w.name, n: w.openIncidents })}>
                      {num.format(w.openIncidents)}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

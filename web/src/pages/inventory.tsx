import type { ComponentChildren } from 'preact';
import type { components } from '../admin-api.gen.js';
import { orgPath, useConsole } from '../app-context.js';
import { Empty, ErrorMessage, Loading, useLoad, usePageTitle } from '../components.js';
import { monthLabel } from '../period.js';
import { Link } from '../router.js';
import '../charts.css';
import { CapacityLoadSection } from './capacity-load.js';

type S = components['schemas'];

/** The open incidents of one capacity or workspace: the alert list, filtered. */
export function incidentsHref(by: 'capacityName' | 'workspaceName', name: string): string {
  return `/alerts?${new URLSearchParams({ [by]: name })}`;
}

/** The frame every inventory page shares: its title, loading, a failure with retry, the empty text, the table. */
export function InventoryFrame<D extends { items: unknown[] }>(props: {
  title: string;
  empty: string;
  list: { data: D | undefined; error: unknown; loading: boolean; reload: () => void };
  children: (data: D) => ComponentChildren;
  /** Shown under the title, before the list (a search form). */
  tools?: ComponentChildren;
  /** Shown under the table (a "show more" button). */
  after?: ComponentChildren;
}) {
  const d = props.list.data;
  return (
    <section>
      <h1>{props.title}</h1>
      {props.tools}
      {props.list.loading && <Loading />}
      <ErrorMessage error={props.list.error} onRetry={props.list.reload} />
      {d && d.items.length === 0 && <Empty>{props.empty}</Empty>}
      {d && d.items.length > 0 && <div class="table-wrap">{props.children(d)}</div>}
      {props.after}
    </section>
  );
}

/** A row's count of open incidents, linked to them (the link names the row for screen readers). */
export function OpenIncidentsCell(props: { count: number; href: string; name: string }) {
  const { t, lang } = useConsole();
  return (
    <td data-value={props.count}>
      <Link href={props.href} aria-label={t('capIncidentsOf', { name: props.name, n: props.count })}>
        {new Intl.NumberFormat(lang).format(props.count)}
      </Link>
    </td>
  );
}

/** Capacities: SKU, state, region, availability and cost this month, open incidents (linked). */
export function CapacitiesPage(props: { orgId: string }) {
  const { t, call, lang } = useConsole();
  usePageTitle(t('capTitle'));
  const list = useLoad((signal) => call<S['CapacityInventory']>('GET', orgPath(props.orgId, '/capacities'), undefined, signal), [props.orgId]);
  const num = new Intl.NumberFormat(lang, { maximumFractionDigits: 2 });
  const money = (v: number | null, currency: string | null) =>
    v === null ? '—' : currency ? new Intl.NumberFormat(lang, { style: 'currency', currency }).format(v) : num.format(v);
  return (
    <>
    <InventoryFrame title={t('capTitle')} empty={t('capEmpty')} list={list}>
      {(d) => (
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
                <OpenIncidentsCell count={c.openIncidents} href={incidentsHref('capacityName', c.name)} name={c.name} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </InventoryFrame>
    {/* After the list: one read (and one "loading") at a time, and none left behind when the page is left. */}
      {list.data && <CapacityLoadSection orgId={props.orgId} />}
    </>
  );
}

/** Workspaces: their capacity and open incidents (linked). */
export function WorkspacesPage(props: { orgId: string }) {
  const { t, call } = useConsole();
  usePageTitle(t('wsTitle'));
  const list = useLoad((signal) => call<S['WorkspaceInventory']>('GET', orgPath(props.orgId, '/workspaces'), undefined, signal), [props.orgId]);
  return (
    <InventoryFrame title={t('wsTitle')} empty={t('wsEmpty')} list={list}>
      {(d) => (
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
                <OpenIncidentsCell count={w.openIncidents} href={incidentsHref('workspaceName', w.name)} name={w.name} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </InventoryFrame>
  );
}

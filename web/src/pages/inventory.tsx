import type { ComponentChildren } from 'preact';
import type { components } from '../admin-api.gen.js';
import { orgPath, useConsole } from '../app-context.js';
import { DataTable, ListPage, LoadState, useGet, type Column, type Loaded } from '../lists.js';
import { usePageTitle } from '../components.js';
import { objectChangesColumn, WithChangesTab } from './changes-focus.js';
import { monthLabel } from '../period.js';
import { Link } from '../router.js';
import { CopyableId } from '../copy.js';
import { capacityStateLabel } from '../labels.js';
import '../charts.css';
import { CapacityLoadSection } from './capacity-load.js';

type S = components['schemas'];

/** The open incidents of one capacity or workspace: the alert list, filtered. */
export function incidentsHref(by: 'capacityName' | 'workspaceName', name: string): string {
  return `/alerts?${new URLSearchParams({ [by]: name })}`;
}

/**
 * An inventory page: a list page of one table of `items` (a row per item, the table scrolling
 * sideways), "loading" shown on every read.
 */
export function InventoryPage<D extends { items: T[] }, T>(props: {
  title: string;
  empty: string;
  list: Loaded<D>;
  tableId: string;
  caption?: (data: D) => string;
  rowKey: (row: T) => string;
  rowAttrs: (row: T) => Record<string, string>;
  columns: (data: D) => Array<Column<T>>;
  /** Shown under the title, before the list (a search form). */
  before?: ComponentChildren;
  /** Shown under the table (a "show more" button). */
  after?: ComponentChildren;
  /** The page has a "Mudanças" tab: the tenants' changes to this kind of object (pages/changes.tsx). */
  changes?: { orgId: string; objectKind: 'gateway' | 'item' | 'capacity' };
}) {
  const table = (d: D) => (
    <DataTable wrap id={props.tableId} caption={props.caption?.(d)} captionClass="muted" rows={d.items} rowKey={props.rowKey} rowAttrs={props.rowAttrs} columns={props.columns(d)} />
  );
  const ch = props.changes;
  if (!ch) {
    return (
      <ListPage title={props.title} empty={props.empty} list={props.list} whileReloading count={(d) => d.items.length} before={props.before} after={props.after}>
        {table}
      </ListPage>
    );
  }
  return (
    <TabbedPage title={props.title} id={props.tableId} orgId={ch.orgId} objectKind={ch.objectKind}>
      {props.before}
      <LoadState list={props.list} empty={props.empty} whileReloading count={(d) => d.items.length}>
        {table}
      </LoadState>
      {props.after}
    </TabbedPage>
  );
}

/** A list page whose content is the first of two tabs, the second the changes to its kind of object. */
function TabbedPage(props: { title: string; id: string; orgId: string; objectKind: 'gateway' | 'item' | 'capacity'; children: ComponentChildren }) {
  usePageTitle(props.title);
  return (
    <section>
      <h1>{props.title}</h1>
      <WithChangesTab id={props.id} orgId={props.orgId} objectKind={props.objectKind}>
        {props.children}
      </WithChangesTab>
    </section>
  );
}

/** The column of a row's open incidents, linked to them (the link names the row for screen readers). */
export function openIncidentsColumn<T>(label: string, of: (row: T) => { count: number; href: string; name: string }): Column<T> {
  return { label, value: (row) => of(row).count, cell: (row) => <OpenIncidentsLink {...of(row)} /> };
}

function OpenIncidentsLink(props: { count: number; href: string; name: string }) {
  const { t, lang } = useConsole();
  return (
    <Link href={props.href} aria-label={t('capIncidentsOf', { name: props.name, n: props.count })}>
      {new Intl.NumberFormat(lang).format(props.count)}
    </Link>
  );
}

type Capacity = S['CapacityInventory']['items'][number];
type Workspace = S['WorkspaceInventory']['items'][number];

/** Capacities: SKU, state, region, availability and cost this month, open incidents (linked). */
export function CapacitiesPage(props: { orgId: string }) {
  const { t, lang } = useConsole();
  const list = useGet<S['CapacityInventory']>(orgPath(props.orgId, '/capacities'));
  const num = new Intl.NumberFormat(lang, { maximumFractionDigits: 2 });
  const money = (v: number | null, currency: string | null) =>
    v === null ? '—' : currency ? new Intl.NumberFormat(lang, { style: 'currency', currency }).format(v) : num.format(v);
  return (
    <>
      <InventoryPage
        title={t('capTitle')}
        empty={t('capEmpty')}
        list={list}
        changes={{ orgId: props.orgId, objectKind: 'capacity' }}
        tableId="capacities"
        caption={(d) => monthLabel(lang, d.month)}
        rowKey={(c: Capacity) => c.name}
        rowAttrs={(c) => ({ 'data-capacity': c.name })}
        columns={(d) => [
          // The display name, as every page says it; the Azure resource name (Cost Management's) beside it.
          { label: t('capName'), rowHeader: true, cell: (c) => (c.armName && c.armName !== c.name ? <>{c.name} <small class="muted" data-testid="arm-name">{c.armName}</small></> : c.name) },
          { label: t('capSku'), cell: (c) => c.sku },
          { label: t('capState'), cell: (c) => capacityStateLabel(t, c.state) },
          { label: t('capRegion'), cell: (c) => c.region },
          { label: t('capAvailability'), cell: (c) => num.format(c.availabilityPercent), value: (c) => c.availabilityPercent },
          { label: t('capCost'), cell: (c) => money(c.costThisMonth, d.currency), value: (c) => c.costThisMonth ?? '' },
          openIncidentsColumn<Capacity>(t('capOpen'), (c) => ({ count: c.openIncidents, href: incidentsHref('capacityName', c.name), name: c.name })),
          objectChangesColumn<Capacity>(t('chTab'), (c) => ({ kind: 'capacity', name: c.name, in: c.monitored })),
        ]}
      />
      {/* After the list: one read (and one "loading") at a time, and none left behind when the page is left. */}
      {list.data && <CapacityLoadSection orgId={props.orgId} />}
    </>
  );
}

/** Workspaces: their capacity and open incidents (linked). */
export function WorkspacesPage(props: { orgId: string }) {
  const { t } = useConsole();
  const list = useGet<S['WorkspaceInventory']>(orgPath(props.orgId, '/workspaces'));
  return (
    <InventoryPage
      title={t('wsTitle')}
      empty={t('wsEmpty')}
      list={list}
      tableId="workspaces"
      rowKey={(w: Workspace) => w.remoteId}
      rowAttrs={(w) => ({ 'data-workspace': w.name })}
      columns={() => [
        { label: t('wsName'), rowHeader: true, cell: (w) => w.name },
        { label: t('wsId'), cell: (w) => <CopyableId value={w.remoteId} name={w.name} />, value: (w) => w.remoteId },
        { label: t('wsCapacity'), cell: (w) => (w.capacityName ? <Link href={incidentsHref('capacityName', w.capacityName)}>{w.capacityName}</Link> : t('none')) },
        openIncidentsColumn<Workspace>(t('capOpen'), (w) => ({ count: w.openIncidents, href: incidentsHref('workspaceName', w.name), name: w.name })),
      ]}
    />
  );
}

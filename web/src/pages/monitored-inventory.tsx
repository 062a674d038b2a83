import { useState } from 'preact/hooks';
import type { components } from '../admin-api.gen.js';
import { orgPath, useConsole } from '../app-context.js';
import { useGet } from '../lists.js';
import { Link } from '../router.js';
import { incidentsHref, InventoryPage, openIncidentsColumn } from './inventory.js';
import { objectChangesColumn } from './changes-focus.js';

type S = components['schemas'];

/** The open incidents of one monitored source (a gateway, a semantic model): the alert list, filtered. */
export function sourceIncidentsHref(sourceType: 'Gateway' | 'Dataset', sourceId: string, name: string): string {
  return `/alerts?${new URLSearchParams({ sourceType, sourceId, sourceName: name })}`;
}

type Gateway = S['GatewayInventory']['items'][number];

/** On-premises gateways the gateway collector watches: status, upgrade, open incidents (linked). */
export function GatewaysPage(props: { orgId: string }) {
  const { t } = useConsole();
  const list = useGet<S['GatewayInventory']>(orgPath(props.orgId, '/gateways'));
  return (
    <InventoryPage
      title={t('gwTitle')}
      empty={t('gwEmpty')}
      list={list}
      changes={{ orgId: props.orgId, objectKind: 'gateway' }}
      tableId="gateways"
      rowKey={(g: Gateway) => `${g.tenantName}/${g.id}`}
      rowAttrs={(g) => ({ 'data-gateway': g.id })}
      columns={() => [
        { label: t('gwName'), rowHeader: true, cell: (g) => g.name },
        { label: t('gwTenant'), class: 'text', cell: (g) => g.tenantName },
        { label: t('gwStatus'), class: 'text', cell: (g) => <span class={g.offline ? 'badge bad' : 'badge ok'}>{g.offline ? t('gwOffline') : t('gwOnline')}</span> },
        { label: t('gwUpgrade'), class: 'text', cell: (g) => (g.upgradeRequired ? t('gwUpgradeRequired') : t('gwUpToDate')) },
        openIncidentsColumn<Gateway>(t('capOpen'), (g) => ({ count: g.openIncidents, href: sourceIncidentsHref('Gateway', g.id, g.name), name: g.name })),
        objectChangesColumn<Gateway>(t('chTab'), (g) => ({ kind: 'gateway', name: g.name, in: [{ tenantId: g.tenantId, tenantName: g.tenantName, id: g.id }] })),
      ]}
    />
  );
}

type ModelPage = S['SemanticModelInventory'];

/**
 * The semantic-models list, a page at a time (an enterprise tenant has 200,000): the first page
 * for the name searched, and "Mostrar mais" appends the next one.
 */
function useModelPages(orgId: string, search: string) {
  const { call } = useConsole();
  const path = (after: string | null) => {
    const query = new URLSearchParams();
    if (search) query.set('search', search);
    if (after) query.set('after', after);
    return orgPath(orgId, `/semantic-models?${query}`);
  };
  const [extra, setExtra] = useState<{ key: string; pages: ModelPage[] }>({ key: '', pages: [] });
  const key = `${orgId}\n${search}`;
  const first = useGet<ModelPage>(path(null));
  const pages = extra.key === key ? extra.pages : [];
  const last = pages.at(-1) ?? first.data;
  const [moreError, setMoreError] = useState<unknown>(null);
  const loadMore = async () => {
    if (!last?.nextCursor) return;
    try {
      const next = await call<ModelPage>('GET', path(last.nextCursor));
      setMoreError(null);
      setExtra({ key, pages: [...pages, next] });
    } catch (error) {
      setMoreError(error);
    }
  };
  const data = first.data && { items: [first.data, ...pages].flatMap((p) => p.items), nextCursor: last?.nextCursor ?? null };
  return { list: { ...first, data }, loadMore, moreError };
}

/** The name search above the models' table. */
function ModelSearch(props: { onSearch: (text: string) => void }) {
  const { t } = useConsole();
  const [draft, setDraft] = useState('');
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSearch(draft.trim());
      }}
    >
      <div class="field">
        <label for="sm-search">{t('smSearch')}</label>
        <input id="sm-search" type="search" maxLength={200} value={draft} onInput={(e) => setDraft((e.target as HTMLInputElement).value)} />
      </div>
      <button type="submit">{t('smSearchGo')}</button>
    </form>
  );
}

/** Semantic models with their workspace, capacity and gateways, and open incidents (linked), a hundred at a time. */
export function SemanticModelsPage(props: { orgId: string }) {
  const { t } = useConsole();
  const [search, setSearch] = useState('');
  const { list, loadMore, moreError } = useModelPages(props.orgId, search);
  const after = (
    <>
      {moreError !== null && <p role="alert">{t('smMoreFailed')}</p>}
      {list.data?.nextCursor && (
        <button type="button" id="sm-more" onClick={loadMore}>
          {t('smMore')}
        </button>
      )}
    </>
  );
  return (
    <InventoryPage
      title={t('smTitle')}
      empty={search ? t('smNoMatch', { search }) : t('smEmpty')}
      list={list}
      before={<ModelSearch onSearch={setSearch} />}
      after={after}
      changes={{ orgId: props.orgId, objectKind: 'item' }}
      tableId="semantic-models"
      rowKey={(m: Model) => `${m.tenantName}/${m.id}`}
      rowAttrs={(m) => ({ 'data-semantic-model': m.id })}
      columns={() => [
        { label: t('smName'), rowHeader: true, cell: (m) => m.name },
        { label: t('smWorkspace'), class: 'text', cell: (m) => (m.workspaceName ? <Link href={incidentsHref('workspaceName', m.workspaceName)}>{m.workspaceName}</Link> : t('unknownName', { id: m.workspaceId })) },
        { label: t('smCapacity'), class: 'text', cell: (m) => <ModelCapacity model={m} /> },
        { label: t('smGateways'), class: 'text', cell: (m) => <ModelGateways gateways={m.gateways} /> },
        openIncidentsColumn<Model>(t('capOpen'), (m) => ({ count: m.openIncidents, href: sourceIncidentsHref('Dataset', m.id, m.name), name: m.name })),
        objectChangesColumn<Model>(t('chTab'), (m) => ({ kind: 'item', name: m.name, in: [{ tenantId: m.tenantId, tenantName: m.tenantName, id: m.id }] })),
      ]}
    />
  );
}

type Model = S['SemanticModelInventory']['items'][number];

/** A model's capacity, linked to its incidents; "unknown (id)" while its name is not known. */
function ModelCapacity(props: { model: Model }) {
  const { t } = useConsole();
  const m = props.model;
  if (m.capacityName) return <Link href={incidentsHref('capacityName', m.capacityName)}>{m.capacityName}</Link>;
  return <>{m.capacityId ? t('unknownName', { id: m.capacityId }) : t('none')}</>;
}

/** The gateways a model reads through, each linked to its incidents. */
function ModelGateways(props: { gateways: Model['gateways'] }) {
  const { t } = useConsole();
  if (props.gateways.length === 0) return <>{t('none')}</>;
  return (
    <>
      {props.gateways.map((g, i) => (
        <span key={g.id}>
          {i > 0 && ', '}
          <Link href={sourceIncidentsHref('Gateway', g.id, g.name ?? g.id)}>{g.name ?? t('unknownName', { id: g.id })}</Link>
        </span>
      ))}
    </>
  );
}

import { useState } from 'preact/hooks';
import type { components } from '../admin-api.gen.js';
import { orgPath, useConsole } from '../app-context.js';
import { useLoad, usePageTitle } from '../components.js';
import { Link } from '../router.js';
import { incidentsHref, InventoryFrame, OpenIncidentsCell } from './inventory.js';

type S = components['schemas'];

/** The open incidents of one monitored source (a gateway, a semantic model): the alert list, filtered. */
export function sourceIncidentsHref(sourceType: 'Gateway' | 'Dataset', sourceId: string, name: string): string {
  return `/alerts?${new URLSearchParams({ sourceType, sourceId, sourceName: name })}`;
}

/** On-premises gateways the gateway collector watches: status, upgrade, open incidents (linked). */
export function GatewaysPage(props: { orgId: string }) {
  const { t, call } = useConsole();
  usePageTitle(t('gwTitle'));
  const list = useLoad((signal) => call<S['GatewayInventory']>('GET', orgPath(props.orgId, '/gateways'), undefined, signal), [props.orgId]);
  return (
    <InventoryFrame title={t('gwTitle')} empty={t('gwEmpty')} list={list}>
      {(d) => (
        <table id="gateways">
          <thead>
            <tr>
              <th scope="col">{t('gwName')}</th>
              <th scope="col" class="text">
                {t('gwTenant')}
              </th>
              <th scope="col" class="text">
                {t('gwStatus')}
              </th>
              <th scope="col" class="text">
                {t('gwUpgrade')}
              </th>
              <th scope="col">{t('capOpen')}</th>
            </tr>
          </thead>
          <tbody>
            {d.items.map((g) => (
              <tr key={`${g.tenantName}/${g.id}`} data-gateway={g.id}>
                <th scope="row">{g.name}</th>
                <td class="text">{g.tenantName}</td>
                <td class="text">
                  <span class={g.offline ? 'badge bad' : 'badge ok'}>{g.offline ? t('gwOffline') : t('gwOnline')}</span>
                </td>
                <td class="text">{g.upgradeRequired ? t('gwUpgradeRequired') : t('gwUpToDate')}</td>
                <OpenIncidentsCell count={g.openIncidents} href={sourceIncidentsHref('Gateway', g.id, g.name)} name={g.name} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </InventoryFrame>
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
  const first = useLoad((signal) => call<ModelPage>('GET', path(null), undefined, signal), [orgId, search]);
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

/** Semantic models with their workspace, capacity and gateways, and open incidents (linked). */
export function SemanticModelsPage(props: { orgId: string }) {
  const { t } = useConsole();
  usePageTitle(t('smTitle'));
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const { list, loadMore, moreError } = useModelPages(props.orgId, search);
  const tools = (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        setSearch(draft.trim());
      }}
    >
      <div class="field">
        <label for="sm-search">{t('smSearch')}</label>
        <input id="sm-search" type="search" maxLength={200} value={draft} onInput={(e) => setDraft((e.target as HTMLInputElement).value)} />
      </div>
      <button type="submit">{t('smSearchGo')}</button>
    </form>
  );
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
    <InventoryFrame title={t('smTitle')} empty={search ? t('smNoMatch', { search }) : t('smEmpty')} list={list} tools={tools} after={after}>
      {(d) => (
        <table id="semantic-models">
          <thead>
            <tr>
              <th scope="col">{t('smName')}</th>
              <th scope="col" class="text">
                {t('smWorkspace')}
              </th>
              <th scope="col" class="text">
                {t('smCapacity')}
              </th>
              <th scope="col" class="text">
                {t('smGateways')}
              </th>
              <th scope="col">{t('capOpen')}</th>
            </tr>
          </thead>
          <tbody>
            {d.items.map((m) => (
              <ModelRow key={`${m.tenantName}/${m.id}`} m={m} />
            ))}
          </tbody>
        </table>
      )}
    </InventoryFrame>
  );
}

/** One semantic model: name, workspace and capacity (linked to their incidents), gateways, open incidents. */
function ModelRow(props: { m: ModelPage['items'][number] }) {
  const { t } = useConsole();
  const m = props.m;
  return (
    <tr data-semantic-model={m.id}>
      <th scope="row">{m.name}</th>
      <td class="text">
        {m.workspaceName ? (
          <Link href={incidentsHref('workspaceName', m.workspaceName)}>{m.workspaceName}</Link>
        ) : (
          t('unknownName', { id: m.workspaceId })
        )}
      </td>
      <td class="text">
        {m.capacityName ? (
          <Link href={incidentsHref('capacityName', m.capacityName)}>{m.capacityName}</Link>
        ) : m.capacityId ? (
          t('unknownName', { id: m.capacityId })
        ) : (
          t('none')
        )}
      </td>
      <td class="text">
        {m.gateways.length === 0
          ? t('none')
          : m.gateways.map((g, i) => (
              <span key={g.id}>
                {i > 0 && ', '}
                <Link href={sourceIncidentsHref('Gateway', g.id, g.name ?? g.id)}>{g.name ?? t('unknownName', { id: g.id })}</Link>
              </span>
            ))}
      </td>
      <OpenIncidentsCell count={m.openIncidents} href={sourceIncidentsHref('Dataset', m.id, m.name)} name={m.name} />
    </tr>
  );
}

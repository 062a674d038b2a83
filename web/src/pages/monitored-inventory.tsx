import type { components } from '../admin-api.gen.js';
import { orgPath, useConsole } from '../app-context.js';
import { useGet } from '../lists.js';
import { Link } from '../router.js';
import { incidentsHref, InventoryPage, openIncidentsColumn } from './inventory.js';

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
      tableId="gateways"
      rowKey={(g: Gateway) => `${g.tenantName}/${g.id}`}
      rowAttrs={(g) => ({ 'data-gateway': g.id })}
      columns={() => [
        { label: t('gwName'), rowHeader: true, cell: (g) => g.name },
        { label: t('gwTenant'), class: 'text', cell: (g) => g.tenantName },
        { label: t('gwStatus'), class: 'text', cell: (g) => <span class={g.offline ? 'badge bad' : 'badge ok'}>{g.offline ? t('gwOffline') : t('gwOnline')}</span> },
        { label: t('gwUpgrade'), class: 'text', cell: (g) => (g.upgradeRequired ? t('gwUpgradeRequired') : t('gwUpToDate')) },
        openIncidentsColumn<Gateway>(t('capOpen'), (g) => ({ count: g.openIncidents, href: sourceIncidentsHref('Gateway', g.id, g.name), name: g.name })),
      ]}
    />
  );
}

/** Semantic models with their workspace, capacity and gateways, and open incidents (linked). */
export function SemanticModelsPage(props: { orgId: string }) {
  const { t } = useConsole();
  const list = useGet<S['SemanticModelInventory']>(orgPath(props.orgId, '/semantic-models'));
  return (
    <InventoryPage
      title={t('smTitle')}
      empty={t('smEmpty')}
      list={list}
      tableId="semantic-models"
      rowKey={(m: Model) => `${m.tenantName}/${m.id}`}
      rowAttrs={(m) => ({ 'data-semantic-model': m.id })}
      columns={() => [
        { label: t('smName'), rowHeader: true, cell: (m) => m.name },
        { label: t('smWorkspace'), class: 'text', cell: (m) => (m.workspaceName ? <Link href={incidentsHref('workspaceName', m.workspaceName)}>{m.workspaceName}</Link> : t('unknownName', { id: m.workspaceId })) },
        { label: t('smCapacity'), class: 'text', cell: (m) => <ModelCapacity model={m} /> },
        { label: t('smGateways'), class: 'text', cell: (m) => <ModelGateways gateways={m.gateways} /> },
        openIncidentsColumn<Model>(t('capOpen'), (m) => ({ count: m.openIncidents, href: sourceIncidentsHref('Dataset', m.id, m.name), name: m.name })),
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

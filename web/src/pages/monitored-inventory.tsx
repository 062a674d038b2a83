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

/** Semantic models with their workspace, capacity and gateways, and open incidents (linked). */
export function SemanticModelsPage(props: { orgId: string }) {
  const { t, call } = useConsole();
  usePageTitle(t('smTitle'));
  const list = useLoad((signal) => call<S['SemanticModelInventory']>('GET', orgPath(props.orgId, '/semantic-models'), undefined, signal), [props.orgId]);
  return (
    <InventoryFrame title={t('smTitle')} empty={t('smEmpty')} list={list}>
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
              <tr key={`${m.tenantName}/${m.id}`} data-semantic-model={m.id}>
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
            ))}
          </tbody>
        </table>
      )}
    </InventoryFrame>
  );
}

import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-api.gen.js';
import type { TenantList } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { formatDate } from '../format.js';
import type { TextKey } from '../i18n.js';
import { LoadState, useGet } from '../lists.js';

type S = components['schemas'];
type Change = S['TenantChangePage']['items'][number];
type Kind = Change['object']['kind'];

const KIND_KEY: Record<Kind, TextKey> = { item: 'chKindItem', gateway: 'chKindGateway', capacity: 'chKindCapacity', workspace: 'chKindWorkspace', tenant: 'chKindTenant' };

/**
 * Two or more tabs over one panel (WAI-ARIA tabs: a tablist of buttons, the chosen one
 * aria-selected, its panel labelled by it). `id` makes the ids unique on the page.
 */
export function Tabs(props: { id: string; tabs: { key: string; label: string; panel: () => ComponentChildren }[] }) {
  const [chosen, setChosen] = useState(props.tabs[0]!.key);
  const current = props.tabs.find((t) => t.key === chosen) ?? props.tabs[0]!;
  return (
    <>
      <div role="tablist" class="tabs">
        {props.tabs.map((t) => (
          <button
            key={t.key}
            type="button"
            role="tab"
            id={`${props.id}-tab-${t.key}`}
            aria-selected={t.key === current.key}
            aria-controls={`${props.id}-panel`}
            onClick={() => setChosen(t.key)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${props.id}-panel`} aria-labelledby={`${props.id}-tab-${current.key}`}>
        {current.panel()}
      </div>
    </>
  );
}

/** One tenant connection's changes, newest first (GET …/tenants/{id}/changes), optionally of one kind of object. */
export function ChangesTimeline(props: { orgId: string; tenantId: string; tenantName: string; objectKind?: Kind }) {
  const { t, lang } = useConsole();
  const query = new URLSearchParams({ limit: '100', ...(props.objectKind ? { objectKind: props.objectKind } : {}) });
  const list = useGet<S['TenantChangePage']>(orgPath(props.orgId, `/tenants/${encodeURIComponent(props.tenantId)}/changes?${query}`));
  return (
    <section class="changes" data-changes-tenant={props.tenantName}>
      <h3>{t('chTitle', { name: props.tenantName })}</h3>
      <LoadState list={list} empty={t('chEmpty')} count={(d) => d.items.length}>
        {(d) => (
          <table>
            <thead>
              <tr>
                <th scope="col">{t('chWhen')}</th>
                <th scope="col">{t('chActivity')}</th>
                <th scope="col">{t('chObject')}</th>
                <th scope="col">{t('chActor')}</th>
                <th scope="col">{t('chOutcome')}</th>
              </tr>
            </thead>
            <tbody>
              {d.items.map((c) => (
                <tr key={c.id} data-change={c.id}>
                  <td>{formatDate(lang, c.occurredAt)}</td>
                  <th scope="row">
                    <code>{c.activity}</code>
                  </th>
                  <td class="text">
                    {t(KIND_KEY[c.object.kind])}
                    {c.object.name || c.object.id ? `: ${c.object.name ?? c.object.id}` : ''}
                  </td>
                  <td class="text">{c.actorWithheld ? <span class="muted">{t('chWithheld')}</span> : (c.actor ?? '—')}</td>
                  <td class="text">{c.isSuccess === false ? t('chFailed') : t('chSucceeded')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </LoadState>
    </section>
  );
}

/** The "Mudanças" tab of an organization-wide page (gateways, semantic models, capacities): each tenant connection's changes to that kind of object. */
export function OrgChanges(props: { orgId: string; objectKind: Kind }) {
  const { t } = useConsole();
  const tenants = useGet<TenantList>(orgPath(props.orgId, '/tenants'));
  return (
    <LoadState list={tenants} empty={t('chNoTenants')} count={(d) => d.value.length}>
      {(d) => d.value.map((tn) => <ChangesTimeline key={tn.id} orgId={props.orgId} tenantId={tn.id} tenantName={tn.name} objectKind={props.objectKind} />)}
    </LoadState>
  );
}

/** An organization-wide list page's content under two tabs: the list, and its changes. */
export function WithChangesTab(props: { id: string; orgId: string; objectKind: Kind; children: ComponentChildren }) {
  const { t } = useConsole();
  return (
    <Tabs
      id={props.id}
      tabs={[
        { key: 'list', label: t('chListTab'), panel: () => props.children },
        { key: 'changes', label: t('chTab'), panel: () => <OrgChanges orgId={props.orgId} objectKind={props.objectKind} /> },
      ]}
    />
  );
}

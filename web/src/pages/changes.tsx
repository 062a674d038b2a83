import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-api.gen.js';
import type { TenantList } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { formatDate } from '../format.js';
import type { TextKey } from '../i18n.js';
import { LoadState, useGet } from '../lists.js';

type S = components['schemas'];
type ChangePage = S['TenantChangePage'];
type Change = ChangePage['items'][number];
type Kind = Change['object']['kind'];
type Path = NonNullable<Change['path']>;

const KIND_KEY: Record<Kind, TextKey> = { item: 'chKindItem', gateway: 'chKindGateway', capacity: 'chKindCapacity', workspace: 'chKindWorkspace', tenant: 'chKindTenant' };
export const PATH_KEY: Record<Path, TextKey> = {
  same: 'chPathSame',
  datasource: 'chPathDatasource',
  gateway: 'chPathGateway',
  workspace: 'chPathWorkspace',
  capacity: 'chPathCapacity',
  tenant: 'chPathTenant',
};

/** Changes a page of the timeline holds (the API's default; "Mostrar mais" reads the next). */
const PAGE_SIZE = 100;

/**
 * Two or more tabs over one panel (WAI-ARIA tabs: a tablist of buttons, the chosen one
 * aria-selected, its panel labelled by it). `id` makes the ids unique on the page. The tab shown
 * is the component's own unless the page holds it (`chosen` and `onChoose`).
 */
export function Tabs(props: { id: string; tabs: { key: string; label: string; panel: () => ComponentChildren }[]; chosen?: string; onChoose?: (key: string) => void }) {
  const [own, setOwn] = useState(props.tabs[0]!.key);
  const chosen = props.chosen ?? own;
  const choose = props.onChoose ?? setOwn;
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
            onClick={() => choose(t.key)}
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

/**
 * A timeline read a page at a time: the first page from `path`, and `loadMore` appends the page
 * after the last one read (the API's `nextCursor` as `after`). A new `path` starts over.
 */
function useChangePages(path: string) {
  const { call } = useConsole();
  const first = useGet<ChangePage>(path);
  const [extra, setExtra] = useState<{ path: string; pages: ChangePage[] }>({ path: '', pages: [] });
  const [more, setMore] = useState<{ loading: boolean; error: unknown }>({ loading: false, error: null });
  const pages = extra.path === path ? extra.pages : [];
  const last = pages.at(-1) ?? first.data;
  const loadMore = async () => {
    if (!last?.nextCursor || more.loading) return;
    setMore({ loading: true, error: null });
    try {
      const next = await call<ChangePage>('GET', `${path}&after=${encodeURIComponent(last.nextCursor)}`);
      setExtra((e) => ({ path, pages: [...(e.path === path ? e.pages : []), next] }));
      setMore({ loading: false, error: null });
    } catch (error) {
      setMore({ loading: false, error });
    }
  };
  const data = first.data && { items: [first.data, ...pages].flatMap((p) => p.items), nextCursor: last?.nextCursor ?? null };
  return { list: { ...first, data }, loadMore, more };
}

/** One object whose timeline is asked for: its changes and those of what it depends on (`dependencies=true`). */
export interface TimelineObject {
  kind: 'item' | 'gateway' | 'capacity';
  id: string;
  name: string;
}

/**
 * One tenant connection's changes, newest first (GET …/tenants/{id}/changes), a hundred at a
 * time with "Mostrar mais": all of them, those to one kind of object, or those to one object and
 * what it depends on (with the column saying how each reaches it).
 */
export function ChangesTimeline(props: { orgId: string; tenantId: string; tenantName: string; objectKind?: Kind; object?: TimelineObject }) {
  const { t } = useConsole();
  const o = props.object;
  const filter: Record<string, string> = o ? { objectKind: o.kind, objectId: o.id, dependencies: 'true' } : props.objectKind ? { objectKind: props.objectKind } : {};
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), ...filter });
  const { list, loadMore, more } = useChangePages(orgPath(props.orgId, `/tenants/${encodeURIComponent(props.tenantId)}/changes?${query}`));
  const title = t('chTitle', { name: props.tenantName });
  return (
    <section class="changes" data-changes-tenant={props.tenantName}>
      <h3>{title}</h3>
      <LoadState list={list} empty={t('chEmpty')} count={(d) => d.items.length}>
        {(d) => (
          <>
            <ChangesTable items={d.items} withPath={o !== undefined} />
            {more.error !== null && <p role="alert">{t('chMoreFailed')}</p>}
            {d.nextCursor && (
              <button type="button" class="more" aria-label={t('chMoreOf', { name: title })} disabled={more.loading} onClick={loadMore}>
                {t('chMore')}
              </button>
            )}
          </>
        )}
      </LoadState>
    </section>
  );
}

/** The timeline's rows: when, the activity, the object, how it reaches the object asked for (`withPath`), who, the outcome. */
function ChangesTable(props: { items: Change[]; withPath: boolean }) {
  const { t, lang } = useConsole();
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{t('chWhen')}</th>
          <th scope="col">{t('chActivity')}</th>
          <th scope="col">{t('chObject')}</th>
          {props.withPath && <th scope="col">{t('chLink')}</th>}
          <th scope="col">{t('chActor')}</th>
          <th scope="col">{t('chOutcome')}</th>
        </tr>
      </thead>
      <tbody>
        {props.items.map((c) => (
          <tr key={c.id} data-change={c.id}>
            <td>{formatDate(lang, c.occurredAt)}</td>
            <th scope="row">
              <code>{c.activity}</code>
            </th>
            <td class="text">
              {t(KIND_KEY[c.object.kind])}
              {c.object.name || c.object.id ? `: ${c.object.name ?? c.object.id}` : ''}
            </td>
            {props.withPath && <td class="text">{c.path ? t(PATH_KEY[c.path]) : '—'}</td>}
            <td class="text">{c.actorWithheld ? <span class="muted">{t('chWithheld')}</span> : (c.actor ?? '—')}</td>
            <td class="text">{c.isSuccess === false ? t('chFailed') : t('chSucceeded')}</td>
          </tr>
        ))}
      </tbody>
    </table>
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

/**
 * Member mode: the workspaces the principal belongs to (Power BI `GET /groups`, 5,000 a page, and
 * the capacities' names; both cached between runs for LISTING_REFRESH_MS),
 * the semantic models of each (`GET /groups/{ws}/datasets`: new workspaces first, re-listing of
 * known ones after the polls, at most once an hour each, on a share of the run's budget), and per
 * model its refresh history.
 * The models polled in a run are picked by the rotation: hot ones (an enabled schedule, a
 * refresh in the last 24 h, running, failing, never read) every run, the rest in turns — as many
 * as the run's call budget reaches, a model whose data sources are due costing 3 calls.
 */
import type { TenantRow } from '../../connection/tenant-row.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { inPool } from '../../platform/pool.js';
import { pickForRun } from '../../engine/rotation.js';
import { metaIsStale, type Observation, readHistory, readMeta } from './refresh-reads.js';
import type { EntityState } from '../../engine/output.js';
import { listingIsDue, type CallBudget } from '../../platform/run-budget.js';
import type { MemberListing, ModelBrief, RefreshMemory } from './refresh-state.js';
import { isResourceRefusal } from '../../platform/platform-client.js';

/** Share of the run's budget that re-lists workspaces' models (the rest polls refreshes). */
const DISCOVERY_SHARE = 0.25;
/** A workspace's models are re-listed at most this often. */
const RELIST_MS = 3_600_000;
const HOT_WINDOW_MS = 24 * 3_600_000;
const GROUPS_PAGE = 5000;


interface Group {
  id: string;
  name: string;
  capacityId: string | null;
}

/** Hot: what can fail soon or is failing; these are polled every run. */
export function isHotModel(m: ModelBrief, now: Date): boolean {
  return m.failing || m.running.length > 0 || m.meta?.scheduled === true || (m.lastSeenAt !== null && now.getTime() - Date.parse(m.lastSeenAt) < HOT_WINDOW_MS);
}

/**
 * The run judges every model by its brief (RefreshMemory.known); the whole state of a model is
 * read (memory.readWhole) only when the run polls, re-places or forgets it.
 */
export async function readMember(client: PlatformClient, tenant: TenantRow, memory: RefreshMemory, entities: EntityState, budget: CallBudget, now: Date, observe: (o: Observation) => void): Promise<void> {
  const { groups, capacityNames } = await listingOf(client, tenant, memory, budget, now);

  // Workspaces no longer reachable (or no longer listed in the connection): their models go.
  // A workspace moved to another capacity: its models follow at once (no re-listing needed).
  const lost: string[] = [];
  const moved: string[] = [];
  for (const [id, m] of memory.known()) {
    const g = groups.get(m.workspaceId);
    if (!g) lost.push(id);
    else if (g.capacityId !== m.capacityId) moved.push(id);
  }
  await memory.readWhole(entities, [...lost, ...moved]);
  for (const id of lost) memory.forget(id);
  for (const id of memory.workspaces.keys()) if (!groups.has(id)) memory.workspaces.delete(id);
  for (const id of moved) {
    const m = memory.models.get(id);
    if (m) memory.place(id, m.name, m.workspaceId, groups.get(m.workspaceId)!.capacityId);
  }
  // Workspaces never listed first; re-listing known ones comes after the polls, so a tight
  // budget still reads refreshes instead of re-listing the same workspaces every hour.
  const listShare = Math.max(1, Math.floor(budget.total * DISCOVERY_SHARE));
  const lister = { client, groups, memory, entities, budget, now };
  const listedNow = await listWorkspaces(lister, listShare, 'new');

  const models = [...memory.known()].filter(([, m]) => groups.has(m.workspaceId));
  // Hot: what can fail soon or is failing. A model never polled yet takes its turn with the others
  // (on a small tenant that is this run): were it hot, a tenant still being discovered would keep
  // more hot models than a run's budget and push the scheduled ones into taking turns.
  const isHot = ([, m]: [string, ModelBrief]) => isHotModel(m, now);
  const cost = ([, m]: [string, ModelBrief]) => (metaIsStale(m.meta, now) ? 3 : 1);
  // Keep room for re-listing the workspaces that are due, within the listing share.
  const staleDue = [...groups.keys()].filter((id) => {
    const at = memory.workspaces.get(id)?.listedAt;
    return at !== undefined && now.getTime() - Date.parse(at) >= RELIST_MS;
  }).length;
  const room = Math.max(0, budget.left - Math.min(staleDue, listShare - listedNow));
  const opts = { key: ([id]: [string, ModelBrief]) => id, isHot, state: memory.rotation, now };
  // The rotation picks one resource per unit of budget; models due for a data-source read cost
  // more, so the pick is cut to the prefix the calls actually reach (same order, smaller budget).
  const widest = pickForRun(models, { ...opts, budget: room });
  let reach = 0;
  for (let spent = 0; reach < widest.poll.length && spent + cost(widest.poll[reach]!) <= room; reach++) spent += cost(widest.poll[reach]!);
  const pick = reach === widest.poll.length ? widest : pickForRun(models, { ...opts, budget: reach });

  await memory.readWhole(entities, pick.poll.map(([id]) => id));
  await inPool(pick.poll, async ([id, m]) => {
    const group = groups.get(m.workspaceId)!;
    try {
      if (metaIsStale(m.meta, now)) {
        const meta = await readMeta(client, budget, m.workspaceId, id, true, now);
        const whole = memory.models.get(id);
        if (!whole) return;
        memory.update(id, { ...whole, meta });
        memory.metaRead.add(id);
      }
      const history = await readHistory(client, budget, m.workspaceId, id);
      observe({ modelId: id, history, workspaceName: group.name, capacityName: group.capacityId ? (capacityNames.get(group.capacityId) ?? null) : null });
    } catch (err) {
      if (!isResourceRefusal(err)) throw err;
      // The model is gone (404) or out of reach: it is listed again, or dropped, when its workspace is re-listed.
      if (err.status === 404) memory.forget(id);
    }
  });
  // Only a run that polled its whole pick moves the rotation on (a spent budget retries the slice).
  memory.rotation = pick.next;
  await listWorkspaces(lister, Math.min(budget.left, listShare - listedNow), 'stale');
}

/**
 * The principal's workspaces (filtered by the connection's list) and the capacities' names: from
 * the cached listing while it is younger than LISTING_REFRESH_MS, else listed again (1 call per
 * 5,000 workspaces, 1 for the capacities) and cached.
 */
async function listingOf(client: PlatformClient, tenant: TenantRow, memory: RefreshMemory, budget: CallBudget, now: Date): Promise<{ groups: Map<string, Group>; capacityNames: Map<string, string> }> {
  const cached = memory.listing;
  if (!cached || listingIsDue(cached.listedAt, now)) {
    const groups = await readGroups(client, budget);
    budget.take();
    const capacities = await client.json<{ value?: { id: string; displayName?: string }[] }>({ family: 'powerbi', audience: 'powerbi', url: client.powerBi('/capacities') });
    memory.listing = {
      listedAt: now.toISOString(),
      groups,
      capacities: (capacities?.value ?? []).map((c) => [c.id.toLowerCase(), c.displayName || c.id]),
    };
  }
  const listing = memory.listing!;
  const wanted = tenant.workspaces ? new Set(tenant.workspaces.map((w) => w.toLowerCase())) : null;
  const groups = new Map<string, Group>();
  for (const [id, name, capacityId] of listing.groups) if (!wanted || wanted.has(id)) groups.set(id, { id, name, capacityId });
  return { groups, capacityNames: new Map(listing.capacities) };
}

async function readGroups(client: PlatformClient, budget: CallBudget): Promise<MemberListing['groups']> {
  const groups: MemberListing['groups'] = [];
  const url = client.powerBi('/groups');
  for (let skip = 0; ; skip += GROUPS_PAGE) {
    budget.take();
    const page = await client.json<{ value?: { id: string; name?: string; capacityId?: string }[] }>({ family: 'powerbi', audience: 'powerbi', url: `${url}?$top=${GROUPS_PAGE}&$skip=${skip}` });
    const items = page?.value ?? [];
    for (const g of items) groups.push([g.id.toLowerCase(), g.name || g.id.toLowerCase(), g.capacityId?.toLowerCase() ?? null]);
    if (items.length < GROUPS_PAGE) return groups;
  }
}

/**
 * Lists the models of up to `limit` workspaces: those never listed (`new`), or those listed
 * longest ago, at most once an hour each (`stale`). Returns how many it listed.
 */
interface Lister {
  client: PlatformClient;
  groups: Map<string, Group>;
  memory: RefreshMemory;
  entities: EntityState;
  budget: CallBudget;
  now: Date;
}

async function listWorkspaces({ client, groups, memory, entities, budget, now }: Lister, limit: number, which: 'new' | 'stale'): Promise<number> {
  if (limit <= 0) return 0;
  // The models known per workspace, once (not a pass over every model per workspace listed).
  const byWorkspace = new Map<string, string[]>();
  for (const [id, m] of memory.known()) {
    const ids = byWorkspace.get(m.workspaceId);
    if (ids) ids.push(id);
    else byWorkspace.set(m.workspaceId, [id]);
  }
  const due = [...groups.values()]
    .map((g) => ({ g, at: memory.workspaces.get(g.id)?.listedAt ?? '' }))
    .filter(({ at }) => (which === 'new' ? at === '' : at !== '' && now.getTime() - Date.parse(at) >= RELIST_MS))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.g.id < b.g.id ? -1 : 1))
    .slice(0, limit);
  await inPool(due, async ({ g }) => {
    budget.take();
    let models: { id: string; name?: string }[];
    try {
      const page = await client.json<{ value?: { id: string; name?: string }[] }>({ family: 'powerbi', audience: 'powerbi', url: client.powerBi(`/groups/${encodeURIComponent(g.id)}/datasets`) });
      models = page?.value ?? [];
    } catch (err) {
      if (!isResourceRefusal(err)) throw err;
      models = [];
    }
    memory.workspaces.set(g.id, { listedAt: now.toISOString() });
    const listed = new Map(models.map((d) => [d.id.toLowerCase(), d.name || d.id.toLowerCase()]));
    // Only the models whose placement changed, and those no longer listed, are read whole.
    const dropped = (byWorkspace.get(g.id) ?? []).filter((id) => !listed.has(id) && memory.brief(id)?.workspaceId === g.id);
    const replaced = [...listed].filter(([id, name]) => {
      const m = memory.brief(id);
      return m !== undefined && (m.name !== name || m.workspaceId !== g.id || m.capacityId !== g.capacityId);
    });
    await memory.readWhole(entities, [...dropped, ...replaced.map(([id]) => id)]);
    for (const [id, name] of listed) memory.place(id, name, g.id, g.capacityId);
    for (const id of dropped) memory.forget(id);
  });
  return due.length;
}

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
import { listingIsDue, type CallBudget } from '../../platform/run-budget.js';
import type { MemberListing, RefreshMemory, ModelState } from './refresh-state.js';
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
export function isHotModel(m: ModelState, now: Date): boolean {
  return m.failing || m.running.length > 0 || m.meta?.scheduled === true || (m.lastSeenAt !== null && now.getTime() - Date.parse(m.lastSeenAt) < HOT_WINDOW_MS);
}

export async function readMember(client: PlatformClient, tenant: TenantRow, memory: RefreshMemory, budget: CallBudget, now: Date, observe: (o: Observation) => void): Promise<void> {
  const { groups, capacityNames } = await listingOf(client, tenant, memory, budget, now);

  // Workspaces no longer reachable (or no longer listed in the connection): their models go.
  for (const [id, m] of memory.models) if (!groups.has(m.workspaceId)) memory.forget(id);
  for (const id of memory.workspaces.keys()) if (!groups.has(id)) memory.workspaces.delete(id);

  // A workspace moved to another capacity: its models follow at once (no re-listing needed).
  for (const [id, m] of memory.models) {
    const g = groups.get(m.workspaceId);
    if (g && g.capacityId !== m.capacityId) memory.place(id, m.name, m.workspaceId, g.capacityId);
  }
  // Workspaces never listed first; re-listing known ones comes after the polls, so a tight
  // budget still reads refreshes instead of re-listing the same workspaces every hour.
  const listShare = Math.max(1, Math.floor(budget.total * DISCOVERY_SHARE));
  const listedNow = await listWorkspaces(client, groups, memory, budget, now, listShare, 'new');

  const models = [...memory.models].filter(([, m]) => groups.has(m.workspaceId));
  // Hot: what can fail soon or is failing. A model never polled yet takes its turn with the others
  // (on a small tenant that is this run): were it hot, a tenant still being discovered would keep
  // more hot models than a run's budget and push the scheduled ones into taking turns.
  const isHot = ([, m]: [string, ModelState]) => isHotModel(m, now);
  const cost = ([, m]: [string, ModelState]) => (metaIsStale(m.meta, now) ? 3 : 1);
  // Keep room for re-listing the workspaces that are due, within the listing share.
  const staleDue = [...groups.keys()].filter((id) => {
    const at = memory.workspaces.get(id)?.listedAt;
    return at !== undefined && now.getTime() - Date.parse(at) >= RELIST_MS;
  }).length;
  const room = Math.max(0, budget.left - Math.min(staleDue, listShare - listedNow));
  const opts = { key: ([id]: [string, ModelState]) => id, isHot, state: memory.rotation, now };
  // The rotation picks one resource per unit of budget; models due for a data-source read cost
  // more, so the pick is cut to the prefix the calls actually reach (same order, smaller budget).
  const widest = pickForRun(models, { ...opts, budget: room });
  let reach = 0;
  for (let spent = 0; reach < widest.poll.length && spent + cost(widest.poll[reach]!) <= room; reach++) spent += cost(widest.poll[reach]!);
  const pick = reach === widest.poll.length ? widest : pickForRun(models, { ...opts, budget: reach });

  await inPool(pick.poll, async ([id, m]) => {
    const group = groups.get(m.workspaceId)!;
    try {
      if (metaIsStale(m.meta, now)) {
        const meta = await readMeta(client, budget, m.workspaceId, id, true, now);
        memory.update(id, { ...(memory.models.get(id) ?? m), meta });
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
  await listWorkspaces(client, groups, memory, budget, now, Math.min(budget.left, listShare - listedNow), 'stale');
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
async function listWorkspaces(client: PlatformClient, groups: Map<string, Group>, memory: RefreshMemory, budget: CallBudget, now: Date, limit: number, which: 'new' | 'stale'): Promise<number> {
  if (limit <= 0) return 0;
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
    const listed = new Set<string>();
    for (const d of models) {
      const id = d.id.toLowerCase();
      listed.add(id);
      memory.place(id, d.name || id, g.id, g.capacityId);
    }
    for (const [id, m] of memory.models) if (m.workspaceId === g.id && !listed.has(id)) memory.forget(id);
  });
  return due.length;
}

/**
 * Admin mode: the admin refreshables API (`GET /v1.0/myorg/admin/capacities/refreshables`,
 * `$expand=capacities,groups`, `$top`/`$skip`, documented cap 200/h) lists every semantic model
 * on a capacity that refreshed or has a schedule, each with its `lastRefresh` — the newest result
 * only, so two refreshes finishing between two runs count as one. Pages are taken from a paced
 * CallBudget on Vigia's share of the endpoint's per-tenant cap (lowered for an hour after a 429),
 * so a short interval reads a page only every few runs; a list longer than a run's pages
 * continues in the next run from where it stopped. Data sources (for gateway root causes) are read with the member API on the slow
 * cadence, failing models first; models outside the principal's workspaces simply have none.
 */
import type { TenantRow } from '../../connection/tenant-row.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { metaIsStale, type Observation, readMeta } from './refresh-reads.js';
import { type CallBudget, RunBudgetSpent } from '../../platform/run-budget.js';
import { modelKey, MODEL_PREFIX, type RefreshMemory } from './refresh-state.js';
import type { EntityState } from '../../engine/output.js';
import type { RefreshEntry } from './refresh-history.js';
import { EndpointThrottledError, isResourceRefusal } from '../../platform/platform-client.js';
import { BudgetExhaustedError } from '../../platform/budget.js';

export const REFRESHABLES_PAGE = 5000;
/** Share of the powerbi budget spent on data-source reads in admin mode (the refreshables list costs none of it). */
const META_SHARE = 0.5;

interface Refreshable {
  id: string;
  name?: string;
  lastRefresh?: RefreshEntry;
  capacity?: { id?: string; displayName?: string };
  group?: { id?: string; name?: string };
}

export async function readAdmin(
  client: PlatformClient,
  tenant: TenantRow,
  memory: RefreshMemory,
  entities: EntityState,
  budgets: { pages: CallBudget; powerbi: CallBudget },
  now: Date,
  observe: (o: Observation) => void,
): Promise<{ hourSpent: boolean }> {
  let hourSpent = false;
  const listed = tenant.workspaces ? new Set(tenant.workspaces.map((w) => w.toLowerCase())) : null;
  const startedAt = memory.adminSkip;
  const seen = new Set<string>();
  const lastStatus = new Map<string, string>();
  let complete = false;
  try {
    for (let skip = startedAt; ; skip += REFRESHABLES_PAGE) {
      budgets.pages.take();
      const url = `${client.powerBi('/admin/capacities/refreshables')}?$expand=capacities,groups&$top=${REFRESHABLES_PAGE}&$skip=${skip}`;
      const page = await client.json<{ value?: Refreshable[] }>({ family: 'powerbi-admin', audience: 'powerbi', url });
      const items = page?.value ?? [];
      // Only this page's models are read from the remembered state: a run holds its pages, not the tenant.
      memory.load(await entities.read(items.flatMap((r) => (typeof r.id === 'string' ? [modelKey(r.id.toLowerCase())] : []))));
      for (const r of items) {
        const workspaceId = r.group?.id?.toLowerCase();
        if (typeof r.id !== 'string' || !workspaceId || (listed && !listed.has(workspaceId))) continue;
        const id = r.id.toLowerCase();
        seen.add(id);
        memory.place(id, r.name || id, workspaceId, r.capacity?.id?.toLowerCase() ?? null);
        const history = r.lastRefresh && typeof r.lastRefresh.requestId === 'string' ? [r.lastRefresh] : [];
        if (history[0]) lastStatus.set(id, history[0].status);
        observe({ modelId: id, history, workspaceName: r.group?.name ?? null, capacityName: r.capacity?.displayName ?? null });
      }
      memory.adminSkip = skip + REFRESHABLES_PAGE;
      if (items.length < REFRESHABLES_PAGE) {
        complete = true;
        memory.adminSkip = 0;
        break;
      }
    }
  } catch (err) {
    // Out of pages for this run, or Vigia's share of the endpoint is spent for the hour (a 429
    // lowered it): the list continues from adminSkip later; the data sources below are still read.
    if (err instanceof BudgetExhaustedError || err instanceof EndpointThrottledError) hourSpent = true;
    else if (!(err instanceof RunBudgetSpent)) throw err;
  }
  // The whole list was read in this run: a model it no longer lists is gone.
  if (complete && startedAt === 0) {
    const gone = (await entities.keys(MODEL_PREFIX)).filter((key) => !seen.has(key.slice(MODEL_PREFIX.length)));
    memory.load(await entities.read(gone));
    for (const key of gone) memory.forget(key.slice(MODEL_PREFIX.length));
  }

  // Data sources: failing ones first (their causes matter now), then never read, then oldest.
  const rank = (id: string) => (lastStatus.get(id) === 'Failed' || memory.models.get(id)?.failing ? 0 : memory.models.get(id)?.meta ? 2 : 1);
  const due = [...seen]
    .filter((id) => metaIsStale(memory.models.get(id)?.meta ?? null, now))
    .sort((a, b) => rank(a) - rank(b) || (memory.models.get(a)?.meta?.readAt ?? '').localeCompare(memory.models.get(b)?.meta?.readAt ?? '') || a.localeCompare(b))
    .slice(0, Math.max(1, Math.floor(budgets.powerbi.total * META_SHARE)));
  for (const id of due) {
    const m = memory.models.get(id)!;
    try {
      memory.update(id, { ...m, meta: await readMeta(client, budgets.powerbi, m.workspaceId, id, false, now) });
      memory.metaRead.add(id);
    } catch (err) {
      if (err instanceof RunBudgetSpent) break;
      if (!isResourceRefusal(err)) throw err;
    }
  }
  return { hourSpent };
}

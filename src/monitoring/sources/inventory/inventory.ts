/**
 * inventory — the tenant's capacities and workspaces become the organization's inventory (the
 * public /capacities and /workspaces). The organization's lists are replaced through the
 * inventory domain functions, in the run's commit; what other sources (another tenant, a person's PUT) put there is
 * kept: this collector remembers the names it wrote and replaces only those.
 */
import { capacitiesOf, replaceCapacitiesIn, replaceWorkspacesIn, workspacesOf, type Capacity, type Workspace } from '../../../orgs/inventory.js';
import type { Collector } from '../../engine/collector.js';
import { workspacesFromScan } from './inventory-scan.js';
import { readCapacities, readWorkspaces } from '../../platform/reads.js';

const WRITTEN = 'written';

interface Written {
  capacities: string[];
  workspaces: string[];
}

/** Unique capacity names: a repeated display name gets the start of its id. */
function uniqueNames<T extends { id: string; name: string }>(items: T[]): Map<string, string> {
  const count = new Map<string, number>();
  for (const i of items) count.set(i.name, (count.get(i.name) ?? 0) + 1);
  return new Map(items.map((i) => [i.id, count.get(i.name)! > 1 ? `${i.name} (${i.id.slice(0, 8)})` : i.name]));
}

export const inventoryCollector: Collector = {
  name: 'inventory',
  async run({ tenant, client, state, reader, write, commit }) {
    const capacities = await readCapacities(client, tenant);
    const names = uniqueNames(capacities);
    // Admin mode: the scanner's catalog stands for the workspace listing when it covers them.
    const inventory = await workspacesOf(reader, tenant.org_id);
    const workspaces = (await workspacesFromScan(reader, tenant, inventory, capacities, names)) ?? (await readWorkspaces(client, tenant));
    const before = (state.get(WRITTEN) as Written | undefined) ?? { capacities: [], workspaces: [] };

    const mine: Capacity[] = capacities.map((c) => ({
      name: names.get(c.id)!.slice(0, 200),
      sku: c.sku.slice(0, 50),
      state: c.state.slice(0, 50),
      region: c.region.slice(0, 100),
      armName: c.armName?.slice(0, 200) ?? null,
    }));
    const ownNames = new Set([...before.capacities, ...mine.map((c) => c.name)]);
    const myWorkspaces: Workspace[] = workspaces.map((w) => ({
      name: w.name.slice(0, 200),
      remoteId: w.id,
      capacityName: w.capacityId && names.has(w.capacityId) ? names.get(w.capacityId)!.slice(0, 200) : null,
    }));
    const ownIds = new Set([...before.workspaces, ...myWorkspaces.map((w) => w.remoteId)]);
    // Written in the run's commit (after its lease fence); what others put there is read in that
    // same transaction, so an entry added meanwhile is kept.
    write(async (q) => {
      const keptCapacities = (await capacitiesOf(q, tenant.org_id)).filter((c) => !ownNames.has(c.name));
      await replaceCapacitiesIn(q, tenant.org_id, [...keptCapacities, ...mine]);
      const keptWorkspaces = (await workspacesOf(q, tenant.org_id)).filter((w) => !ownIds.has(w.remoteId));
      await replaceWorkspacesIn(q, tenant.org_id, [...keptWorkspaces, ...myWorkspaces]);
    });
    await commit([], [{ key: WRITTEN, value: { capacities: mine.map((c) => c.name), workspaces: myWorkspaces.map((w) => w.remoteId) } satisfies Written }]);
  },
};

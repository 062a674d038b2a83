/**
 * Reads shared by the collectors: the tenant's capacities (Fabric, Power BI admin in admin mode,
 * ARM when subscriptions are given) and its workspaces (Fabric admin list in admin mode, the
 * principal's own workspaces in member mode, narrowed to the listed ones when given).
 */
import { VendorAnswerError, type PlatformClient } from './platform-client.js';
import { subscriptionOf } from '../connection/tenant-input.js';
import type { CallBudget } from './run-budget.js';
import type { TenantRow } from '../connection/tenant-row.js';
import { textOf } from './values.js';

export interface CapacityFact {
  id: string;
  name: string;
  sku: string;
  region: string;
  /** The most detailed state known: ARM's, else Power BI admin's, else Fabric's. */
  state: string;
  armId?: string;
  /** The capacity's Azure resource name (what Cost Management groups costs by), when its ARM resource is known. */
  armName?: string;
}

export interface WorkspaceFact {
  id: string;
  name: string;
  capacityId: string | null;
}

const ARM_API_VERSION = '2023-11-01';


function required(item: Record<string, unknown>, field: string, what: string): string {
  const v = item[field];
  if (typeof v !== 'string' || v === '') throw new VendorAnswerError(`${what}: an item without "${field}"`);
  return v;
}

/** ARM scopes to list Fabric capacities in: one per subscription, or per resource group. */
export function armCapacityPaths(costScopes: string[]): string[] {
  const paths = new Set<string>();
  const wholeSubscriptions = new Set(costScopes.filter((s) => !/\/resourceGroups\//i.test(s)).map(subscriptionOf));
  for (const s of wholeSubscriptions) paths.add(`/subscriptions/${s}/providers/Microsoft.Fabric/capacities`);
  for (const scope of costScopes) {
    if (/\/resourceGroups\//i.test(scope) && !wholeSubscriptions.has(subscriptionOf(scope))) paths.add(`${scope}/providers/Microsoft.Fabric/capacities`);
  }
  return [...paths];
}

export async function readCapacities(client: PlatformClient, tenant: TenantRow): Promise<CapacityFact[]> {
  const byId = new Map<string, CapacityFact>();
  for await (const page of client.fabricPages<Record<string, unknown>>({ family: 'fabric', audience: 'fabric', url: client.fabric('/capacities') })) {
    for (const c of page) {
      const id = required(c, 'id', 'GET /v1/capacities').toLowerCase();
      byId.set(id, { id, name: textOf(c.displayName) || id, sku: textOf(c.sku) || 'unknown', region: textOf(c.region) || 'unknown', state: textOf(c.state) || 'Unknown' });
    }
  }
  const admins = new Map<string, string[]>();
  if (tenant.mode === 'admin') {
    const admin = await client.json<{ value?: Record<string, unknown>[] }>({ family: 'powerbi-admin', audience: 'powerbi', url: client.powerBi('/admin/capacities') });
    for (const c of admin?.value ?? []) {
      const id = required(c, 'id', 'GET /v1.0/myorg/admin/capacities').toLowerCase();
      const known = byId.get(id);
      if (Array.isArray(c.admins)) admins.set(id, c.admins.map((a) => String(a).toLowerCase()).sort());
      byId.set(id, {
        id,
        name: textOf(c.displayName) || known?.name || id,
        sku: textOf(c.sku) || known?.sku || 'unknown',
        region: textOf(c.region) || known?.region || 'unknown',
        state: textOf(c.state) || known?.state || 'Unknown',
      });
    }
  }
  if (tenant.cost_scopes.length > 0) await joinArmCapacities(client, tenant, [...byId.values()], admins);
  return [...byId.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
}

/** The tenant's workspaces; `fabricCalls`, when given, is charged each member-mode (`fabric`) page. */
export async function readWorkspaces(client: PlatformClient, tenant: TenantRow, fabricCalls?: CallBudget): Promise<WorkspaceFact[]> {
  const out: WorkspaceFact[] = [];
  if (tenant.mode === 'admin') {
    const spec = { family: 'fabric-admin' as const, audience: 'fabric' as const, url: `${client.fabric('/admin/workspaces')}?state=Active` };
    for await (const page of client.fabricPages<Record<string, unknown>>(spec, 'workspaces')) {
      for (const w of page) {
        out.push({ id: required(w, 'id', 'GET /v1/admin/workspaces').toLowerCase(), name: textOf(w.name) || textOf(w.id), capacityId: textOf(w.capacityId).toLowerCase() || null });
      }
    }
  } else {
    for await (const page of client.fabricPages<Record<string, unknown>>({ family: 'fabric', audience: 'fabric', url: client.fabric('/workspaces') })) {
      fabricCalls?.charge(1);
      for (const w of page) {
        out.push({ id: required(w, 'id', 'GET /v1/workspaces').toLowerCase(), name: textOf(w.displayName) || textOf(w.id), capacityId: textOf(w.capacityId).toLowerCase() || null });
      }
    }
  }
  const listed = tenant.workspaces ? new Set(tenant.workspaces) : null;
  return listed ? out.filter((w) => listed.has(w.id)) : out;
}

/** SKU, region and administrators: how an ARM capacity resource and a Power BI capacity are told apart when their names differ. */
const armKey = (sku: string, region: string, admins: readonly string[]) => `${sku.toLowerCase()}|${region.toLowerCase().replace(/\s+/g, '')}|${admins.join(',')}`;

/**
 * The ARM resources of the cost scopes' Fabric capacities, joined to the capacities read: by name
 * (a capacity created in Azure is named as its resource), else — admin mode, where the
 * administrators are known — the one resource of the same SKU, region and administrators. A
 * capacity matched by name takes ARM's state (the most detailed); either match gives it its ARM
 * name, which Cost Management's rows carry, so costs land on the capacity (costs.ts).
 */
async function joinArmCapacities(client: PlatformClient, tenant: TenantRow, capacities: CapacityFact[], admins: Map<string, string[]>): Promise<void> {
  const byName = new Map(capacities.map((c) => [c.name.toLowerCase(), c]));
  const byKey = new Map<string, CapacityFact | null>();
  for (const c of capacities) {
    const a = admins.get(c.id);
    if (!a) continue;
    const k = armKey(c.sku, c.region, a);
    byKey.set(k, byKey.has(k) ? null : c); // two alike: neither is matched this way
  }
  for (const path of armCapacityPaths(tenant.cost_scopes)) {
    const url = `${client.arm(path)}?api-version=${ARM_API_VERSION}`;
    for await (const page of client.nextLinkPages<Record<string, unknown>>({ family: 'arm', audience: 'arm', url })) {
      for (const r of page) {
        const props = (r.properties ?? {}) as Record<string, unknown>;
        const name = textOf(r.name);
        const known = byName.get(name.toLowerCase());
        const state = textOf(props.state);
        if (known && state) {
          known.state = state;
          known.armId = textOf(r.id);
        }
        const members = ((props.administration ?? {}) as { members?: unknown }).members;
        const sku = textOf(((r.sku ?? {}) as Record<string, unknown>).name);
        const alike = Array.isArray(members) ? byKey.get(armKey(sku, textOf(r.location), members.map((m) => String(m).toLowerCase()).sort())) : undefined;
        const capacity = known ?? alike;
        if (capacity && name) capacity.armName = name;
      }
    }
  }
}

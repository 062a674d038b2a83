/**
 * The inventory and capacity collectors against the tenant simulator: the organization's
 * inventory fills itself, a capacity that leaves the active state opens a Capacity incident
 * (error) once and recovers when it is active again or disappears, ARM's state counts when
 * subscriptions are given, member mode sees only the principal's workspaces.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { inventoryCollector } from '../../src/monitoring/sources/inventory/inventory.js';
import { listCapacities, listWorkspaces } from '../../src/orgs/inventory.js';
import { alerts, createHarness, schedule, type Harness } from './harness.js';

describe('collectors: inventory and capacity', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  // Tests share one database: each starts with the earlier tests' collectors switched off.
  beforeEach(() => h.quiet());

  it('inventory: capacities and workspaces of the whole tenant (admin mode) become the organization\'s', async () => {
    const sim = await h.sim({ sizes: { capacities: 3, workspaces: 250 }, fabricAdminPageSize: 100 });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim);
    const runner = h.scheduler({ collectors: [inventoryCollector] });
    expect(await runner.pass()).toBe(1);
    const row = await schedule(h, tenant.id, 'inventory');
    expect(row.last_error).toBeNull();
    const caps = await listCapacities(h.ctx, orgId);
    expect(caps.map((c) => c.name).sort()).toEqual(sim.state.capacities.map((c) => c.displayName).sort());
    const ws = await listWorkspaces(h.ctx, orgId);
    expect(ws).toHaveLength(250);
    const one = sim.state.workspaces.find((w) => w.capacityId)!;
    const cap = sim.state.capacities.find((c) => c.id === one.capacityId)!;
    expect(ws.find((w) => w.remoteId === one.id.toLowerCase())).toEqual({ name: one.name, remoteId: one.id.toLowerCase(), capacityName: cap.displayName });
    // Fabric admin workspaces page by continuation token: 3 pages of 100 (pages kept small here).
    expect(sim.countCalls({ path: '/v1/admin/workspaces' })).toBe(3);
    expect(row.last_calls).toBeGreaterThanOrEqual(5);
    expect(sim.violations).toEqual([]);
  });

  it('inventory in member mode lists only the workspaces the principal belongs to, narrowed to the listed ones', async () => {
    const sim = await h.sim({ seed: 7, sizes: { capacities: 2, workspaces: 40 } });
    const orgId = await h.org();
    const members = sim.state.workspaces.filter((w) => w.member);
    expect(members.length).toBeGreaterThan(1);
    await h.tenant(orgId, sim, { mode: 'member' });
    const runner = h.scheduler({ collectors: [inventoryCollector] });
    await runner.pass();
    expect((await listWorkspaces(h.ctx, orgId)).map((w) => w.remoteId).sort()).toEqual(members.map((w) => w.id.toLowerCase()).sort());
    expect(sim.countCalls({ family: 'fabric-admin' })).toBe(0);
    expect(sim.countCalls({ family: 'powerbi-admin' })).toBe(0);

    const org2 = await h.org();
    await h.tenant(org2, sim, { mode: 'member', workspaces: [members[0]!.id] });
    await runner.pass();
    expect((await listWorkspaces(h.ctx, org2)).map((w) => w.remoteId)).toEqual([members[0]!.id.toLowerCase()]);
    expect(sim.violations).toEqual([]);
  });

  it('capacity: suspended opens one Capacity error incident; active again recovers it; a vanished capacity resolves', async () => {
    const sim = await h.sim({ seed: 3, sizes: { capacities: 3, workspaces: 5 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 5 } } });
    const runner = h.scheduler({ collectors: [capacityCollector] });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    await runner.pass();
    expect(await alerts(h, orgId)).toEqual([]);

    const [a, b] = sim.state.capacities;
    sim.control.capacityState({ capacityId: a!.id, state: 'Suspended' });
    h.clock.advance(5_000);
    expect(await runner.pass()).toBe(1);
    let found = await alerts(h, orgId, 'Capacity');
    expect(found).toMatchObject([{ source_id: a!.id.toLowerCase(), source_name: a!.displayName, capacity_name: a!.displayName, notification_kind: 'CapacityNotActive', severity: 'error', status: 'open', failure_count: 1 }]);

    // Still suspended: nothing new, no reoccurrence counted.
    h.clock.advance(5_000);
    await runner.pass();
    found = await alerts(h, orgId, 'Capacity');
    expect(found).toHaveLength(1);
    expect(found[0].failure_count).toBe(1);

    sim.control.capacityState({ capacityId: a!.id, state: 'Active' });
    sim.control.capacityState({ capacityId: b!.id, state: 'Paused' });
    h.clock.advance(5_000);
    await runner.pass();
    found = await alerts(h, orgId, 'Capacity');
    expect(found.map((r) => [r.source_id, r.status])).toEqual([
      [a!.id.toLowerCase(), 'resolved'],
      [b!.id.toLowerCase(), 'open'],
    ]);

    // b disappears from the tenant: its incident resolves.
    sim.state.capacities = sim.state.capacities.filter((c) => c.id !== b!.id);
    h.clock.advance(5_000);
    await runner.pass();
    found = await alerts(h, orgId, 'Capacity');
    expect(found.map((r) => r.status)).toEqual(['resolved', 'resolved']);
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it('capacity: ARM\'s state counts when the connection names a subscription', async () => {
    const sim = await h.sim({ seed: 11, sizes: { capacities: 2, workspaces: 3 } });
    const orgId = await h.org();
    await h.tenant(orgId, sim, { mode: 'member', costScopes: [`/subscriptions/${sim.state.settings.subscriptionId}`] });
    // An F capacity's Fabric display name is its ARM resource name (the simulator names them apart).
    for (const c of sim.state.capacities) c.displayName = c.armName;
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    const target = sim.state.capacities[0]!;
    sim.control.capacityState({ capacityId: target.id, state: 'Paused' });
    const runner = h.scheduler({ collectors: [capacityCollector] });
    await runner.pass();
    expect(sim.countCalls({ family: 'arm' })).toBeGreaterThan(0);
    expect((await alerts(h, orgId, 'Capacity')).map((r) => [r.source_name, r.status, r.message])).toEqual([
      [target.displayName, 'open', expect.stringContaining('Paused')],
    ]);
    expect(sim.violations).toEqual([]);
  });
});

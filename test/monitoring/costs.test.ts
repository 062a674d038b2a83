/**
 * The costs collector against the tenant simulator: 90 days on the first run in windows of at
 * most 31 days (the simulator refuses more), actual and amortized cost per day and capacity,
 * overage from the overage meters, nextLink pages POSTed again, the billing currency kept, and
 * later runs read only the last days again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { costsCollector } from '../../src/monitoring/sources/costs/costs.js';
import { capacitiesOf, replaceCapacities } from '../../src/orgs/inventory.js';
import { inventoryCollector } from '../../src/monitoring/sources/inventory/inventory.js';
import { capacityInventory } from '../../src/admin-api/overview-views.js';
import { createHarness, schedule, type Harness } from './harness.js';

describe('collector: costs', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  it('reads 90 days of daily actual, amortized and overage cost per capacity, then only the last days', async () => {
    h.clock.set(Date.now()); // the simulator dates its costs from the real today
    const sim = await h.sim({ seed: 61, sizes: { capacities: 2, workspaces: 1, costDays: 90 }, costPageRows: 25 });
    const orgId = await h.org();
    const scope = `/subscriptions/${sim.state.settings.subscriptionId}`;
    const tenant = await h.tenant(orgId, sim, { costScopes: [scope], collectors: { costs: { intervalSeconds: 3600 } } });
    // Cost Management spells resource ids in lower case; the inventory's spelling wins.
    const first = sim.state.capacities[0]!.armName;
    const spelled = first.toUpperCase();
    await replaceCapacities(h.ctx, orgId, [{ name: spelled, sku: 'F2', state: 'Active', region: 'Brazil South' }]);
    const runner = h.scheduler({ collectors: [costsCollector] });
    await runner.pass();
    expect((await schedule(h, tenant.id, 'costs')).last_error).toBeNull();

    const expected = new Map<string, { cost: number; amortized: number; overage: number }>();
    for (const r of sim.state.costs) {
      const name = r.resourceId.split('/').pop()!;
      const k = `${r.date}|${name}`;
      const e = expected.get(k) ?? { cost: 0, amortized: 0, overage: 0 };
      e.cost += r.actual;
      e.amortized += r.amortized;
      if (/overage/i.test(r.meter)) e.overage += r.actual;
      expected.set(k, e);
    }
    const { rows } = await h.ctx.db.query(
      `SELECT date, capacity_name, currency, cost, amortized_cost, overage_cost FROM daily_costs WHERE org_id = $1 ORDER BY date, capacity_name`,
      [orgId],
    );
    expect(rows).toHaveLength(expected.size);
    expect(rows.some((r) => r.capacity_name === spelled)).toBe(true);
    expect(rows.some((r) => r.capacity_name === first)).toBe(false);
    for (const r of rows) {
      const e = expected.get(`${r.date}|${r.capacity_name === spelled ? first : r.capacity_name}`)!;
      expect(r.currency).toBe(sim.state.settings.currency);
      expect(r.cost).toBeCloseTo(e.cost, 5);
      expect(r.amortized_cost).toBeCloseTo(e.amortized, 5);
      expect(r.overage_cost).toBeCloseTo(e.overage, 5);
    }
    expect(rows.some((r) => r.overage_cost > 0)).toBe(true);
    const queries = sim.requests.filter((r) => r.family === 'cost');
    // 90 days → three windows of ≤ 31 days, actual and amortized each, several pages each.
    expect(queries.filter((r) => !r.query.$skiptoken)).toHaveLength(6);
    expect(queries.some((r) => r.query.$skiptoken)).toBe(true);
    expect(queries.every((r) => r.method === 'POST')).toBe(true);

    const before = sim.countCalls({ family: 'cost' });
    h.clock.advance(3_600_000);
    await runner.pass();
    expect((await schedule(h, tenant.id, 'costs')).last_error).toBeNull();
    const later = sim.requests.filter((r) => r.family === 'cost').slice(before);
    expect(later.filter((r) => !r.query.$skiptoken)).toHaveLength(2);
    expect(sim.violations).toEqual([]);
  });

  it('files costs under the capacity\'s display name when its ARM resource is named otherwise ("Capacity 001", fabriccap001)', async () => {
    h.clock.set(Date.now());
    const sim = await h.sim({ seed: 62, sizes: { capacities: 2, workspaces: 1, costDays: 5 } });
    const orgId = await h.org();
    const scope = `/subscriptions/${sim.state.settings.subscriptionId}`;
    await h.tenant(orgId, sim, { costScopes: [scope] });
    // The inventory joins each ARM resource to its capacity (same SKU, region and administrators).
    const inventory = h.scheduler({ collectors: [inventoryCollector] });
    expect(await inventory.pass()).toBe(1);
    const caps = await capacitiesOf(h.ctx.db, orgId);
    expect(caps.map((c) => [c.name, c.armName]).sort()).toEqual(sim.state.capacities.map((c) => [c.displayName, c.armName]).sort());
    for (const c of sim.state.capacities) expect(c.displayName).not.toBe(c.armName);

    const costs = h.scheduler({ collectors: [costsCollector] });
    expect(await costs.pass()).toBe(1);
    const { rows } = await h.ctx.db.query<{ capacity_name: string }>('SELECT DISTINCT capacity_name FROM daily_costs WHERE org_id = $1 ORDER BY capacity_name', [orgId]);
    const billed = new Set(sim.state.costs.map((r) => r.resourceId.split('/').pop()!.toLowerCase()));
    const named = sim.state.capacities.filter((c) => billed.has(c.armName.toLowerCase())).map((c) => c.displayName).sort();
    expect(named.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.capacity_name)).toEqual(named);
    // The console's capacity list: display name, ARM name beside it, and this month's cost.
    const view = await capacityInventory(h.ctx, orgId);
    const shown = view.items.find((c) => c.name === named[0])!;
    expect(shown.armName).toBe(sim.state.capacities.find((c) => c.displayName === named[0])!.armName);
    expect(shown.costThisMonth).not.toBeNull();
    expect(sim.violations).toEqual([]);
  });
});

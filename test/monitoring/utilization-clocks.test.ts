/**
 * One clock per comparison in the utilization collector: the Eventhouse is read from the newest
 * ingestion_time() seen (the platform's clock) with an overlap de-duplicated by event id, so rows
 * that become visible late and a Vigia clock running ahead of the platform's skip nothing; an Azure
 * Monitor minute is complete only when both series have published (or a grace period passed), so
 * an overload point published after the CPU point still opens CapacityThrottled.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { utilizationCollector } from '../../src/monitoring/sources/utilization/utilization.js';
import { alerts, createHarness, type Harness, schedule } from './harness.js';

describe('collector: utilization — read bounds and completeness on the platform\'s clock', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  /** `skewMs`: how far the platform's clock runs behind Vigia's. */
  async function eventhouse(skewMs = 0) {
    const sim = await h.sim({ seed: 61, sizes: { capacities: 2, workspaces: 4, gateways: 0 }, now: () => h.clock.now().getTime() - skewMs, tokenLifetimeSeconds: 30 * 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, {
      collectors: { utilization: { intervalSeconds: 30 } },
      utilization: { eventhouse: { queryUri: sim.origin, database: 'CapacityMonitoring', table: 'CapacityEvents' } },
    });
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    expect(await runner.pass()).toBe(1);
    return { sim, orgId, tenant, runner, caps: sim.state.capacities };
  }

  const step = async (runner: ReturnType<Harness['scheduler']>, ms = 60_000) => {
    h.clock.advance(ms);
    return runner.pass();
  };

  async function windowsOf(tenantRef: string, capacityId: string): Promise<number[]> {
    const { rows } = await h.ctx.db.query('SELECT window_start FROM capacity_utilization WHERE tenant_ref = $1 AND capacity_id = $2 ORDER BY window_start', [tenantRef, capacityId.toLowerCase()]);
    return rows.map((r) => new Date(r.window_start).getTime());
  }

  /** Windows missing between the first and the last stored. */
  const gaps = (w: number[]) => (w.at(-1)! - w[0]!) / 30_000 + 1 - w.length;

  it('rows that become visible after rows ingested later are read by a later run, once', async () => {
    const { sim, tenant, runner, caps } = await eventhouse();
    // The next four windows' rows of the first capacity show in queries 90 s after their ingestion time.
    sim.control.eventhouseLateRows({ capacityId: caps[0]!.id, windows: 4, lateMs: 90_000 });
    for (let i = 0; i < 8; i++) await step(runner, 30_000);
    const late = await windowsOf(tenant.id, caps[0]!.id);
    const other = await windowsOf(tenant.id, caps[1]!.id);
    expect(gaps(late)).toBe(0);
    expect(gaps(other)).toBe(0);
    expect(late.at(-1)).toBe(other.at(-1));
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it("a Vigia clock running ahead of the platform's skips no row", async () => {
    const { sim, tenant, runner, caps } = await eventhouse(2 * 60_000);
    for (let i = 0; i < 6; i++) await step(runner, 45_000);
    for (const c of caps) {
      const w = await windowsOf(tenant.id, c.id);
      expect(gaps(w)).toBe(0);
      // Read up to the newest window the platform has ingested by its own clock.
      expect(w.at(-1)).toBeGreaterThan(h.clock.now().getTime() - 2 * 60_000 - 30_000 - 15_000 - 30_000);
    }
    expect(sim.violations).toEqual([]);
  });

  it('an overload point published after the CPU point still opens CapacityThrottled; a series that never comes holds a minute only for the grace period', async () => {
    const sim = await h.sim({ seed: 62, sizes: { capacities: 2, workspaces: 4, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    const cap = sim.state.capacities[0]!;
    sim.control.capacitySku({ capacityId: cap.id, sku: 'A2' });
    const sub = sim.state.settings.subscriptionId;
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { utilization: { intervalSeconds: 30 } }, utilization: { armScopes: [`/subscriptions/${sub}`] } });
    const armId = `/subscriptions/${sub}/resourcegroups/${cap.resourceGroup}/providers/microsoft.powerbidedicated/capacities/${cap.armName}`.toLowerCase();
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    expect(await runner.pass()).toBe(1);

    sim.control.metricSeriesLate({ metric: 'overload_metric', lateMs: 2 * 60_000 });
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveDelay' });
    for (let i = 0; i < 6; i++) await step(runner, 60_000);
    const throttled = (await alerts(h, orgId, 'Capacity')).find((a) => a.notification_kind === 'CapacityThrottled');
    expect(throttled).toMatchObject({ source_id: armId, status: 'open' });
    expect(throttled!.message).toContain('overload_metric = 1');

    // The overload series stops publishing: each minute waits SETTLE_MS (5 min) for it, then is read with CPU alone.
    sim.control.metricSeriesLate({ metric: 'overload_metric', lateMs: 24 * 3_600_000 });
    const before = (await windowsOf(tenant.id, armId)).length;
    for (let i = 0; i < 10; i++) await step(runner, 60_000);
    const w = await windowsOf(tenant.id, armId);
    expect(gaps(w)).toBe(0);
    expect(w.length - before).toBeGreaterThanOrEqual(2 * 4);
    expect(w.at(-1)).toBeGreaterThanOrEqual(h.clock.now().getTime() - 7 * 60_000);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });
});

/**
 * Poison data never blinds the utilization collector: a Summary event that is not JSON, one with
 * negative CU and percentages, one with a 1e308 CU figure — each skipped, counted and named in
 * the collector's status, never stored, and the rows after it read as usual (an Azure Monitor
 * point out of range too); rows rejected run
 * after run open the Tenant incident PlatformDataRejected (info) until a run rejects none; a Kusto
 * query that fails keeps Kusto's own words (SEM0100, OneApiErrors) in lastError.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { utilizationCollector } from '../../src/monitoring/sources/utilization/utilization.js';
import { getTenant } from '../../src/monitoring/tenants.js';
import { removeTenant } from '../../src/monitoring/tenant-removal.js';
import { alerts, createHarness, type Harness, schedule } from './harness.js';

describe('collector: utilization — poison data and vendor errors', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  async function setup() {
    const sim = await h.sim({ seed: 36, sizes: { capacities: 2, workspaces: 4, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
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

  async function stored(tenantRef: string) {
    const { rows } = await h.ctx.db.query(
      `SELECT capacity_id, count(*)::int AS n, min(utilization_pct) AS min_u, max(utilization_pct) AS max_u, min(delay_pct) AS min_d, min(carry_forward_cu_ms) AS min_c, max(window_start) AS last
         FROM capacity_utilization WHERE tenant_ref = $1 GROUP BY capacity_id ORDER BY capacity_id`,
      [tenantRef],
    );
    return rows;
  }

  it('a malformed, a negative and a 1e308 event are skipped, counted and named; every other row is read and none of them stored', async () => {
    const { sim, orgId, tenant, runner, caps } = await setup();
    const before = await stored(tenant.id);
    sim.control.eventhouseInject({ capacityId: caps[0]!.id, kind: 'malformed' });
    sim.control.eventhouseInject({ capacityId: caps[1]!.id, kind: 'negative' });
    sim.control.eventhouseInject({ capacityId: caps[0]!.id, kind: 'huge' });
    await step(runner);
    const row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toBeNull();
    expect(row.last_rejected).toBe(3);
    expect(row.last_rejected_note).toMatch(/^3 rows skipped: /);
    expect(row.last_rejected_note).toContain('"data" is not an object');
    expect(row.last_rejected_note).toContain(`the Summary event of ${caps[1]!.id.toLowerCase()}`);
    expect(row.last_rejected_note).toContain('interactiveDelayThresholdPercentage -2500 is negative');
    expect(row.last_rejected_note).toContain('capacityUnitMs 1e+308 is beyond 1,000,000,000,000,000');
    const view = (await getTenant(h.ctx, orgId, tenant.id)).collectors.find((c) => c.name === 'utilization')!;
    expect(view).toMatchObject({ lastRejected: 3, lastRejectedNote: row.last_rejected_note, lastError: null });

    // Both capacities' new windows are stored (the poison blocked nothing), and nothing negative or huge.
    const after = await stored(tenant.id);
    expect(after.map((r) => r.capacity_id)).toEqual(caps.map((c) => c.id.toLowerCase()).sort());
    for (const r of after) {
      const was = before.find((b) => b.capacity_id === r.capacity_id)!;
      expect(r.n).toBe(was.n + 2);
      expect(Number(r.min_u)).toBeGreaterThanOrEqual(0);
      expect(Number(r.max_u)).toBeLessThan(200);
      expect(Number(r.min_d)).toBeGreaterThanOrEqual(0);
      expect(Number(r.min_c)).toBeGreaterThanOrEqual(0);
    }
    expect((await alerts(h, orgId)).filter((a) => a.notification_kind === 'PlatformDataRejected')).toEqual([]);

    // The next run has nothing to skip: the status says so.
    await step(runner);
    expect(await schedule(h, tenant.id, 'utilization')).toMatchObject({ last_rejected: 0, last_rejected_note: null, last_error: null });
    expect(sim.violations).toEqual([]);
  });

  it('rows rejected run after run open Tenant / PlatformDataRejected (info); a run that rejects none resolves it; so does deleting the connection', async () => {
    const { sim, orgId, tenant, runner, caps } = await setup();
    for (let i = 0; i < 3; i++) {
      sim.control.eventhouseInject({ capacityId: caps[0]!.id, kind: 'negative' });
      await step(runner, 30_000);
      const open = (await alerts(h, orgId, 'Tenant')).filter((a) => a.notification_kind === 'PlatformDataRejected');
      expect(open).toHaveLength(i < 2 ? 0 : 1);
    }
    const [incident] = (await alerts(h, orgId, 'Tenant')).filter((a) => a.notification_kind === 'PlatformDataRejected');
    expect(incident).toMatchObject({ source_id: tenant.id, severity: 'info', status: 'open' });
    expect(incident.message).toContain('interactiveDelayThresholdPercentage -2500 is negative');
    await step(runner, 30_000);
    expect((await alerts(h, orgId, 'Tenant')).find((a) => a.notification_kind === 'PlatformDataRejected')!.status).toBe('resolved');

    for (let i = 0; i < 3; i++) {
      sim.control.eventhouseInject({ capacityId: caps[1]!.id, kind: 'huge' });
      await step(runner, 30_000);
    }
    expect((await alerts(h, orgId, 'Tenant')).filter((a) => a.notification_kind === 'PlatformDataRejected').map((a) => a.status)).toEqual(['resolved', 'open']);
    await removeTenant(h.ctx, orgId, tenant.id);
    expect((await alerts(h, orgId, 'Tenant')).filter((a) => a.notification_kind === 'PlatformDataRejected').map((a) => a.status)).toEqual(['resolved', 'resolved']);
    expect(sim.violations).toEqual([]);
  });

  it('an Azure Monitor point out of range (CPU −5 %, 1e308) is skipped and counted, not clamped and stored; the minutes after it are read', async () => {
    const sim = await h.sim({ seed: 37, sizes: { capacities: 2, workspaces: 4, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    const cap = sim.state.capacities[0]!;
    sim.control.capacitySku({ capacityId: cap.id, sku: 'A2' });
    const sub = sim.state.settings.subscriptionId;
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { utilization: { intervalSeconds: 30 } }, utilization: { armScopes: [`/subscriptions/${sub}`] } });
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    expect(await runner.pass()).toBe(1);
    const count = async () => (await stored(tenant.id)).reduce((n, r) => n + r.n, 0);
    const before = await count();

    sim.control.metricValue({ metric: 'cpu_metric', value: -5 });
    await step(runner, 3 * 60_000);
    let row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toBeNull();
    expect(row.last_rejected).toBe(3);
    expect(row.last_rejected_note).toContain('cpu_metric -5 is negative');
    expect(await count()).toBe(before);

    sim.control.metricValue({ metric: 'overload_metric', value: 1e308 });
    await step(runner, 60_000);
    row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_rejected).toBe(1);
    expect(row.last_rejected_note).toContain('overload_metric 1e+308 is beyond 10,000');

    sim.control.metricValue({ metric: null });
    await step(runner, 2 * 60_000);
    expect(await schedule(h, tenant.id, 'utilization')).toMatchObject({ last_rejected: 0, last_error: null });
    // The two minutes published since: two 30-second windows each.
    expect(await count()).toBe(before + 2 * 2);
    expect(Number((await stored(tenant.id))[0].min_u)).toBeGreaterThanOrEqual(0);
    expect(sim.violations).toEqual([]);
  });

  it("a failed Kusto query keeps Kusto's own words in lastError (SEM0100; a partial failure's OneApiErrors), and nothing is skipped", async () => {
    const { sim, tenant, runner } = await setup();
    const count = async () => (await stored(tenant.id)).reduce((n, r) => n + r.n, 0);
    const before = await count();
    sim.control.eventhouseFault({ kind: 'semantic' });
    await step(runner);
    let row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toContain('answered 400 General_BadRequest: SEM0100 Semantic error:');
    expect(row.last_error.length).toBeLessThan(600);

    sim.control.eventhouseFault({ kind: 'partial' });
    await step(runner);
    row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toContain('HasErrors');
    expect(row.last_error).toContain('E_QUERY_RESULT_SET_TOO_LARGE');

    await step(runner);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    // The three minutes of the two failed runs and this one: 6 windows per capacity, none skipped.
    expect(await count()).toBe(before + 2 * 6);
    expect(sim.violations).toEqual([]);
  });
});

/**
 * The utilization collector's Azure Monitor source against the strict simulator: Power BI
 * Embedded capacities (A SKUs) listed under the connection's ARM scopes, their overload_metric
 * and cpu_metric read minute by minute. An overloaded A SKU opens CapacityThrottled (saying what
 * Azure Monitor does not tell) and recovers after recoverWindows calm windows; every minute is
 * read once across a restart and a long gap; token refused, ARM read refused (403) and 429 are
 * the run's error or waited out; a paused capacity's incidents recover and its absent metrics are
 * not read as calm; scopes without an A SKU cost one listing call.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { utilizationCollector } from '../../src/monitoring/sources/utilization/utilization.js';
import { alerts, createHarness, type Harness, schedule } from './harness.js';

describe('collector: utilization (Azure Monitor metrics of Power BI Embedded A SKUs)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  async function setup(utilization: Record<string, unknown> | ((origin: string) => Record<string, unknown>) = {}, embedded = true) {
    const sim = await h.sim({ seed: 26, sizes: { capacities: 2, workspaces: 4, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    const cap = sim.state.capacities[0]!;
    if (embedded) sim.control.capacitySku({ capacityId: cap.id, sku: 'A2' });
    const sub = sim.state.settings.subscriptionId;
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { utilization: { intervalSeconds: 30 } }, utilization: { armScopes: [`/subscriptions/${sub}`], ...(typeof utilization === 'function' ? utilization(sim.origin) : utilization) } });
    const armId = `/subscriptions/${sub}/resourcegroups/${cap.resourceGroup}/providers/microsoft.powerbidedicated/capacities/${cap.armName}`.toLowerCase();
    return { sim, orgId, tenant, cap, armId };
  }

  const step = async (runner: ReturnType<Harness['scheduler']>, ms = 60_000) => {
    h.clock.advance(ms);
    return runner.pass();
  };

  async function windowsOf(tenantRef: string, capacityId: string): Promise<string[]> {
    const { rows } = await h.ctx.db.query('SELECT window_start FROM capacity_utilization WHERE tenant_ref = $1 AND capacity_id = $2 ORDER BY window_start', [tenantRef, capacityId]);
    return rows.map((r) => new Date(r.window_start).toISOString());
  }

  it('an overloaded A SKU opens CapacityThrottled, says what Azure Monitor does not tell, and recovers after recoverWindows calm windows', async () => {
    const { sim, orgId, tenant, cap, armId } = await setup();
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    expect(await runner.pass()).toBe(1);
    expect(await alerts(h, orgId)).toEqual([]);
    expect((await windowsOf(tenant.id, armId)).length).toBeGreaterThan(0);

    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveDelay' });
    await step(runner, 3 * 60_000);
    let found = await alerts(h, orgId, 'Capacity');
    const throttled = found.find((a) => a.notification_kind === 'CapacityThrottled')!;
    expect(throttled).toMatchObject({ source_id: armId, capacity_name: cap.armName, severity: 'error', status: 'open', failure_count: 1 });
    expect(throttled.message).toContain('sobrecarregada');
    expect(throttled.message).toContain('overload_metric = 1');
    expect(throttled.message).toContain('não informa o estágio');
    expect(found.find((a) => a.notification_kind === 'CapacityHighUtilization')).toMatchObject({ severity: 'info', status: 'open' });
    expect(found.find((a) => a.notification_kind === 'CapacityHighUtilization')!.message).toContain('CPU em 100 %');

    // Still overloaded in later minutes: the same incident, no new occurrence.
    await step(runner, 2 * 60_000);
    expect((await alerts(h, orgId, 'Capacity')).find((a) => a.notification_kind === 'CapacityThrottled')!.failure_count).toBe(1);

    sim.control.capacityLoad({ capacityId: cap.id, stage: 'normal', clearCarryForward: true });
    // A minute is published a minute after it ends: no calm minute is in yet.
    await step(runner, 60_000);
    expect((await alerts(h, orgId, 'Capacity')).every((a) => a.status === 'open')).toBe(true);
    await step(runner, 4 * 60_000);
    found = await alerts(h, orgId, 'Capacity');
    expect(found.map((a) => [a.notification_kind, a.status]).sort().reverse()).toEqual([
      ['CapacityThrottled', 'resolved'],
      ['CapacityHighUtilization', 'resolved'],
    ]);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    // Only Azure Monitor's metrics and the listing were called; every call was in the contract.
    expect(sim.countCalls({ family: 'kusto' })).toBe(0);
    expect(sim.violations).toEqual([]);
  });

  it('reads every minute exactly once across a restart and a gap longer than one query', async () => {
    const { sim, tenant, armId } = await setup();
    const first = h.scheduler({ collectors: [utilizationCollector] });
    await first.pass();
    await step(first, 3 * 60_000);
    await first.stop();
    const callsBefore = sim.countCalls({ operationId: 'Metrics_List' });
    // No run for 8 hours (more than one query's 6-hour span); a new instance takes over.
    h.clock.advance(8 * 3_600_000);
    const second = h.scheduler({ collectors: [utilizationCollector] });
    expect(await second.pass()).toBe(1);
    const w = await windowsOf(tenant.id, armId);
    // Contiguous 30-second windows (two per minute), none twice, up to the newest published minute.
    const span = (Date.parse(w.at(-1)!) - Date.parse(w[0]!)) / 30_000 + 1;
    expect(w.length).toBe(span);
    const now = h.clock.now().getTime();
    expect(Date.parse(w.at(-1)!)).toBeGreaterThanOrEqual(now - 3 * 60_000);
    // The gap took two queries (6 h + the rest), each starting where the last one's read ended.
    expect(sim.countCalls({ operationId: 'Metrics_List' }) - callsBefore).toBe(2);
    const spans = sim.requests.filter((r) => r.operationId === 'Metrics_List').map((r) => r.query.timespan!.split('/').map((t) => Date.parse(t)));
    for (let i = 1; i < spans.length; i++) {
      // A later query starts at or before the previous end (only unpublished minutes are asked again), never after it.
      expect(spans[i]![0]).toBeLessThanOrEqual(spans[i - 1]![1]!);
      expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]! - 2 * 60_000);
    }
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it('token refused, ARM read refused (403), ARM throttling (429) and the metrics back-end\'s (529): the run\'s error or waited out; no minute skipped', async () => {
    const { sim, tenant, armId } = await setup();
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();

    sim.control.throttle({ family: 'arm', count: 2, retryAfterSeconds: 0 });
    await step(runner);
    let row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toBeNull();
    expect(row.last_throttled_calls).toBe(2);

    // The metrics back-end's throttling (529): retried like a 5xx; when it lasts, the run's error.
    sim.control.metricsThrottled({ count: 1 });
    await step(runner);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    sim.control.metricsThrottled({ count: 3 });
    await step(runner);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toMatch(/529/);

    sim.control.armReadForbidden({ scope: `subscriptions/${sim.state.settings.subscriptionId}`, on: true });
    await step(runner);
    row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toMatch(/403/);
    expect(row.problem_kind).toBe('TenantAccessDenied');
    sim.control.armReadForbidden({ scope: `subscriptions/${sim.state.settings.subscriptionId}`, on: false });
    await step(runner);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    // The minutes of the refused run were read by the next one.
    const w = await windowsOf(tenant.id, armId);
    expect(w.length).toBe((Date.parse(w.at(-1)!) - Date.parse(w[0]!)) / 30_000 + 1);

    sim.control.refuseTokens({ on: true });
    await h.ctx.db.query("UPDATE tenants SET version = version + 1 WHERE id = $1", [tenant.id]);
    await step(runner);
    row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toMatch(/refused the credentials/);
    expect(row.problem_kind).toBe('TenantAuthFailed');
    expect(sim.violations).toEqual([]);
  });

  it('a paused capacity: absent metrics are not calm; the listing shows the pause and its incidents recover', async () => {
    const { sim, orgId, tenant, cap, armId } = await setup({ recoverWindows: 2 });
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveRejection' });
    await step(runner, 3 * 60_000);
    expect((await alerts(h, orgId, 'Capacity')).map((a) => a.status)).toEqual(['open', 'open']);
    sim.control.capacityState({ capacityId: cap.id, state: 'Paused' });
    const count = (await windowsOf(tenant.id, armId)).length;
    // Before the listing is read again, the minutes without a point stay unjudged: still open.
    await step(runner, 60_000);
    expect((await alerts(h, orgId, 'Capacity')).map((a) => a.status)).toEqual(['open', 'open']);
    await step(runner, 5 * 60_000);
    const found = await alerts(h, orgId, 'Capacity');
    expect(found.map((a) => [a.notification_kind, a.status]).sort().reverse()).toEqual([
      ['CapacityThrottled', 'resolved'],
      ['CapacityHighUtilization', 'resolved'],
    ]);
    // While paused no metrics are asked for, and nothing is stored.
    const calls = sim.countCalls({ operationId: 'Metrics_List' });
    await step(runner, 10 * 60_000);
    expect(sim.countCalls({ operationId: 'Metrics_List' })).toBe(calls);
    expect((await windowsOf(tenant.id, armId)).length).toBeLessThanOrEqual(count + 4);
    expect(sim.violations).toEqual([]);
  });

  it('beside the Eventhouse source: both read in one run, and an ARM refusal does not stop the events from being read', async () => {
    const { sim, tenant, armId } = await setup((origin) => ({ eventhouse: { queryUri: origin, database: 'CapacityMonitoring', table: 'CapacityEvents' } }));
    const fabricCap = sim.state.capacities[1]!.id.toLowerCase();
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    expect((await windowsOf(tenant.id, armId)).length).toBeGreaterThan(0);
    const events = (await windowsOf(tenant.id, fabricCap)).length;
    expect(events).toBeGreaterThan(0);
    const minutes = (await windowsOf(tenant.id, armId)).length;

    sim.control.armReadForbidden({ scope: '*', on: true });
    await step(runner, 2 * 60_000);
    const row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toMatch(/403/);
    // The events of the F SKU were read and committed all the same; the A SKU's minutes wait.
    expect((await windowsOf(tenant.id, fabricCap)).length).toBe(events + 4);
    expect((await windowsOf(tenant.id, armId)).length).toBe(minutes);
    sim.control.armReadForbidden({ scope: '*', on: false });
    await step(runner);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    const w = await windowsOf(tenant.id, armId);
    expect(w.length).toBe((Date.parse(w.at(-1)!) - Date.parse(w[0]!)) / 30_000 + 1);
    expect(w.length).toBeGreaterThan(minutes);
    expect(sim.violations).toEqual([]);
  });

  it('scopes without an A SKU cost one listing call per listing refresh and raise nothing', async () => {
    const { sim, orgId, tenant } = await setup({}, false);
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    expect(sim.countCalls({ family: 'arm' })).toBe(1);
    expect(sim.countCalls({ operationId: 'Capacities_List' })).toBe(1);
    expect((await schedule(h, tenant.id, 'utilization')).last_calls).toBe(1);
    // Within the listing's refresh time: no call at all.
    await step(runner);
    expect(sim.countCalls({ family: 'arm' })).toBe(1);
    expect(await alerts(h, orgId)).toEqual([]);
    expect(sim.violations).toEqual([]);
  });
});

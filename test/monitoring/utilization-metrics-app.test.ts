/**
 * The utilization collector's Metrics app source against the strict simulator's Capacity Metrics
 * app model: two historical name sets read the same figures (and the same as the event stream);
 * an unknown version opens the Tenant incident CapacityMetricsUnreadable naming what was found
 * and reads nothing, then recovers; an app upgrade under a cached mapping is probed again;
 * throttling names the heaviest item from the app's item table; token refused, 429, a paused
 * capacity and a gap.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { utilizationCollector } from '../../src/monitoring/sources/utilization/utilization.js';
import { removeTenant } from '../../src/monitoring/tenant-removal.js';
import type { MetricsAppVersion } from '../../src/tenant-sim/types.js';
import { alerts, createHarness, type Harness, schedule } from './harness.js';

const MIN = 60_000;

describe('collector: utilization (capacity load from the Capacity Metrics app)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  async function setup(version: MetricsAppVersion, utilization: Record<string, unknown> = {}, orgId?: string) {
    const sim = await h.sim({ seed: 26, sizes: { capacities: 2, workspaces: 6, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    sim.control.metricsAppVersion({ version });
    const org = orgId ?? (await h.org());
    const app = sim.state.metricsApp!;
    const tenant = await h.tenant(org, sim, {
      name: `Tenant ${version}`,
      collectors: { utilization: { intervalSeconds: 60 } },
      utilization: { metricsApp: { workspaceId: app.workspaceId, datasetId: app.datasetId }, ...utilization },
    });
    const cap = sim.state.capacities[0]!;
    const heavy = sim.state.workspaces.find((w) => w.capacityId === cap.id)!.items[1]!;
    return { sim, orgId: org, tenant, cap, heavy };
  }

  const step = async (runner: ReturnType<Harness['scheduler']>, ms = MIN) => {
    h.clock.advance(ms);
    return runner.pass();
  };

  async function figures(tenantRef: string): Promise<Array<Record<string, any>>> {
    const { rows } = await h.ctx.db.query(
      `SELECT capacity_id, window_start, utilization_pct, delay_pct, interactive_rejection_pct, background_rejection_pct, carry_forward_cu_ms
         FROM capacity_utilization WHERE tenant_ref = $1 ORDER BY capacity_id, window_start`,
      [tenantRef],
    );
    return rows.map((r: Record<string, any>) => ({ ...r, window_start: new Date(r.window_start).toISOString(), carry_forward_cu_ms: Math.round(Number(r.carry_forward_cu_ms)) }));
  }

  async function windowsOf(tenantRef: string, capacityId: string): Promise<string[]> {
    const { rows } = await h.ctx.db.query('SELECT window_start FROM capacity_utilization WHERE tenant_ref = $1 AND capacity_id = $2 ORDER BY window_start', [tenantRef, capacityId.toLowerCase()]);
    return rows.map((r) => new Date(r.window_start).toISOString());
  }

  it('two historical name sets (v37 and v53) read the same figures, the same as the event stream, through a throttling episode', async () => {
    // Each connection in its own organization (the same simulated capacities would share one incident).
    const a = await setup('v37');
    const b = await setup('v53');
    // A third connection reads the same simulated load from the Eventhouse.
    const e = await h.tenant(await h.org(), a.sim, {
      name: 'Events',
      collectors: { utilization: { intervalSeconds: 60 } },
      utilization: { eventhouse: { queryUri: a.sim.origin, database: 'CapacityMonitoring', table: 'CapacityEvents' } },
    });
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    for (const s of [a, b]) s.sim.control.capacityLoad({ capacityId: s.cap.id, stage: 'interactiveRejection', heavyItemId: s.heavy.id });
    for (let i = 0; i < 12; i++) await step(runner);
    for (const s of [a, b]) s.sim.control.capacityLoad({ capacityId: s.cap.id, stage: 'normal', clearCarryForward: true });
    for (let i = 0; i < 14; i++) await step(runner);

    const fa = await figures(a.tenant.id);
    const fb = await figures(b.tenant.id);
    expect(fa.length).toBeGreaterThan(150);
    expect(fb).toEqual(fa);
    expect(fa.some((r) => r.interactive_rejection_pct > 100)).toBe(true);
    // The event stream has every window the model has, with the same figures (the model is 10 minutes behind).
    const fe = new Map((await figures(e.id)).map((r) => [`${r.capacity_id}|${r.window_start}`, r]));
    for (const r of fa) expect(fe.get(`${r.capacity_id}|${r.window_start}`)).toMatchObject({ delay_pct: r.delay_pct, interactive_rejection_pct: r.interactive_rejection_pct, carry_forward_cu_ms: r.carry_forward_cu_ms });

    // Each tenant: one throttling incident, opened and recovered, naming the heaviest item of the day.
    for (const t of [a, b]) {
      const incidents = (await alerts(h, t.orgId, 'Capacity')).filter((x) => x.notification_kind === 'CapacityThrottled');
      expect(incidents).toMatchObject([{ status: 'resolved', failure_count: 1, capacity_name: t.cap.displayName }]);
      expect(incidents[0].message).toContain('em rejeição interativa');
      expect(incidents[0].message).toContain(`Itens com mais CU no dia (app Capacity Metrics, que agrega por dia): ${t.heavy.id.toLowerCase()} (`);
    }
    expect((await schedule(h, a.tenant.id, 'utilization')).last_error).toBeNull();
    expect(a.sim.violations).toEqual([]);
    expect(b.sim.violations).toEqual([]);
  });

  it('an unknown app version opens CapacityMetricsUnreadable naming what was found and reads nothing; readable again, it recovers', async () => {
    const { sim, orgId, tenant } = await setup('v99');
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    let found = await alerts(h, orgId, 'Tenant');
    expect(found).toMatchObject([{ notification_kind: 'CapacityMetricsUnreadable', status: 'open', severity: 'error', source_id: tenant.id }]);
    expect(found[0].message).toContain("a version Vigia does not know: the model has none of the measures that identify the known versions ('Blocked workspaces (Day)' v53–v65");
    expect(found[0].message).toContain('O que fazer');
    expect(await figures(tenant.id)).toEqual([]);
    // Still unknown: the same incident, no second occurrence; still nothing read.
    await step(runner, 11 * MIN);
    found = await alerts(h, orgId, 'Tenant');
    expect(found).toMatchObject([{ status: 'open', failure_count: 1 }]);
    expect(await figures(tenant.id)).toEqual([]);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();

    sim.control.metricsAppVersion({ version: 'v65' });
    await step(runner);
    expect(await alerts(h, orgId, 'Tenant')).toMatchObject([{ notification_kind: 'CapacityMetricsUnreadable', status: 'resolved' }]);
    expect((await figures(tenant.id)).length).toBeGreaterThan(0);
    expect(sim.violations).toEqual([]);
  });

  it('an app upgrade under a cached mapping: the refused query is probed again and read with the new names, no incident', async () => {
    const { sim, orgId, tenant, cap } = await setup('v47');
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    const probesBefore = sim.requests.filter((r) => r.path.endsWith('/executeQueries')).length;
    sim.control.metricsAppVersion({ version: 'v53' });
    await step(runner, 5 * MIN);
    // refused timepoints query + the v53 probe + the read again
    expect(sim.requests.filter((r) => r.path.endsWith('/executeQueries')).length - probesBefore).toBe(3);
    expect(await alerts(h, orgId, 'Tenant')).toEqual([]);
    const w = await windowsOf(tenant.id, cap.id);
    expect((Date.parse(w.at(-1)!) - Date.parse(w[0]!)) / 30_000 + 1).toBe(w.length);
    // Now unknown under the cached v53 mapping: the incident names the version its probe found.
    sim.control.metricsAppVersion({ version: 'v99' });
    await step(runner, 5 * MIN);
    expect((await alerts(h, orgId, 'Tenant'))[0].message).toContain('a version Vigia does not know');
    // Deleting the connection resolves it.
    await removeTenant(h.ctx, orgId, tenant.id);
    expect(await alerts(h, orgId, 'Tenant')).toMatchObject([{ notification_kind: 'CapacityMetricsUnreadable', status: 'resolved' }]);
    expect(sim.violations).toEqual([]);
  });

  it('reads every timepoint once across a restart, a long gap between runs and a hole in the model', async () => {
    const { sim, tenant, cap } = await setup('v40');
    const first = h.scheduler({ collectors: [utilizationCollector] });
    await first.pass();
    sim.control.capacityEvents({ capacityId: cap.id, drop: 6 });
    await step(first);
    await first.stop();
    h.clock.advance(150 * MIN);
    const second = h.scheduler({ collectors: [utilizationCollector] });
    const calls = sim.requests.filter((r) => r.path.endsWith('/executeQueries')).length;
    expect(await second.pass()).toBe(1);
    // The 2.5 h between runs took three queries (one hour each), no probe (the mapping is kept).
    expect(sim.requests.filter((r) => r.path.endsWith('/executeQueries')).length - calls).toBe(3);
    const w = await windowsOf(tenant.id, cap.id);
    const span = (Date.parse(w.at(-1)!) - Date.parse(w[0]!)) / 30_000 + 1;
    expect(span - w.length).toBe(6);
    expect(new Set(w).size).toBe(w.length);
    // The newest timepoint read is the newest the model has (published 10 minutes after its window).
    const now = h.clock.now().getTime();
    expect(Date.parse(w.at(-1)!)).toBeGreaterThan(now - 10 * MIN - 60_000);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it('model refused (401), token refused and a query throttled (429) are the run\'s error or waited out; nothing is skipped', async () => {
    const { sim, tenant, cap } = await setup('v53');
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    sim.control.metricsAppForbidden({ on: true });
    await step(runner);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toMatch(/executeQueries answered 401 PowerBINotAuthorizedException/);
    expect((await schedule(h, tenant.id, 'utilization')).problem_kind).toBe('TenantAccessDenied');
    sim.control.metricsAppForbidden({ on: false });
    sim.control.throttle({ family: 'powerbi', count: 2, retryAfterSeconds: 0 });
    await step(runner);
    let row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toBeNull();
    expect(row.last_throttled_calls).toBe(2);
    sim.control.refuseTokens({ on: true });
    await h.ctx.db.query("UPDATE tenants SET version = version + 1 WHERE id = $1", [tenant.id]);
    await step(runner);
    row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toMatch(/refused the credentials/);
    expect(row.problem_kind).toBe('TenantAuthFailed');
    sim.control.refuseTokens({ on: false });
    await h.ctx.db.query("UPDATE tenants SET version = version + 1 WHERE id = $1", [tenant.id]);
    await step(runner);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    const w = await windowsOf(tenant.id, cap.id);
    expect((Date.parse(w.at(-1)!) - Date.parse(w[0]!)) / 30_000 + 1).toBe(w.length);
    expect(sim.violations).toEqual([]);
  });

  it('a paused capacity: its throttling ends, windows published after the pause are not judged again, none invented while paused', async () => {
    const { sim, orgId, tenant, cap } = await setup('v47');
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveRejection' });
    await step(runner, 11 * MIN);
    expect((await alerts(h, orgId, 'Capacity')).map((a) => a.status)).toEqual(['open', 'open']);
    sim.control.capacityState({ capacityId: cap.id, state: 'Paused' });
    await step(runner);
    expect((await alerts(h, orgId, 'Capacity')).map((a) => [a.notification_kind, a.status]).sort().reverse()).toEqual([
      ['CapacityThrottled', 'resolved'],
      ['CapacityHighUtilization', 'resolved'],
    ]);
    // The model publishes the throttled windows from before the pause: stored, not judged again.
    await step(runner, 11 * MIN);
    const count = (await windowsOf(tenant.id, cap.id)).length;
    await step(runner, 10 * MIN);
    expect((await windowsOf(tenant.id, cap.id)).length).toBe(count);
    expect((await alerts(h, orgId, 'Capacity')).map((a) => a.status)).toEqual(['resolved', 'resolved']);
    expect(sim.violations).toEqual([]);
  });

  it('with Azure Monitor beside it (armScopes), one run reads both sources and commits both', async () => {
    const sim = await h.sim({ seed: 26, sizes: { capacities: 2, workspaces: 4, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    const [embedded, fabric] = sim.state.capacities as [(typeof sim.state.capacities)[number], (typeof sim.state.capacities)[number]];
    sim.control.capacitySku({ capacityId: embedded.id, sku: 'A2' });
    sim.control.metricsAppVersion({ version: 'v53' });
    const sub = sim.state.settings.subscriptionId;
    const app = sim.state.metricsApp!;
    const tenant = await h.tenant(await h.org(), sim, {
      collectors: { utilization: { intervalSeconds: 60 } },
      utilization: { metricsApp: { workspaceId: app.workspaceId, datasetId: app.datasetId }, armScopes: [`/subscriptions/${sub}`] },
    });
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    await step(runner);
    const armId = `/subscriptions/${sub}/resourcegroups/${embedded.resourceGroup}/providers/microsoft.powerbidedicated/capacities/${embedded.armName}`.toLowerCase();
    expect((await windowsOf(tenant.id, armId)).length).toBeGreaterThan(0);
    expect((await windowsOf(tenant.id, fabric.id)).length).toBeGreaterThan(0);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });
});

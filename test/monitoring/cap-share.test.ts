/**
 * Vigia's share of the platform's per-tenant caps, against the strict tenant simulator (which
 * enforces the documented caps): the share is a setting per tenant connection (default 50 %);
 * at 25 % the counter refuses beyond it and the refreshables pages keep to it; a 429 on an
 * admin endpoint is not retried and lowers Vigia's pace there for the hour, which a second
 * instance obeys without calling; the tenant view shows calls per hour against each cap; the
 * data-source listing and checks stay inside their one paced CallBudget at a short interval.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { BudgetExhaustedError, HOURLY_CAPS, sharedCap, takeCall, takeKey } from '../../src/monitoring/platform/budget.js';
import { DATASOURCES_SHARE, datasourcesCollector } from '../../src/monitoring/sources/datasources/datasources.js';
import { ADMIN_SHARE, REFRESHABLES_KEY, refreshesCollector } from '../../src/monitoring/sources/refreshes/refreshes.js';
import { getTenant, updateTenant } from '../../src/monitoring/tenants.js';
import { registerMonitoringMetrics } from '../../src/monitoring/metrics.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { createHarness, schedule, type Harness } from './harness.js';
import { insertOrg } from './support.js';

const REFRESHABLES = { operationId: 'Admin_GetRefreshables' };

describe('share of the per-tenant caps', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  const budgetRow = async (orgId: string, tenantRef: string, key: string) => (await getTenant(h.ctx, orgId, tenantRef)).apiBudget.find((b) => b.key === key);

  it('is 50 % by default; set to 25 % the counter refuses beyond it, the refreshables pages keep to it, and the tenant view shows it', async () => {
    const sim = await h.sim({ seed: 261, sizes: { capacities: 1, workspaces: 3, gateways: 0 }, now: () => h.clock.now().getTime() });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { mode: 'admin', collectors: { refreshes: { intervalSeconds: 5 } } });
    expect(tenant.capSharePercent).toBe(50);
    // Every family with its ceiling; no endpoint called yet.
    expect(tenant.apiBudget.find((b) => b.key === 'powerbi')).toEqual({
      key: 'powerbi', family: 'powerbi', endpoint: null, callsLastHour: 0, cap: HOURLY_CAPS.powerbi, documentedCap: null, loweredUntil: null, lastThrottledAt: null,
    });
    expect(tenant.apiBudget.some((b) => b.endpoint !== null)).toBe(false);

    expect((await updateTenant(h.ctx, orgId, tenant.id, { capSharePercent: 25 })).capSharePercent).toBe(25);
    const runner = h.scheduler({ collectors: [refreshesCollector] });
    for (let i = 0; i < 36; i++) {
      h.clock.advance(5_000);
      await runner.pass();
    }
    expect((await schedule(h, tenant.id, 'refreshes')).last_error).toBeNull();
    // 180 s at 90 % of 25 % of 200/h: one page per 80 s — three at most, not 36.
    const pages = sim.countCalls(REFRESHABLES);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(pages).toBeLessThanOrEqual(Math.ceil(180 / (3_600 / (sharedCap(200, 25) * ADMIN_SHARE))) + 1);
    expect(await budgetRow(orgId, tenant.id, REFRESHABLES_KEY)).toEqual({
      key: REFRESHABLES_KEY, family: 'powerbi-admin', endpoint: 'refreshables', callsLastHour: pages, cap: 50, documentedCap: 200, loweredUntil: null, lastThrottledAt: null,
    });

    // The counter itself: 50 calls an hour on this directory's refreshables, then refused (another tool may have the rest).
    const now = h.clock.now();
    for (let i = pages; i < 50; i++) await takeKey(h.ctx.db, sim.tenantId, REFRESHABLES_KEY, 'powerbi-admin', sharedCap(200, 25), now);
    const refused = await takeKey(h.ctx.db, sim.tenantId, REFRESHABLES_KEY, 'powerbi-admin', sharedCap(200, 25), now).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BudgetExhaustedError);
    expect((refused as BudgetExhaustedError).endpoint).toBe(REFRESHABLES_KEY);
    // A run now reads no page: nothing reaches the platform, and the models it could not read are reported as left.
    h.clock.advance(120_000);
    await runner.pass();
    expect(sim.countCalls(REFRESHABLES)).toBe(pages);
    const row = await schedule(h, tenant.id, 'refreshes');
    expect(row.last_error).toBeNull();
    expect(row.last_deferred).toBeGreaterThan(0);
    expect((await budgetRow(orgId, tenant.id, REFRESHABLES_KEY))?.callsLastHour).toBe(50);
    expect(sim.violations).toEqual([]);
  });

  it('a 429 on an admin endpoint is not retried and lowers the pace there for the hour; a second instance sees it', async () => {
    const sim = await h.sim({ seed: 262, sizes: { capacities: 1, workspaces: 3, gateways: 0 }, now: () => h.clock.now().getTime() });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { mode: 'admin', collectors: { refreshes: { intervalSeconds: 300 } } });
    const a = h.scheduler({ collectors: [refreshesCollector], workerId: 'instance-a' });
    const b = h.scheduler({ collectors: [refreshesCollector], workerId: 'instance-b' });
    h.clock.advance(300_000);
    await a.pass();
    expect(sim.countCalls(REFRESHABLES)).toBe(1);
    const models = (await schedule(h, tenant.id, 'refreshes')).last_polled as number;
    expect(models).toBeGreaterThan(0);

    // Another tool spent the tenant's cap: the platform answers 429, come back in an hour.
    sim.control.throttle({ family: 'powerbi-admin', count: 1, retryAfterSeconds: 3_600 });
    h.clock.advance(300_000);
    const throttledAt = h.clock.now();
    await a.pass();
    expect(sim.countCalls(REFRESHABLES)).toBe(2); // the 429, and no retry into it
    let row = await schedule(h, tenant.id, 'refreshes');
    expect(row.last_throttled_calls).toBe(1);
    expect(row.last_error).toBeNull(); // handled as behind: the models wait
    expect(row.last_deferred).toBe(models);
    const until = new Date(throttledAt.getTime() + 3_600_000).toISOString();
    // Two calls counted in the hour: the cap there is now half of that.
    expect(await budgetRow(orgId, tenant.id, REFRESHABLES_KEY)).toMatchObject({ callsLastHour: 2, cap: 1, documentedCap: 200, loweredUntil: until, lastThrottledAt: throttledAt.toISOString() });

    // The other instance runs the next turns: refused by the lowered cap, it does not call the platform.
    for (let i = 0; i < 3; i++) {
      h.clock.advance(300_000);
      await b.pass();
    }
    expect(sim.countCalls(REFRESHABLES)).toBe(2);
    row = await schedule(h, tenant.id, 'refreshes');
    expect(row.last_deferred).toBe(models);
    expect(row.last_throttled_calls).toBe(0);

    // An hour after the 429 the share holds again: the pages are read.
    h.clock.advance(3_600_000 - 3 * 300_000);
    await b.pass();
    expect(sim.countCalls(REFRESHABLES)).toBe(3);
    expect(await budgetRow(orgId, tenant.id, REFRESHABLES_KEY)).toMatchObject({ cap: 100, loweredUntil: null, lastThrottledAt: throttledAt.toISOString() });
    expect((await schedule(h, tenant.id, 'refreshes')).last_deferred).toBe(0);
    expect(sim.violations).toEqual([]);
  });

  it('the data sources at a 5-second interval: listing and checks stay inside one paced budget', async () => {
    const sim = await h.sim({ seed: 263, sizes: { capacities: 1, workspaces: 1, gateways: 60, membersPerGateway: 1, cloudConnections: 0 }, now: () => h.clock.now().getTime() });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { datasources: { intervalSeconds: 5 } } });
    const runner = h.scheduler({ collectors: [datasourcesCollector] });
    const count = () => sim.countCalls({ family: 'powerbi' }) + sim.countCalls({ family: 'fabric' });
    const perHour = Math.min(HOURLY_CAPS.powerbi, HOURLY_CAPS.fabric) * DATASOURCES_SHARE;
    // 20 minutes of runs every 5 s.
    for (let i = 0; i < 240; i++) {
      h.clock.advance(5_000);
      await runner.pass();
    }
    expect((await schedule(h, tenant.id, 'datasources')).last_error).toBeNull();
    // 60 gateways: a listing costs 62 calls; the 20 minutes' share is 240 calls, plus at most one listing still being paid back.
    expect(count()).toBeLessThanOrEqual((perHour * 1_200) / 3_600 + 62 + 1);
    // Listings take at most half of the share: read again after 62 calls at 360/h (10.3 min), not every 5 minutes.
    expect(sim.countCalls({ operationId: 'Gateways_GetGateways' })).toBe(2);
    expect(sim.countCalls({ operationId: 'Gateways_GetDatasourceStatus' })).toBeGreaterThan(100);
    expect(sim.violations).toEqual([]);
  });
});

describe('share of the per-tenant caps through the admin API and /metrics', () => {
  let t: TestApp;
  let sim: TenantSim;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { destinationAllowlist: ['127.0.0.1'] } });
    sim = await startSim({ seed: 264, sizes: { capacities: 1, workspaces: 1 } });
    registerMonitoringMetrics(t.ctx);
  });
  afterAll(async () => {
    await sim.stop();
    await t.close();
  });

  it('capSharePercent is a whole percent from 1 to 100; the view and /metrics show calls per hour against each cap', async () => {
    const orgId = await insertOrg(t.ctx);
    const body = {
      name: 'Large',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
    };
    for (const bad of [0, 101, 2.5, '50']) {
      const res = await t.admin('POST', `/orgs/${orgId}/tenants`, { ...body, capSharePercent: bad });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('capSharePercent');
    }
    const created = await t.admin('POST', `/orgs/${orgId}/tenants`, body);
    expect(created.statusCode).toBe(201);
    const tenant = created.json();
    expect(tenant.capSharePercent).toBe(50);
    const patched = await t.admin('PATCH', `/orgs/${orgId}/tenants/${tenant.id}`, { capSharePercent: 30 });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().capSharePercent).toBe(30);
    expect((await t.admin('PATCH', `/orgs/${orgId}/tenants/${tenant.id}`, { capSharePercent: 0 })).statusCode).toBe(400);

    // Two admin groups calls counted for this directory (by any instance): 30 % of 50/h is 15.
    for (let i = 0; i < 2; i++) await takeKey(t.ctx.db, sim.tenantId, 'powerbi-admin:groups', 'powerbi-admin', sharedCap(50, 30), t.ctx.clock.now());
    await takeCall(t.ctx.db, sim.tenantId, 'powerbi-admin', t.ctx.clock.now());
    const view = (await t.admin('GET', `/orgs/${orgId}/tenants/${tenant.id}`)).json();
    expect(view.apiBudget).toContainEqual({
      key: 'powerbi-admin:groups', family: 'powerbi-admin', endpoint: 'groups', callsLastHour: 2, cap: 15, documentedCap: 50, loweredUntil: null, lastThrottledAt: null,
    });
    expect(view.apiBudget).toContainEqual(expect.objectContaining({ key: 'powerbi-admin', callsLastHour: 1, cap: HOURLY_CAPS['powerbi-admin'], documentedCap: null }));

    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const labels = `org="${orgId}",tenant="${tenant.id}",family="powerbi-admin"`;
    expect(metrics).toContain(`vigia_tenant_api_budget_calls_last_hour{${labels},endpoint="groups"} 2`);
    expect(metrics).toContain(`vigia_tenant_api_budget_cap{${labels},endpoint="groups"} 15`);
    expect(metrics).toContain(`vigia_tenant_api_budget_calls_last_hour{${labels},endpoint=""} 1`);
    expect(metrics).toContain(`vigia_tenant_api_budget_cap{${labels},endpoint=""} ${HOURLY_CAPS['powerbi-admin']}`);
  });
});

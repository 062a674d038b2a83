/**
 * The tenant routes that talk to the platform: the check (each missing piece with its fix in
 * pt-BR and English), run-now, each collector's state in the tenant resource, and the /metrics
 * gauges — against the tenant simulator, with no credential in any answer or log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { HOURLY_CAPS } from '../../src/monitoring/platform/budget.js';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import { registerMonitoringMetrics } from '../../src/monitoring/metrics.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { insertOrg } from './support.js';

describe('tenant routes against the simulator', () => {
  let t: TestApp;
  let sim: TenantSim;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
    sim = await startSim({ seed: 41, sizes: { capacities: 2, workspaces: 4 } });
  });
  afterAll(async () => {
    await sim.stop();
    await t.close();
  });

  const connect = async (orgId: string, over: Record<string, unknown> = {}) => {
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Simulated',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
      ...over,
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  };

  it('check: everything present answers ok; each missing piece names its fix in pt-BR and English', async () => {
    const orgId = await insertOrg(t.ctx);
    const scope = `/subscriptions/${sim.state.settings.subscriptionId}`;
    const tenant = await connect(orgId, { costScopes: [scope] });
    const good = await t.admin('POST', `/orgs/${orgId}/tenants/${tenant.id}/check`);
    expect(good.statusCode).toBe(200);
    expect(good.json().checks.filter((c: { ok: boolean }) => !c.ok)).toEqual([]);
    expect(good.json().ok).toBe(true);
    expect(good.json().checks.map((c: { id: string; ok: boolean }) => [c.id, c.ok])).toEqual([
      ['token.powerbi', true],
      ['token.fabric', true],
      ['token.arm', true],
      ['admin.fabric', true],
      ['admin.activity', true],
      ['admin.powerbi', true],
      ['cost.read', true],
    ]);

    sim.control.adminApisForbidden({ on: true });
    sim.control.costScopeForbidden({ scope: '*', on: true });
    const bad = (await t.admin('POST', `/orgs/${orgId}/tenants/${tenant.id}/check`)).json();
    sim.control.adminApisForbidden({ on: false });
    sim.control.costScopeForbidden({ scope: '*', on: false });
    expect(bad.ok).toBe(false);
    const admin = bad.checks.find((c: { id: string }) => c.id === 'admin.fabric');
    expect(admin).toMatchObject({ ok: false, detail: expect.stringMatching(/answered 403/) });
    expect(admin.fix.en).toContain('Service principals can access read-only admin APIs');
    expect(admin.fix['pt-BR']).toContain('grupo de segurança');
    const cost = bad.checks.find((c: { id: string }) => c.id === 'cost.read');
    expect(cost).toMatchObject({ ok: false, scope });
    expect(cost.fix.en).toContain('Cost Management Reader');
    expect(cost.fix['pt-BR']).toContain(scope);

    sim.control.refuseTokens({ on: true, kind: 'invalid_client' });
    const refused = (await t.admin('POST', `/orgs/${orgId}/tenants/${tenant.id}/check`)).json();
    sim.control.refuseTokens({ on: false });
    expect(refused.checks[0]).toMatchObject({
      id: 'token.powerbi',
      ok: false,
      cause: 'expired_secret',
      detail: 'the token endpoint refused the credentials: the client secret has expired (AADSTS7000222)',
    });
    expect(refused.checks[0].fix['pt-BR']).toContain('segredo do cliente expirou');
    for (const text of [good.body, JSON.stringify(bad), JSON.stringify(refused)]) expect(text).not.toContain(sim.clientSecret);
    expect(t.ctx.logs.text).not.toContain(sim.clientSecret);
    expect(sim.violations).toEqual([]);
  });

  it('check in member mode: membership of each listed workspace', async () => {
    const orgId = await insertOrg(t.ctx);
    const [member, outsider] = sim.state.workspaces as [(typeof sim.state.workspaces)[0], (typeof sim.state.workspaces)[0]];
    sim.control.workspaceMembership({ workspaceId: outsider.id, member: false });
    const tenant = await connect(orgId, { mode: 'member', workspaces: [member.id, outsider.id] });
    const res = (await t.admin('POST', `/orgs/${orgId}/tenants/${tenant.id}/check`)).json();
    const ws = res.checks.filter((c: { id: string }) => c.id === 'workspace.membership');
    expect(ws.map((c: { workspaceId: string; ok: boolean }) => [c.workspaceId, c.ok])).toEqual([
      [member.id.toLowerCase(), true],
      [outsider.id.toLowerCase(), false],
    ]);
    expect(ws[1].fix.en).toContain(outsider.id.toLowerCase());
    expect(res.ok).toBe(false);
    // The activity log is an admin API: said with the fix, without failing the check by itself.
    const activity = res.checks.find((c: { id: string }) => c.id === 'activity.log');
    expect(activity).toMatchObject({ ok: false, advisory: true });
    expect(activity.fix.en).toContain('"admin" mode');
    expect(activity.fix['pt-BR']).toContain('modo "admin"');
    expect(res.fixes.map((f: { items: string[] }) => f.items)).toContainEqual(['activity.log']);
    sim.control.workspaceMembership({ workspaceId: outsider.id, member: true });
    const fine = (await t.admin('POST', `/orgs/${orgId}/tenants/${tenant.id}/check`)).json();
    expect(fine.ok).toBe(true);
  });

  it('run-now makes the collector due; the tenant resource and /metrics show the run', async () => {
    const orgId = await insertOrg(t.ctx);
    await t.ctx.db.query('UPDATE collector_schedules SET enabled = false');
    const tenant = await connect(orgId, { collectors: { capacity: { intervalSeconds: 300 }, inventory: { enabled: false } } });
    const runner = new CollectorScheduler(t.ctx, { collectors: [capacityCollector], pollMs: 60_000 });
    try {
      expect(await runner.pass()).toBe(1);
      clock.advance(10_000);
      expect(await runner.pass()).toBe(0); // not due for 300 s
      const run = await t.admin('POST', `/orgs/${orgId}/tenants/${tenant.id}/collectors/capacity/run`);
      expect(run.statusCode).toBe(202);
      expect(run.json()).toEqual({ nextRunAt: clock.now().toISOString() });
      expect(await runner.pass()).toBe(1);
    } finally {
      await runner.stop();
    }
    expect((await t.admin('POST', `/orgs/${orgId}/tenants/${tenant.id}/collectors/inventory/run`)).statusCode).toBe(409);
    // refreshes is implemented now (and enabled by default): a run can be asked for.
    expect((await t.admin('POST', `/orgs/${orgId}/tenants/${tenant.id}/collectors/refreshes/run`)).statusCode).toBe(202);
    expect((await t.admin('POST', `/orgs/${orgId}/tenants/${tenant.id}/collectors/nope/run`)).statusCode).toBe(404);
    expect((await t.admin('POST', `/orgs/${await insertOrg(t.ctx)}/tenants/${tenant.id}/collectors/capacity/run`)).statusCode).toBe(404);

    const view = (await t.admin('GET', `/orgs/${orgId}/tenants/${tenant.id}`)).json();
    const capacity = view.collectors.find((c: { name: string }) => c.name === 'capacity');
    expect(capacity).toMatchObject({
      enabled: true,
      intervalSeconds: 300,
      lastRunAt: clock.now().toISOString(),
      lastSuccessAt: clock.now().toISOString(),
      nextRunAt: new Date(clock.now().getTime() + 300_000).toISOString(),
      lastCalls: 2,
      lastThrottledCalls: 0,
      lastError: null,
      running: false,
    });
    expect(capacity.lastDurationMs).toBeGreaterThanOrEqual(0);

    registerMonitoringMetrics(t.ctx);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain(`vigia_collector_last_calls{org="${orgId}",tenant="${tenant.id}",collector="capacity"} 2`);
    expect(metrics.body).toContain(`vigia_collector_last_run_failed{org="${orgId}",tenant="${tenant.id}",collector="capacity"} 0`);
    expect(metrics.body).toMatch(new RegExp(`vigia_tenant_api_calls_last_hour\\{directory="${sim.tenantId}",family="fabric"\\} \\d+`));
    expect(metrics.body).toContain(`vigia_tenant_api_hourly_cap{family="fabric-admin"} ${HOURLY_CAPS['fabric-admin']}`);
    expect(metrics.body).not.toContain(sim.clientSecret);
  });

  it('deleting a connection resolves the incidents its collectors opened', async () => {
    const orgId = await insertOrg(t.ctx);
    await t.ctx.db.query('UPDATE collector_schedules SET enabled = false');
    const tenant = await connect(orgId, { collectors: { inventory: { enabled: false }, gateway: { enabled: false }, costs: { enabled: false } } });
    const target = sim.state.capacities[0]!;
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: c === target ? 'Suspended' : 'Active' });
    const runner = new CollectorScheduler(t.ctx, { collectors: [capacityCollector], pollMs: 60_000 });
    try {
      expect(await runner.pass()).toBe(1);
    } finally {
      await runner.stop();
      sim.control.capacityState({ capacityId: target.id, state: 'Active' });
    }
    const open = async () =>
      (await t.ctx.db.query(`SELECT source_id, status FROM alerts WHERE org_id = $1 AND source_type = 'Capacity'`, [orgId])).rows;
    expect(await open()).toEqual([{ source_id: target.id.toLowerCase(), status: 'open' }]);
    expect((await t.admin('DELETE', `/orgs/${orgId}/tenants/${tenant.id}`)).statusCode).toBe(204);
    expect(await open()).toEqual([{ source_id: target.id.toLowerCase(), status: 'resolved' }]);
    expect((await t.admin('DELETE', `/orgs/${orgId}/tenants/${tenant.id}`)).statusCode).toBe(404);
  });
});

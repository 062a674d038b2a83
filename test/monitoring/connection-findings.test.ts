/**
 * Findings at connection (src/monitoring/engine/first-pass.ts): connecting a tenant whose platform is
 * already broken opens those problems silenced "found at connection" — no delivery for them,
 * not even when a silence ends — and one TenantConnected incident says how many were found (one
 * delivery). Problems that start later, and a finding that recovers and fails again, page as
 * usual; `pageFindingsAtConnection` pages the findings themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseDue } from '../../src/alerts/release.js';
import { ManualClock } from '../../src/clock.js';
import { createDestination } from '../../src/delivery/destination-service.js';
import { COLLECTOR_NAMES } from '../../src/monitoring/connection/collector-names.js';
import { gatewayCollector } from '../../src/monitoring/sources/gateway/gateway.js';
import { refreshesCollector } from '../../src/monitoring/sources/refreshes/refreshes.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import type { SimItem, SimWorkspace, TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { insertOrg } from './support.js';

const INTERVAL = 300;

/** The semantic model of each workspace, with a plain history: one completed refresh, no gateway. */
function models(sim: TenantSim): { w: SimWorkspace; m: SimItem }[] {
  return sim.state.workspaces.map((w) => {
    const m = w.items.find((i) => i.type === 'SemanticModel')!;
    m.refreshes = [{ requestId: `seed-${m.id}`, refreshType: 'Scheduled', startTime: '2026-06-14T06:00:00.000Z', endTime: '2026-06-14T06:05:00.000Z', status: 'Completed' }];
    delete m.gatewayDatasourceId;
    return { w, m };
  });
}

interface AlertItem {
  id: string;
  sourceType: string;
  sourceId: string;
  notificationKind: string;
  severity: string;
  status: string;
  message: string;
  silenced: boolean;
  silenceReason: string | null;
  suppressed: boolean;
}

describe('findings at connection', () => {
  let t: TestApp;
  let clock: ManualClock;
  const sims: TenantSim[] = [];
  const schedulers: CollectorScheduler[] = [];
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
  });
  afterAll(async () => {
    await Promise.all(schedulers.map((s) => s.stop()));
    await Promise.all(sims.map((s) => s.stop()));
    await t.close();
  });

  /** A simulator with one gateway already offline and one model whose last refresh failed. */
  const brokenSim = async (seed: number) => {
    const sim = await startSim({ seed, sizes: { capacities: 1, workspaces: 2, gateways: 1, membersPerGateway: 1 } });
    sims.push(sim);
    const [a, b] = models(sim) as [{ w: SimWorkspace; m: SimItem }, { w: SimWorkspace; m: SimItem }];
    sim.control.gatewayOffline({ gatewayId: sim.state.gateways[0]!.id, offline: true });
    sim.control.refreshResult({ datasetId: a.m.id, status: 'Failed', errorCode: 'ModelRefreshFailed_CredentialsNotSpecified' });
    return { sim, a, b };
  };

  /** Connects through the admin API, as a user does: only the gateway and refreshes collectors. */
  const connect = async (sim: TenantSim, over: Record<string, unknown> = {}) => {
    const orgId = await insertOrg(t.ctx);
    await createDestination(t.ctx, orgId, { name: 'Hook', kind: 'webhook', url: 'https://hooks.example.com/vigia' });
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((n) => [n, n === 'gateway' || n === 'refreshes' ? { enabled: true, intervalSeconds: INTERVAL } : { enabled: false }]));
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Contoso',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'member',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
      collectors,
      ...over,
    });
    expect(res.statusCode).toBe(201);
    const scheduler = new CollectorScheduler(t.ctx, { pollMs: 60_000, stopTimeoutMs: 2_000, collectors: [gatewayCollector, refreshesCollector] });
    schedulers.push(scheduler);
    const pass = async () => {
      await scheduler.pass();
      clock.advance(INTERVAL * 1000);
    };
    return { orgId, tenant: res.json() as { id: string; pageFindingsAtConnection: boolean }, pass };
  };

  const tenantAlerts = async (orgId: string, tenantId: string): Promise<AlertItem[]> => {
    const res = await t.admin('GET', `/orgs/${orgId}/alerts?tenant=${tenantId}&pageSize=100`);
    expect(res.statusCode).toBe(200);
    return (res.json().value as AlertItem[]).sort((x, y) => (x.id < y.id ? -1 : 1));
  };
  const deliveriesOf = async (alertId: string) =>
    (await t.ctx.db.query<{ event: string }>('SELECT event FROM deliveries WHERE alert_id = $1 ORDER BY created_at, id', [alertId])).rows.map((r) => r.event);
  const allDeliveries = async (orgId: string) =>
    (
      await t.ctx.db.query<{ kind: string; event: string }>(
        'SELECT a.notification_kind AS kind, d.event FROM deliveries d JOIN alerts a ON a.id = d.alert_id WHERE a.org_id = $1 ORDER BY d.created_at, d.id',
        [orgId],
      )
    ).rows.map((r) => `${r.kind} ${r.event}`);

  it('opens what is already broken silenced "found at connection", delivers one TenantConnected, never releases the findings; later problems and a recurrence page', async () => {
    const { sim, a, b } = await brokenSim(291);
    const gw = sim.state.gateways[0]!;
    const { orgId, tenant, pass } = await connect(sim);
    expect(tenant.pageFindingsAtConnection).toBe(false);
    await pass();

    const found = await tenantAlerts(orgId, tenant.id);
    const findings = found.filter((x) => x.sourceType !== 'Tenant');
    const offline = findings.find((x) => x.notificationKind === 'GatewayOffline' && x.sourceId === gw.id.toLowerCase())!;
    const failed = findings.find((x) => x.notificationKind === 'RefreshFailed')!;
    expect(offline).toMatchObject({ status: 'open', silenced: true, silenceReason: 'found at connection', suppressed: true });
    expect(failed).toMatchObject({ sourceId: a.m.id.toLowerCase(), status: 'open', silenced: true, silenceReason: 'found at connection', suppressed: true });
    for (const f of findings) expect(f).toMatchObject({ status: 'open', silenceReason: 'found at connection' });
    const connected = found.filter((x) => x.sourceType === 'Tenant');
    expect(connected).toHaveLength(1);
    expect(connected[0]).toMatchObject({ sourceId: tenant.id, notificationKind: 'TenantConnected', severity: 'info', status: 'open', silenced: false, silenceReason: null });
    expect(connected[0]!.message).toContain(`encontrou ${findings.length} problemas já presentes`);
    expect(connected[0]!.message).toContain(`/alerts?tenant=${tenant.id}`);
    expect(connected[0]!.message).toContain('found at connection');
    // One delivery: the summary, none for the findings.
    expect(await allDeliveries(orgId)).toEqual(['TenantConnected alert.opened']);

    // A silence that matches them and ends, and the background release pass: they stay quiet.
    const sil = await t.admin('POST', `/orgs/${orgId}/silences`, { matchers: { sourceType: 'Gateway' }, endsAt: new Date(clock.now().getTime() + 60_000).toISOString() });
    expect(sil.statusCode).toBe(201);
    expect((await t.admin('DELETE', `/orgs/${orgId}/silences/${sil.json().id}`)).statusCode).toBe(204);
    await t.ctx.db.tx((q) => releaseDue(q, t.ctx.config.baseUrl, clock.now()));
    expect(await allDeliveries(orgId)).toEqual(['TenantConnected alert.opened']);
    expect((await tenantAlerts(orgId, tenant.id)).find((x) => x.id === offline.id)).toMatchObject({ status: 'open', suppressed: true });

    // (b) A problem that starts after the first pass pages as usual.
    sim.control.refreshResult({ datasetId: b.m.id, status: 'Failed', errorCode: 'ModelRefreshFailed_CredentialsNotSpecified' });
    await pass();
    const later = (await tenantAlerts(orgId, tenant.id)).find((x) => x.notificationKind === 'RefreshFailed' && x.sourceId === b.m.id.toLowerCase())!;
    expect(later).toMatchObject({ status: 'open', silenced: false, silenceReason: null, suppressed: false });
    expect(await deliveriesOf(later.id)).toEqual(['alert.opened']);

    // (d) The gateway found offline comes back (quietly: it never paged) and later fails again: that pages.
    sim.control.gatewayOffline({ gatewayId: gw.id, offline: false });
    await pass();
    expect((await tenantAlerts(orgId, tenant.id)).find((x) => x.id === offline.id)).toMatchObject({ status: 'resolved' });
    expect(await deliveriesOf(offline.id)).toEqual([]);
    sim.control.gatewayOffline({ gatewayId: gw.id, offline: true });
    await pass();
    const again = (await tenantAlerts(orgId, tenant.id)).filter((x) => x.notificationKind === 'GatewayOffline' && x.sourceId === gw.id.toLowerCase() && x.status === 'open');
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ silenced: false, silenceReason: null, suppressed: false });
    expect(again[0]!.id).not.toBe(offline.id);
    expect(await deliveriesOf(again[0]!.id)).toEqual(['alert.opened']);
    // Still one TenantConnected, delivered once.
    expect((await allDeliveries(orgId)).filter((d) => d.startsWith('TenantConnected'))).toEqual(['TenantConnected alert.opened']);

    // Deleting the connection resolves everything, the summary too; the quiet findings stay quiet.
    expect((await t.admin('DELETE', `/orgs/${orgId}/tenants/${tenant.id}`)).statusCode).toBe(204);
    expect((await tenantAlerts(orgId, tenant.id)).filter((x) => x.status === 'open')).toEqual([]);
    expect(await deliveriesOf(failed.id)).toEqual([]);
    expect((await allDeliveries(orgId)).filter((d) => d.startsWith('TenantConnected'))).toEqual(['TenantConnected alert.opened', 'TenantConnected alert.recovered']);
    expect(sim.violations).toEqual([]);
  });

  it('pageFindingsAtConnection: the findings are delivered like any failure; PATCH changes the setting', async () => {
    const { sim, a } = await brokenSim(292);
    const { orgId, tenant, pass } = await connect(sim, { pageFindingsAtConnection: true });
    expect(tenant.pageFindingsAtConnection).toBe(true);
    await pass();
    const found = await tenantAlerts(orgId, tenant.id);
    const failed = found.find((x) => x.notificationKind === 'RefreshFailed')!;
    const offline = found.find((x) => x.notificationKind === 'GatewayOffline')!;
    expect(failed).toMatchObject({ sourceId: a.m.id.toLowerCase(), silenced: false, silenceReason: null, suppressed: false });
    expect(offline).toMatchObject({ silenced: false, silenceReason: null, suppressed: false });
    expect(await deliveriesOf(failed.id)).toEqual(['alert.opened']);
    expect(await deliveriesOf(offline.id)).toEqual(['alert.opened']);
    const connected = found.find((x) => x.notificationKind === 'TenantConnected')!;
    expect(connected.message).toContain('Foram entregues normalmente');

    const off = await t.admin('PATCH', `/orgs/${orgId}/tenants/${tenant.id}`, { pageFindingsAtConnection: false });
    expect(off.statusCode).toBe(200);
    expect(off.json().pageFindingsAtConnection).toBe(false);
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${tenant.id}`)).json().pageFindingsAtConnection).toBe(false);
    const bad = await t.admin('PATCH', `/orgs/${orgId}/tenants/${tenant.id}`, { pageFindingsAtConnection: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect(sim.violations).toEqual([]);
  });

  it('two instances finishing first passes at the same moment: one TenantConnected counting both', async () => {
    const { sim } = await brokenSim(293);
    const { orgId, tenant } = await connect(sim);
    const gateways = new CollectorScheduler(t.ctx, { pollMs: 60_000, stopTimeoutMs: 2_000, collectors: [gatewayCollector] });
    const refreshes = new CollectorScheduler(t.ctx, { pollMs: 60_000, stopTimeoutMs: 2_000, collectors: [refreshesCollector] });
    schedulers.push(gateways, refreshes);
    await Promise.all([gateways.pass(), refreshes.pass()]);
    const found = await tenantAlerts(orgId, tenant.id);
    const findings = found.filter((x) => x.sourceType !== 'Tenant');
    expect(findings.map((x) => x.notificationKind)).toEqual(expect.arrayContaining(['GatewayOffline', 'RefreshFailed']));
    const connected = found.filter((x) => x.notificationKind === 'TenantConnected');
    expect(connected).toHaveLength(1);
    expect(connected[0]!.message).toContain(`encontrou ${findings.length} problemas`);
    expect(await allDeliveries(orgId)).toEqual(['TenantConnected alert.opened']);
    expect(sim.violations).toEqual([]);
  });

  it("the issue's tenant: the default simulator with every collector, 17 findings silenced, one delivery", async () => {
    const sim = await startSim({ now: () => clock.now().getTime() });
    sims.push(sim);
    const orgId = await insertOrg(t.ctx);
    await createDestination(t.ctx, orgId, { name: 'Hook', kind: 'webhook', url: 'https://hooks.example.com/vigia' });
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Sim',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
    });
    expect(res.statusCode).toBe(201);
    // Every collector this version runs, including one with nothing configured (utilization): its successful run ends its first pass too.
    const scheduler = new CollectorScheduler(t.ctx, { pollMs: 60_000, stopTimeoutMs: 2_000, maxConcurrent: 20 });
    schedulers.push(scheduler);
    for (let i = 0; i < 3; i++) {
      await scheduler.pass();
      clock.advance(5 * 60_000);
    }
    const { rows } = await t.ctx.db.query<{ collector: string; first_pass_done: boolean }>(
      'SELECT collector, first_pass_done FROM collector_schedules WHERE tenant_ref = $1 AND enabled ORDER BY collector',
      [res.json().id],
    );
    expect(rows.filter((r) => !r.first_pass_done)).toEqual([]);
    const found = await tenantAlerts(orgId, res.json().id);
    const findings = found.filter((x) => x.sourceType !== 'Tenant');
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) expect(f).toMatchObject({ status: 'open', silenced: true, silenceReason: 'found at connection' });
    expect(found.filter((x) => x.sourceType === 'Tenant').map((x) => x.notificationKind)).toEqual(['TenantConnected']);
    expect(found.find((x) => x.notificationKind === 'TenantConnected')!.message).toContain(`encontrou ${findings.length} problemas`);
    expect(await allDeliveries(orgId)).toEqual(['TenantConnected alert.opened']);
    expect(sim.violations).toEqual([]);
  });
});

/**
 * The refreshes collector against the tenant simulator: a failed refresh opens Dataset /
 * RefreshFailed with the platform's code and a Portuguese message, further failures reoccur, a
 * completed refresh recovers; nothing is counted twice across a restart with a 60-entry history;
 * a refresh running across two runs is counted once; admin mode reads the refreshables list; a
 * failure behind an offline gateway is correlated (no delivery) and released when it outlives
 * the gateway's incident; the lineage is saved.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDestination } from '../../src/delivery/destination-service.js';
import { HOURLY_CAPS, sharedCap } from '../../src/monitoring/platform/budget.js';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { gatewayCollector } from '../../src/monitoring/sources/gateway/gateway.js';
import { ADMIN_SHARE, POWERBI_SHARE, refreshesCollector } from '../../src/monitoring/sources/refreshes/refreshes.js';
import { runBudget } from '../../src/monitoring/platform/run-budget.js';
import { readLineage, saveDatasources, savePlacements } from '../../src/monitoring/lineage/lineage.js';
import { getTenant } from '../../src/monitoring/tenants.js';
import type { ApiFamily, SimItem, SimWorkspace, TenantSim } from '../../src/tenant-sim/index.js';
import { alerts, createHarness, schedule, type Harness } from './harness.js';

const INTERVAL = 300;

/** The semantic model of each workspace, with a plain history: one completed refresh. */
function models(sim: TenantSim): { w: SimWorkspace; m: SimItem }[] {
  return sim.state.workspaces.map((w) => {
    const m = w.items.find((i) => i.type === 'SemanticModel')!;
    m.refreshes = [{ requestId: `seed-${m.id}`, refreshType: 'Scheduled', startTime: '2026-06-14T06:00:00.000Z', endTime: '2026-06-14T06:05:00.000Z', status: 'Completed' }];
    return { w, m };
  });
}

/** The most calls of a family the simulator saw in any 60-minute window. */
function busiestHour(sim: TenantSim, family: ApiFamily): number {
  const times = sim.requests.filter((r) => r.family === family).map((r) => r.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= 3_600_000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

async function datasetAlerts(h: Harness, orgId: string) {
  const { rows } = await h.ctx.db.query(
    `SELECT id, source_id, source_name, notification_kind, severity, status, failure_count, capacity_name, workspace_name, message, correlated, suppressed, released_at
       FROM alerts WHERE org_id = $1 AND source_type = 'Dataset' ORDER BY created_at, id`,
    [orgId],
  );
  return rows;
}

describe('collector: refreshes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  const runOnce = async (runner: ReturnType<Harness['scheduler']>, tenantRef: string) => {
    h.clock.advance(INTERVAL * 1000);
    await runner.pass();
    expect((await schedule(h, tenantRef, 'refreshes')).last_error).toBeNull();
  };

  it('member mode: opens with the code and a Portuguese message, counts reoccurrences, recovers; old failures are not replayed; Disabled is no failure', async () => {
    const sim = await h.sim({ seed: 181, sizes: { capacities: 1, workspaces: 3, gateways: 0 } });
    const orgId = await h.org();
    const [a, b, c] = models(sim) as [{ w: SimWorkspace; m: SimItem }, { w: SimWorkspace; m: SimItem }, { w: SimWorkspace; m: SimItem }];
    // Model a: old failures, then a success — first sight counts only the newest (completed).
    for (let i = 0; i < 5; i++) sim.control.refreshResult({ datasetId: a.m.id, status: 'Failed', errorCode: 'Timeout' });
    sim.control.refreshResult({ datasetId: a.m.id, status: 'Completed' });
    // Model b: its newest result is a failure — open at once.
    sim.control.refreshResult({ datasetId: b.m.id, status: 'Failed', errorCode: 'DM_GWPipeline_Client_GatewayUnreachable' });
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { refreshes: { intervalSeconds: INTERVAL } } });
    const runner = h.scheduler({ collectors: [refreshesCollector] });
    await runOnce(runner, tenant.id);
    let found = await datasetAlerts(h, orgId);
    expect(found).toMatchObject([
      { source_id: b.m.id.toLowerCase(), source_name: b.m.displayName, notification_kind: 'RefreshFailed', severity: 'error', status: 'open', failure_count: 1, workspace_name: b.w.name },
    ]);
    expect(found[0].message).toContain('gateway de dados local não pôde ser alcançado');
    expect(found[0].message).toContain('Código do erro: DM_GWPipeline_Client_GatewayUnreachable');
    const capacity = sim.state.capacities.find((x) => x.id === b.w.capacityId);
    if (capacity) expect(found[0].capacity_name).toBe(capacity.displayName);

    // a fails (credentials), then twice more: one incident, three occurrences.
    sim.control.refreshResult({ datasetId: a.m.id, status: 'Failed', errorCode: 'ModelRefreshFailed_CredentialsNotSpecified' });
    await runOnce(runner, tenant.id);
    found = await datasetAlerts(h, orgId);
    const ofA = () => found.find((r) => r.source_id === a.m.id.toLowerCase())!;
    expect(ofA()).toMatchObject({ status: 'open', failure_count: 1 });
    expect(ofA().message).toBe(
      `A atualização do modelo semântico ${a.m.displayName} no workspace ${a.w.name} falhou. As credenciais da fonte de dados estão ausentes, inválidas ou expiraram; atualize-as nas configurações do modelo semântico. Código do erro: ModelRefreshFailed_CredentialsNotSpecified.`,
    );
    sim.control.refreshResult({ datasetId: a.m.id, status: 'Failed', errorCode: 'Timeout' });
    sim.control.refreshResult({ datasetId: a.m.id, status: 'Failed', errorCode: 'SomethingNobodyKnows' });
    await runOnce(runner, tenant.id);
    found = await datasetAlerts(h, orgId);
    expect(ofA()).toMatchObject({ status: 'open', failure_count: 3 });
    // Nothing new: nothing counted.
    await runOnce(runner, tenant.id);
    found = await datasetAlerts(h, orgId);
    expect(ofA()).toMatchObject({ status: 'open', failure_count: 3 });

    // A completed refresh recovers; Disabled on c is no failure.
    sim.control.refreshResult({ datasetId: a.m.id, status: 'Completed' });
    sim.control.refreshResult({ datasetId: b.m.id, status: 'Completed' });
    sim.control.refreshResult({ datasetId: c.m.id, status: 'Disabled' });
    await runOnce(runner, tenant.id);
    found = await datasetAlerts(h, orgId);
    expect(found.map((r) => [r.source_id, r.status, r.failure_count])).toEqual([
      [b.m.id.toLowerCase(), 'resolved', 1],
      [a.m.id.toLowerCase(), 'resolved', 3],
    ]);

    // Lineage: placement of each model (workspace, capacity).
    const lineage = await readLineage(h.ctx.db, tenant.id);
    expect(lineage.get(a.m.id.toLowerCase())).toMatchObject({ itemType: 'SemanticModel', workspaceId: a.w.id.toLowerCase(), capacityId: a.w.capacityId?.toLowerCase() ?? null });
    expect(sim.countCalls({ family: 'powerbi-admin' })).toBe(0);
    expect(sim.violations).toEqual([]);
  });

  it('a 60-entry history: nothing counted twice or missed across restarts; a refresh running across two runs counts once', async () => {
    const sim = await h.sim({ seed: 182, sizes: { capacities: 1, workspaces: 1, gateways: 0 } });
    const orgId = await h.org();
    const [{ m }] = models(sim) as [{ w: SimWorkspace; m: SimItem }];
    for (let i = 0; i < 70; i++) sim.control.refreshResult({ datasetId: m.id, status: i % 2 ? 'Failed' : 'Completed' });
    sim.control.refreshResult({ datasetId: m.id, status: 'Completed' });
    expect(m.refreshes).toHaveLength(60);
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { refreshes: { intervalSeconds: INTERVAL } } });
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    expect(await datasetAlerts(h, orgId)).toEqual([]);

    // Five failures with a success between, on a full history; each run is a new scheduler (a restart).
    for (const s of ['Failed', 'Failed', 'Completed', 'Failed', 'Failed', 'Failed'] as const) sim.control.refreshResult({ datasetId: m.id, status: s, errorCode: 'Timeout' });
    expect(m.refreshes).toHaveLength(60);
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    // Both incidents open in one run: order them by status (open first).
    const counts = async () => (await datasetAlerts(h, orgId)).map((r) => [r.status, r.failure_count]).sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    expect(await counts()).toEqual([
      ['open', 3],
      ['resolved', 2],
    ]);
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    expect(await counts()).toEqual([
      ['open', 3],
      ['resolved', 2],
    ]);

    // Running in one run, finished (failed) in the next: one more occurrence, once.
    sim.control.refreshResult({ datasetId: m.id, status: 'Unknown' });
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    expect((await counts())[0]).toEqual(['open', 3]);
    // A later refresh finishes first; the running one then fails: both counted, once each.
    sim.control.refreshResult({ datasetId: m.id, status: 'Failed', errorCode: 'Timeout' });
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    expect((await counts())[0]).toEqual(['open', 4]);
    sim.control.refreshResult({ datasetId: m.id, status: 'Failed', errorCode: 'Timeout', finish: true });
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    expect(await counts()).toEqual([
      ['open', 5],
      ['resolved', 2],
    ]);
    expect(sim.violations).toEqual([]);
  });

  it('admin mode: the refreshables list (lastRefresh) opens and recovers; running is not a result; only listed workspaces', async () => {
    const sim = await h.sim({ seed: 183, sizes: { capacities: 2, workspaces: 6, gateways: 0 } });
    const orgId = await h.org();
    const all = models(sim);
    const onCapacity = all.filter((x) => x.w.capacityId !== null);
    expect(onCapacity.length).toBeGreaterThanOrEqual(3);
    const [a, b, outside] = onCapacity as [(typeof all)[0], (typeof all)[0], (typeof all)[0]];
    const tenant = await h.tenant(orgId, sim, { mode: 'admin', workspaces: onCapacity.filter((x) => x !== outside).map((x) => x.w.id.toLowerCase()), collectors: { refreshes: { intervalSeconds: INTERVAL } } });
    const runner = h.scheduler({ collectors: [refreshesCollector] });
    await runOnce(runner, tenant.id);
    expect(await datasetAlerts(h, orgId)).toEqual([]);

    sim.control.refreshResult({ datasetId: a.m.id, status: 'Failed', errorCode: 'ModelRefreshFailed_OutOfMemory' });
    sim.control.refreshResult({ datasetId: b.m.id, status: 'Unknown' });
    sim.control.refreshResult({ datasetId: outside.m.id, status: 'Failed' });
    await runOnce(runner, tenant.id);
    let found = await datasetAlerts(h, orgId);
    expect(found).toMatchObject([{ source_id: a.m.id.toLowerCase(), status: 'open', failure_count: 1, workspace_name: a.w.name }]);
    expect(found[0].message).toContain('limite de memória');
    expect(found[0].capacity_name).toBe(sim.state.capacities.find((x) => x.id === a.w.capacityId)!.displayName);

    // b's running refresh fails; a completes.
    sim.control.refreshResult({ datasetId: b.m.id, status: 'Failed', errorCode: 'Timeout', finish: true });
    sim.control.refreshResult({ datasetId: a.m.id, status: 'Completed' });
    await runOnce(runner, tenant.id);
    await runOnce(runner, tenant.id);
    found = await datasetAlerts(h, orgId);
    expect(found.map((r) => [r.source_id, r.status, r.failure_count])).toEqual([
      [a.m.id.toLowerCase(), 'resolved', 1],
      [b.m.id.toLowerCase(), 'open', 1],
    ]);
    expect(sim.countCalls({ operationId: 'Admin_GetRefreshables' })).toBe(4);
    expect(sim.countCalls({ operationId: 'Datasets_GetRefreshHistoryInGroup' })).toBe(0);
    expect(sim.violations).toEqual([]);
  });

  it('admin mode: a model the whole list no longer shows is forgotten (its incident recovers); the others keep their remembered state untouched', async () => {
    const sim = await h.sim({ seed: 184, sizes: { capacities: 1, workspaces: 4, gateways: 0 } });
    const orgId = await h.org();
    const onCapacity = models(sim).filter((x) => x.w.capacityId !== null);
    expect(onCapacity.length).toBeGreaterThanOrEqual(3);
    const [gone, kept] = onCapacity as [(typeof onCapacity)[0], (typeof onCapacity)[0]];
    const tenant = await h.tenant(orgId, sim, { mode: 'admin', collectors: { refreshes: { intervalSeconds: INTERVAL } } });
    const runner = h.scheduler({ collectors: [refreshesCollector] });
    await runOnce(runner, tenant.id);
    sim.control.refreshResult({ datasetId: gone.m.id, status: 'Failed', errorCode: 'ModelRefreshFailed_OutOfMemory' });
    await runOnce(runner, tenant.id);
    expect((await datasetAlerts(h, orgId)).map((r) => [r.source_id, r.status])).toEqual([[gone.m.id.toLowerCase(), 'open']]);
    const stateRows = async () =>
      (await h.ctx.db.query<{ key: string; updated_at: Date }>("SELECT key, updated_at FROM collector_state WHERE tenant_ref = $1 AND collector = 'refreshes' AND key LIKE 'model:%' ORDER BY key", [tenant.id])).rows;
    const before = new Map((await stateRows()).map((r) => [r.key, r.updated_at.getTime()]));
    expect(before.has(`model:${gone.m.id.toLowerCase()}`)).toBe(true);

    gone.w.items = gone.w.items.filter((i) => i.id !== gone.m.id);
    await runOnce(runner, tenant.id);
    expect((await datasetAlerts(h, orgId)).map((r) => [r.source_id, r.status])).toEqual([[gone.m.id.toLowerCase(), 'resolved']]);
    const after = await stateRows();
    expect(after.map((r) => r.key)).toEqual([...before.keys()].filter((k) => k !== `model:${gone.m.id.toLowerCase()}`));
    // Nothing new about the others: their rows were not rewritten.
    for (const r of after) expect(r.updated_at.getTime()).toBe(before.get(r.key));
    expect(before.has(`model:${kept.m.id.toLowerCase()}`)).toBe(true);
    expect(sim.violations).toEqual([]);
  });

  it('admin mode at a short interval keeps the refreshables pages within its share of the hourly cap', async () => {
    const sim = await h.sim({ seed: 189, sizes: { capacities: 1, workspaces: 3, gateways: 0 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { mode: 'admin', collectors: { refreshes: { intervalSeconds: 5 } } });
    const runner = h.scheduler({ collectors: [refreshesCollector] });
    for (let i = 0; i < 36; i++) {
      h.clock.advance(5_000);
      await runner.pass();
    }
    expect((await schedule(h, tenant.id, 'refreshes')).last_error).toBeNull();
    // 180 s at one page per 40 s (90 % of Vigia's 50 % share of the endpoint's 200/h): 5 pages, not 36.
    const perPage = 3_600 / (sharedCap(200) * ADMIN_SHARE);
    expect(sim.countCalls({ operationId: 'Admin_GetRefreshables' })).toBeLessThanOrEqual(Math.ceil(180 / perPage) + 1);
    expect(sim.countCalls({ operationId: 'Admin_GetRefreshables' })).toBeGreaterThanOrEqual(3);
  });

  it('member mode at a 5-second interval polls models: the listings are cached between runs, the view shows what each run read', async () => {
    const sim = await h.sim({ seed: 190, sizes: { capacities: 1, workspaces: 3, gateways: 0 } });
    const orgId = await h.org();
    const [{ m }] = models(sim) as [{ w: SimWorkspace; m: SimItem }];
    sim.control.refreshResult({ datasetId: m.id, status: 'Failed', errorCode: 'Timeout' });
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { refreshes: { intervalSeconds: 5 } } });
    const runner = h.scheduler({ collectors: [refreshesCollector] });
    const polled: number[] = [];
    for (let i = 0; i < 12; i++) {
      h.clock.advance(5_000);
      await runner.pass();
      expect((await schedule(h, tenant.id, 'refreshes')).last_error).toBeNull();
      polled.push((await getTenant(h.ctx, orgId, tenant.id)).collectors.find((c) => c.name === 'refreshes')!.lastPolled!);
    }
    // 5 calls a run: the workspace and capacity listings are read once in the minute, not every run.
    expect(sim.countCalls({ operationId: 'Groups_GetGroups' })).toBe(1);
    expect(sim.countCalls({ operationId: 'Capacities_GetCapacities' })).toBe(1);
    expect(sim.countCalls({ operationId: 'Datasets_GetRefreshHistoryInGroup' })).toBeGreaterThanOrEqual(3);
    expect(Math.max(...polled)).toBeGreaterThan(0);
    expect(await datasetAlerts(h, orgId)).toMatchObject([{ source_id: m.id.toLowerCase(), status: 'open' }]);
    // Caught up: nothing due is left, and no CollectorBehind is open (discovery, one workspace a run, may have raised one).
    const view = (await getTenant(h.ctx, orgId, tenant.id)).collectors.find((c) => c.name === 'refreshes')!;
    expect(view.lastDeferred).toBe(0);
    expect((await alerts(h, orgId, 'Tenant')).filter((a) => a.status === 'open')).toEqual([]);
    expect(sim.violations).toEqual([]);
  });

  it('a starved collector says so: three runs that leave due models unread open Tenant / CollectorBehind (info), which recovers when it catches up', async () => {
    const sim = await h.sim({ seed: 191, sizes: { capacities: 1, workspaces: 3, gateways: 0 } });
    const orgId = await h.org();
    models(sim);
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { refreshes: { intervalSeconds: INTERVAL } } });
    // A family cap of 5 Power BI calls an hour: listings only, no model is ever read.
    const starved = h.scheduler({ collectors: [refreshesCollector], caps: { ...HOURLY_CAPS, powerbi: 5 } });
    const view = async () => (await getTenant(h.ctx, orgId, tenant.id)).collectors.find((c) => c.name === 'refreshes')!;
    for (let run = 1; run <= 2; run++) {
      await runOnce(starved, tenant.id);
      expect(await view()).toMatchObject({ lastPolled: 0, lastDeferred: 3, lastError: null });
      expect(await alerts(h, orgId, 'Tenant')).toEqual([]);
    }
    await runOnce(starved, tenant.id);
    expect(await alerts(h, orgId, 'Tenant')).toMatchObject([
      { source_id: tenant.id, notification_kind: 'CollectorBehind', severity: 'info', status: 'open', message: expect.stringContaining('refreshes deixou 3 recurso(s) devido(s) sem ler') },
    ]);
    await runOnce(starved, tenant.id);
    expect((await alerts(h, orgId, 'Tenant')).map((a) => a.failure_count)).toEqual([1]);
    // The budget is back: every model is read and the incident recovers.
    await starved.stop();
    const fed = h.scheduler({ collectors: [refreshesCollector] });
    await runOnce(fed, tenant.id);
    expect(await view()).toMatchObject({ lastPolled: 3, lastDeferred: 0 });
    expect((await alerts(h, orgId, 'Tenant')).map((a) => [a.notification_kind, a.status])).toEqual([['CollectorBehind', 'resolved']]);
    expect(sim.violations).toEqual([]);
  });

  it('admin mode: data sources the principal may not read leave the scanner\'s lineage as it was, and a failure behind its offline gateway is correlated', async () => {
    const sim = await h.sim({ seed: 184, sizes: { capacities: 1, workspaces: 2, gateways: 1, membersPerGateway: 1 } });
    const orgId = await h.org();
    const [{ w, m }] = models(sim) as [{ w: SimWorkspace; m: SimItem }];
    const gw = sim.state.gateways[0]!;
    m.gatewayDatasourceId = gw.datasources[0]!.id;
    // The principal is a tenant admin, not a member of the model's workspace: /datasources answers 401.
    sim.control.workspaceMembership({ workspaceId: w.id, member: false });
    const tenant = await h.tenant(orgId, sim, { mode: 'admin', collectors: { refreshes: { intervalSeconds: INTERVAL }, gateway: { intervalSeconds: INTERVAL } } });
    // What the scanner recorded (the only reader that sees a non-member workspace's data sources).
    await savePlacements(h.ctx.db, tenant.id, [{ itemId: m.id, itemType: 'SemanticModel', itemName: m.displayName, workspaceId: w.id, capacityId: w.capacityId }], h.clock.now());
    await saveDatasources(h.ctx.db, tenant.id, m.id, [gw.id], [gw.datasources[0]!.id], h.clock.now());
    const gateways = h.scheduler({ collectors: [gatewayCollector] });
    const refreshes = h.scheduler({ collectors: [refreshesCollector] });
    const both = async () => {
      h.clock.advance(INTERVAL * 1000);
      await gateways.pass();
      await refreshes.pass();
      expect((await schedule(h, tenant.id, 'refreshes')).last_error).toBeNull();
    };
    await both();
    expect(sim.countCalls({ path: /\/datasources$/, status: 401 })).toBeGreaterThan(0);
    expect((await readLineage(h.ctx.db, tenant.id)).get(m.id.toLowerCase())).toMatchObject({ gatewayIds: [gw.id.toLowerCase()] });

    sim.control.gatewayOffline({ gatewayId: gw.id, offline: true });
    sim.control.refreshResult({ datasetId: m.id, status: 'Failed', errorCode: 'DM_GWPipeline_Client_GatewayUnreachable' });
    await both();
    await both();
    expect((await alerts(h, orgId, 'Gateway')).filter((r) => r.notification_kind === 'GatewayOffline')).toEqual([expect.objectContaining({ status: 'open' })]);
    expect((await datasetAlerts(h, orgId)).find((r) => r.source_id === m.id.toLowerCase())).toMatchObject({ status: 'open', correlated: true, suppressed: true });
    expect((await readLineage(h.ctx.db, tenant.id)).get(m.id.toLowerCase())).toMatchObject({ gatewayIds: [gw.id.toLowerCase()] });
  });

  it('a failure behind an offline gateway is correlated (no delivery) and released when it outlives the gateway incident', async () => {
    const sim = await h.sim({ seed: 184, sizes: { capacities: 1, workspaces: 2, gateways: 1, membersPerGateway: 1 } });
    const orgId = await h.org();
    await createDestination(h.ctx, orgId, { name: 'Hook', kind: 'webhook', url: 'https://hooks.example.com/vigia' });
    const [{ m }, other] = models(sim) as [{ w: SimWorkspace; m: SimItem }, { w: SimWorkspace; m: SimItem }];
    const gw = sim.state.gateways[0]!;
    m.gatewayDatasourceId = gw.datasources[0]!.id;
    delete other.m.gatewayDatasourceId;
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { refreshes: { intervalSeconds: INTERVAL }, gateway: { intervalSeconds: INTERVAL } } });
    const gateways = h.scheduler({ collectors: [gatewayCollector] });
    const refreshes = h.scheduler({ collectors: [refreshesCollector] });
    const both = async () => {
      h.clock.advance(INTERVAL * 1000);
      await gateways.pass();
      await refreshes.pass();
      expect((await schedule(h, tenant.id, 'refreshes')).last_error).toBeNull();
    };
    await both();
    const lineage = await readLineage(h.ctx.db, tenant.id);
    expect(lineage.get(m.id.toLowerCase())).toMatchObject({ gatewayIds: [gw.id.toLowerCase()], datasourceIds: [gw.datasources[0]!.id.toLowerCase()] });

    const deliveriesOf = async (alertId: string) =>
      (await h.ctx.db.query<{ event: string }>('SELECT event FROM deliveries WHERE alert_id = $1 ORDER BY created_at, id', [alertId])).rows.map((r) => r.event);

    sim.control.gatewayOffline({ gatewayId: gw.id, offline: true });
    sim.control.refreshResult({ datasetId: m.id, status: 'Failed', errorCode: 'DM_GWPipeline_Client_GatewayUnreachable' });
    // The other model fails for its own reason: not correlated, it pages.
    sim.control.refreshResult({ datasetId: other.m.id, status: 'Failed', errorCode: 'ModelRefreshFailed_CredentialsNotSpecified' });
    await both();
    let found = await datasetAlerts(h, orgId);
    const behind = () => found.find((r) => r.source_id === m.id.toLowerCase())!;
    const own = () => found.find((r) => r.source_id === other.m.id.toLowerCase())!;
    expect(behind()).toMatchObject({ status: 'open', correlated: true, suppressed: true });
    expect(own()).toMatchObject({ status: 'open', correlated: false });
    expect(await deliveriesOf(behind().id)).toEqual([]);
    expect(await deliveriesOf(own().id)).toEqual(['alert.opened']);
    const [gwAlert] = (await alerts(h, orgId, 'Gateway')).filter((r) => r.notification_kind === 'GatewayOffline');
    expect(gwAlert).toMatchObject({ status: 'open' });

    // The gateway is back; the refresh has not succeeded since: the dependent is released and delivered now.
    sim.control.gatewayOffline({ gatewayId: gw.id, offline: false });
    h.clock.advance(INTERVAL * 1000);
    await gateways.pass();
    found = await datasetAlerts(h, orgId);
    expect(behind()).toMatchObject({ status: 'open', suppressed: false });
    expect(behind().released_at).not.toBeNull();
    expect(await deliveriesOf(behind().id)).toEqual(['alert.opened']);
    expect(sim.violations).toEqual([]);
  });

  it('a failure on a suspended capacity is correlated to the capacity incident', async () => {
    const sim = await h.sim({ seed: 187, sizes: { capacities: 2, workspaces: 4, gateways: 0 } });
    const orgId = await h.org();
    const onCapacity = models(sim).find((x) => x.w.capacityId !== null)!;
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { refreshes: { intervalSeconds: INTERVAL }, capacity: { intervalSeconds: INTERVAL } } });
    const capacities = h.scheduler({ collectors: [capacityCollector] });
    const refreshes = h.scheduler({ collectors: [refreshesCollector] });
    await runOnce(refreshes, tenant.id);
    await capacities.pass();
    sim.control.capacityState({ capacityId: onCapacity.w.capacityId!, state: 'Suspended' });
    sim.control.refreshResult({ datasetId: onCapacity.m.id, status: 'Failed', errorCode: 'CapacityNotActive' });
    h.clock.advance(INTERVAL * 1000);
    await capacities.pass();
    await refreshes.pass();
    const [found] = await datasetAlerts(h, orgId);
    expect(found).toMatchObject({ source_id: onCapacity.m.id.toLowerCase(), status: 'open', correlated: true, message: expect.stringContaining('capacidade do workspace não está ativa') });
    expect(sim.violations).toEqual([]);
  });

  it('a spent hourly budget ends the run quietly; the next hour goes on', async () => {
    const sim = await h.sim({ seed: 188, sizes: { capacities: 1, workspaces: 3, gateways: 0 } });
    const orgId = await h.org();
    const [{ m }] = models(sim) as [{ w: SimWorkspace; m: SimItem }];
    sim.control.refreshResult({ datasetId: m.id, status: 'Failed', errorCode: 'Timeout' });
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { refreshes: { intervalSeconds: INTERVAL } } });
    // A family cap of 6 Power BI calls an hour: groups, capacities, 3 listings, and one more.
    const runner = h.scheduler({ collectors: [refreshesCollector], caps: { ...HOURLY_CAPS, powerbi: 6 } });
    await runOnce(runner, tenant.id);
    expect(sim.countCalls({ family: 'powerbi' })).toBe(6);
    await runOnce(runner, tenant.id);
    expect(sim.countCalls({ family: 'powerbi' })).toBe(6);
    // Hours later every model has been read and the failure found.
    for (let i = 0; i < 12 && (await datasetAlerts(h, orgId)).length === 0; i++) {
      h.clock.advance(3_600_000);
      await runOnce(runner, tenant.id);
    }
    expect(await datasetAlerts(h, orgId)).toMatchObject([{ source_id: m.id.toLowerCase(), status: 'open', failure_count: 1 }]);
    expect(sim.violations).toEqual([]);
  });

  it('caps hold on a large tenant (member mode): 20,000 workspaces with one model each, hot models every run, the rest in turns', { timeout: 300_000 }, async () => {
    const sim = await h.sim({ seed: 185, sizes: { capacities: 3, workspaces: 20_000, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    sim.state.workspaces.forEach((w, i) => {
      const m = w.items.find((x) => x.type === 'SemanticModel')!;
      m.refreshSchedule = { days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'], times: ['06:00'], enabled: i % 50 === 0, localTimeZoneId: 'E. South America Standard Time' };
    });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { refreshes: { intervalSeconds: INTERVAL } } });
    const runner = h.scheduler({ collectors: [refreshesCollector] });
    const perRun = runBudget(HOURLY_CAPS.powerbi, POWERBI_SHARE, INTERVAL);
    const calls: number[] = [];
    for (let run = 0; run < 13; run++) {
      const before = sim.countCalls({ family: 'powerbi' });
      await runOnce(runner, tenant.id);
      calls.push(sim.countCalls({ family: 'powerbi' }) - before);
    }
    expect(Math.max(...calls)).toBeLessThanOrEqual(perRun);
    expect(Math.min(...calls)).toBeGreaterThan(perRun / 2);
    expect(busiestHour(sim, 'powerbi')).toBeLessThanOrEqual(HOURLY_CAPS.powerbi * POWERBI_SHARE);
    expect(sim.countCalls({ throttled: true })).toBe(0);

    const { rows } = await h.ctx.db.query<{ key: string; value: any }>("SELECT key, value FROM collector_state WHERE tenant_ref = $1 AND collector = 'refreshes'", [tenant.id]);
    const rotation = rows.find((r) => r.key === 'rotation')!.value;
    expect(rotation.hot).toBeGreaterThan(0);
    expect(rotation.cold).toBeGreaterThan(0);
    const known = rows.filter((r) => r.key.startsWith('model:'));
    expect(known.length).toBeGreaterThan(500);
    // A scheduled model is hot: its next failure is seen in the next run.
    const scheduled = known.find((r) => r.value.meta?.scheduled === true)!;
    const modelId = scheduled.key.slice('model:'.length);
    sim.control.refreshResult({ datasetId: modelId, status: 'Failed', errorCode: 'Timeout' });
    await runOnce(runner, tenant.id);
    expect((await datasetAlerts(h, orgId)).find((r) => r.source_id === modelId)).toMatchObject({ status: 'open', failure_count: 1, message: expect.stringContaining('Código do erro: Timeout') });
    expect(sim.violations).toEqual([]);
  });

  it('caps hold on a large tenant (admin mode): the refreshables list in pages within its share of 200/h', { timeout: 300_000 }, async () => {
    const sim = await h.sim({ seed: 186, sizes: { capacities: 3, workspaces: 20_000, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { mode: 'admin', collectors: { refreshes: { intervalSeconds: INTERVAL } } });
    const runner = h.scheduler({ collectors: [refreshesCollector] });
    const pages = runBudget(sharedCap(200), ADMIN_SHARE, INTERVAL);
    const onCapacity = sim.state.workspaces.filter((w) => w.capacityId !== null).length;
    for (let run = 0; run < 2; run++) await runOnce(runner, tenant.id);
    expect(sim.countCalls({ operationId: 'Admin_GetRefreshables' })).toBe(2 * Math.ceil((onCapacity + 1) / 5000));
    expect(Math.ceil(onCapacity / 5000)).toBeLessThanOrEqual(pages);
    expect(busiestHour(sim, 'powerbi')).toBeLessThanOrEqual(2 * runBudget(HOURLY_CAPS.powerbi, POWERBI_SHARE, INTERVAL));
    expect(sim.countCalls({ throttled: true })).toBe(0);
    // Every model on a capacity is watched (first sight: only its newest result counted).
    const { rows } = await h.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM collector_state WHERE tenant_ref = $1 AND collector = 'refreshes' AND key LIKE 'model:%'", [tenant.id]);
    expect(rows[0]!.n).toBe(onCapacity);
    expect(sim.violations).toEqual([]);
  });
});

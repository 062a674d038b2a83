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
import { gatewayCollector } from '../../src/monitoring/collectors/gateway.js';
import { refreshesCollector } from '../../src/monitoring/collectors/refreshes.js';
import { readLineage } from '../../src/monitoring/lineage.js';
import type { SimItem, SimWorkspace, TenantSim } from '../../src/tenant-sim/index.js';
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
    const ofA = () => found.find((r) => r.source_id === a.m.id.toLowerCase());
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
    let found = await datasetAlerts(h, orgId);
    expect(found.map((r) => [r.status, r.failure_count])).toEqual([
      ['resolved', 2],
      ['open', 3],
    ]);
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    expect((await datasetAlerts(h, orgId)).map((r) => [r.status, r.failure_count])).toEqual([
      ['resolved', 2],
      ['open', 3],
    ]);

    // Running in one run, finished (failed) in the next: one more occurrence, once.
    sim.control.refreshResult({ datasetId: m.id, status: 'Unknown' });
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    expect((await datasetAlerts(h, orgId))[1].failure_count).toBe(3);
    // A later refresh finishes first; the running one then fails: both counted, once each.
    sim.control.refreshResult({ datasetId: m.id, status: 'Failed', errorCode: 'Timeout' });
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    expect((await datasetAlerts(h, orgId))[1].failure_count).toBe(4);
    sim.control.refreshResult({ datasetId: m.id, status: 'Failed', errorCode: 'Timeout', finish: true });
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    await runOnce(h.scheduler({ collectors: [refreshesCollector] }), tenant.id);
    found = await datasetAlerts(h, orgId);
    expect(found.map((r) => [r.status, r.failure_count])).toEqual([
      ['resolved', 2],
      ['open', 5],
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
    const behind = () => found.find((r) => r.source_id === m.id.toLowerCase());
    const own = () => found.find((r) => r.source_id === other.m.id.toLowerCase());
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
});

/**
 * The datasources collector against the tenant simulator: an unreachable gateway data source,
 * expired credentials (gateway data source and cloud connections, the latter tested through a
 * long-running Fabric call), recovery, disappearance; a data source behind an offline gateway is
 * correlated to the gateway's incident (no event while it is open, whichever collector runs
 * first) and released when it outlives it; the checks rotate under the run budget, hot data sources every run.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HOURLY_CAPS } from '../../src/monitoring/platform/budget.js';
import { DATASOURCES_SHARE, datasourcesCollector } from '../../src/monitoring/sources/datasources/datasources.js';
import { runBudget } from '../../src/monitoring/platform/run-budget.js';
import { gatewayCollector } from '../../src/monitoring/sources/gateway/gateway.js';
import { hotMarks } from '../../src/monitoring/sources/refreshes/gateway-evidence.js';
import { savePlacements, saveDatasources } from '../../src/monitoring/lineage/lineage.js';
import { applySignalsIn, readState } from '../../src/monitoring/engine/output.js';
import { txWithRetry } from '../../src/db/retry.js';
import { ROTATION_KEY, type RotationState } from '../../src/monitoring/engine/rotation.js';
import { alerts, createHarness, schedule, type Harness } from './harness.js';

const STATUS_PATH = /^\/v1\.0\/myorg\/gateways\/[^/]+\/datasources\/[^/]+\/status$/;

describe('collector: datasources', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  async function connectorAlerts(orgId: string) {
    const { rows } = await h.ctx.db.query(
      `SELECT id, source_id, notification_kind, severity, status, failure_count, correlated, suppressed, released_at, message
         FROM alerts WHERE org_id = $1 AND source_type = 'Connector' ORDER BY source_id, notification_kind`,
      [orgId],
    );
    return rows;
  }

  async function eventsOf(alertId: string): Promise<string[]> {
    const { rows } = await h.ctx.db.query<{ event: string }>('SELECT event FROM alert_events WHERE alert_id = $1 ORDER BY created_at, id', [alertId]);
    return rows.map((r) => r.event);
  }

  it('the listing is paid from the run budget: a run with 30 gateways makes no more calls than its budget, and says what it left', async () => {
    const sim = await h.sim({ seed: 187, sizes: { capacities: 1, workspaces: 1, gateways: 30, membersPerGateway: 1, cloudConnections: 0 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { datasources: { intervalSeconds: 300 } } });
    const runner = h.scheduler({ collectors: [datasourcesCollector] });
    const budget = runBudget(Math.min(HOURLY_CAPS.powerbi, HOURLY_CAPS.fabric), DATASOURCES_SHARE, 300);
    const count = () => sim.countCalls({ family: 'powerbi' }) + sim.countCalls({ family: 'fabric' });
    for (let run = 0; run < 3; run++) {
      const before = count();
      h.clock.advance(300_000);
      await runner.pass();
      expect((await schedule(h, tenant.id, 'datasources')).last_error).toBeNull();
      expect(count() - before).toBeLessThanOrEqual(budget);
    }
    // 60 data sources, 32 listing calls: the checks of a run reach 28; the rest take turns.
    const row = await schedule(h, tenant.id, 'datasources');
    expect(row.last_polled).toBe(budget - 32);
    expect(row.last_deferred).toBe(0);
    expect(sim.violations).toEqual([]);
  });

  it('opens unreachable and credential incidents with the platform code, keeps one count, recovers, and resolves a data source that disappears', async () => {
    const sim = await h.sim({ seed: 181, sizes: { capacities: 1, workspaces: 1, gateways: 2, membersPerGateway: 1, cloudConnections: 2 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { datasources: { intervalSeconds: 300 } } });
    const [g1, g2] = sim.state.gateways as [(typeof sim.state.gateways)[0], (typeof sim.state.gateways)[0]];
    const unreachable = g1.datasources[0]!;
    const expired = g2.datasources[1]!;
    const [cloudExpired, cloudGone] = sim.state.connections.filter((c) => c.gatewayId === null) as [(typeof sim.state.connections)[0], (typeof sim.state.connections)[0]];
    const runner = h.scheduler({ collectors: [datasourcesCollector] });

    await runner.pass();
    expect((await schedule(h, tenant.id, 'datasources')).last_error).toBeNull();
    expect(await alerts(h, orgId)).toEqual([]);
    // Four gateway data sources through their gateway; the cloud connections through Fabric's test.
    expect(sim.countCalls({ path: STATUS_PATH })).toBe(4);
    expect(sim.countCalls({ operationId: 'Connections_TestConnection' })).toBe(2);

    sim.control.datasourceReachable({ datasourceId: unreachable.id, reachable: false });
    sim.control.datasourceCredentials({ datasourceId: expired.id, expired: true });
    sim.control.datasourceCredentials({ datasourceId: cloudExpired.id, expired: true });
    sim.control.datasourceReachable({ datasourceId: cloudGone.id, reachable: false });
    sim.control.longRunningConnectionTests({ on: true });
    const polls = sim.countCalls({ path: '/v1/operations/' });
    h.clock.advance(300_000);
    await runner.pass();
    expect((await schedule(h, tenant.id, 'datasources')).last_error).toBeNull();
    expect(sim.countCalls({ path: '/v1/operations/' })).toBeGreaterThan(polls);
    const opened = await connectorAlerts(orgId);
    const of = (id: string) => opened.filter((r) => r.source_id === id.toLowerCase());
    expect(opened).toHaveLength(4);
    expect(of(unreachable.id)).toMatchObject([
      { notification_kind: 'ConnectorUnreachable', severity: 'error', status: 'open', correlated: false, message: expect.stringContaining('DM_GWPipeline_Gateway_DataSourceAccessError') },
    ]);
    expect(of(expired.id)).toMatchObject([{ notification_kind: 'ConnectorAuthFailed', status: 'open', message: expect.stringContaining('DM_GWPipeline_Gateway_InvalidConnectionCredentials') }]);
    expect(of(cloudExpired.id)).toMatchObject([{ notification_kind: 'ConnectorAuthFailed', status: 'open', message: expect.stringMatching(/DMTS_OAuthTokenRefreshFailedError|IncorrectCredentials/) }]);
    expect(of(cloudGone.id)).toMatchObject([{ notification_kind: 'ConnectorUnreachable', status: 'open' }]);

    // The same failures again: no reoccurrence counted.
    sim.control.longRunningConnectionTests({ on: false });
    h.clock.advance(300_000);
    await runner.pass();
    expect((await connectorAlerts(orgId)).map((r) => [r.status, r.failure_count])).toEqual(opened.map(() => ['open', 1]));

    // Credentials renewed, source reachable again, one connection deleted: all resolve.
    sim.control.datasourceReachable({ datasourceId: unreachable.id, reachable: true });
    sim.control.datasourceCredentials({ datasourceId: expired.id, expired: false });
    sim.control.datasourceCredentials({ datasourceId: cloudExpired.id, expired: false });
    sim.control.removeDatasource({ datasourceId: cloudGone.id });
    h.clock.advance(300_000);
    await runner.pass();
    expect((await schedule(h, tenant.id, 'datasources')).last_error).toBeNull();
    const after = await connectorAlerts(orgId);
    expect(after.map((r) => [r.source_id, r.status, r.failure_count])).toEqual(opened.map((r) => [r.source_id, 'resolved', 1]));
    const state = await readState(h.ctx.db, tenant.id, 'datasources');
    expect(state.has(`ds:${cloudGone.id.toLowerCase()}`)).toBe(false);
    expect(sim.violations).toEqual([]);
  });

  it('correlates a data source behind an offline gateway to it: no event while the gateway is down, released when it outlives it', async () => {
    const sim = await h.sim({ seed: 182, sizes: { capacities: 1, workspaces: 1, gateways: 2, membersPerGateway: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { datasources: { intervalSeconds: 300 }, gateway: { intervalSeconds: 300 } } });
    const g1 = sim.state.gateways[0]!;
    const [stays, heals] = g1.datasources as [(typeof g1.datasources)[0], (typeof g1.datasources)[0]];
    const gateways = h.scheduler({ collectors: [gatewayCollector] });
    const datasources = h.scheduler({ collectors: [datasourcesCollector] });
    await gateways.pass();
    await datasources.pass();
    expect(await alerts(h, orgId)).toEqual([]);

    // The gateway goes down and this collector happens to run first: its data sources only say the
    // gateway does not answer, so their verdict waits for the gateway collector's.
    sim.control.gatewayOffline({ gatewayId: g1.id, offline: true });
    h.clock.advance(300_000);
    await datasources.pass();
    expect(await connectorAlerts(orgId)).toEqual([]);
    // That answer is evidence: the gateway is marked hot and its collector asked to run now.
    expect([...(await hotMarks(h.ctx.db, tenant.id, h.clock.now())).keys()]).toEqual([g1.id.toLowerCase()]);
    expect((await schedule(h, tenant.id, 'gateway')).next_run_at).toEqual(h.clock.now());
    await gateways.pass();
    h.clock.advance(300_000);
    await datasources.pass();
    expect((await schedule(h, tenant.id, 'datasources')).last_error).toBeNull();
    const gatewayAlerts = (await alerts(h, orgId, 'Gateway')).filter((r) => r.notification_kind === 'GatewayOffline');
    expect(gatewayAlerts).toMatchObject([{ source_id: g1.id.toLowerCase(), status: 'open' }]);
    const held = await connectorAlerts(orgId);
    expect(held).toHaveLength(2);
    for (const r of held) {
      expect(r).toMatchObject({ notification_kind: 'ConnectorUnreachable', status: 'open', correlated: true, suppressed: true, message: expect.stringContaining('GatewayUnreachable') });
      expect(await eventsOf(r.id)).toEqual([]);
    }

    // The gateway is back, but one of its data sources still cannot be reached: the other recovers
    // silently; when the gateway's incident resolves, the one that outlived it is released and pages.
    sim.control.gatewayOffline({ gatewayId: g1.id, offline: false });
    sim.control.datasourceReachable({ datasourceId: stays.id, reachable: false });
    h.clock.advance(300_000);
    await datasources.pass();
    await gateways.pass();
    const now = await connectorAlerts(orgId);
    const row = (id: string) => now.find((r) => r.source_id === id.toLowerCase())!;
    expect(row(heals.id)).toMatchObject({ status: 'resolved' });
    expect(await eventsOf(row(heals.id).id)).toEqual([]);
    expect(row(stays.id)).toMatchObject({ status: 'open', suppressed: false, released_at: expect.any(Date) });
    expect(await eventsOf(row(stays.id).id)).toEqual(['alert.opened']);
    expect(sim.violations).toEqual([]);
  });

  it('opens at once for a gateway that does not answer when no gateway collector runs for the tenant', async () => {
    const sim = await h.sim({ seed: 184, sizes: { capacities: 1, workspaces: 1, gateways: 1, membersPerGateway: 1 } });
    const orgId = await h.org();
    await h.tenant(orgId, sim, { collectors: { datasources: { intervalSeconds: 300 }, gateway: { enabled: false } } });
    const g = sim.state.gateways[0]!;
    const runner = h.scheduler({ collectors: [datasourcesCollector] });
    await runner.pass();
    sim.control.gatewayOffline({ gatewayId: g.id, offline: true });
    h.clock.advance(300_000);
    await runner.pass();
    const opened = await connectorAlerts(orgId);
    expect(opened).toHaveLength(g.datasources.length);
    for (const r of opened) expect(r).toMatchObject({ notification_kind: 'ConnectorUnreachable', status: 'open', correlated: false, message: expect.stringContaining('DM_GWPipeline_Client_GatewayUnreachable') });
    expect(sim.violations).toEqual([]);
  });

  it('checks within the run budget: failing and recently used data sources every run, the rest in turns', async () => {
    const sim = await h.sim({ seed: 183, sizes: { capacities: 1, workspaces: 1, gateways: 10, membersPerGateway: 1 } });
    const orgId = await h.org();
    // 30 s: 7,200 calls/h × 10 % × 30 s / 3,600 s = 6 calls a run, for 20 data sources behind 10 gateways.
    const tenant = await h.tenant(orgId, sim, { collectors: { datasources: { intervalSeconds: 30 } } });
    const all = sim.state.gateways.flatMap((g) => g.datasources).sort((a, b) => (a.id.toLowerCase() < b.id.toLowerCase() ? -1 : 1));
    expect(all).toHaveLength(20);
    const runner = h.scheduler({ collectors: [datasourcesCollector] });
    const checks = () => sim.countCalls({ path: STATUS_PATH });
    const checked = (id: string) => sim.countCalls({ path: new RegExp(`/datasources/${id}/status$`, 'i') });
    const listings = () => sim.countCalls({ operationId: 'Gateways_GetGateways' });
    const started = h.clock.now().getTime();

    // The first run lists (1 + 10 gateways + 1 connections page: 12 calls, twice its 6) and checks
    // nothing; the second pays the rest back. The listing is kept (re-read every 5 minutes).
    for (let run = 0; run < 2; run++) {
      await runner.pass();
      expect(checks()).toBe(0);
      expect((await schedule(h, tenant.id, 'datasources')).last_deferred).toBe(20);
      h.clock.advance(30_000);
    }
    // A full rotation: four runs of six checks (the fourth wraps around), each data source checked.
    for (let run = 0; run < 4; run++) {
      const before = checks();
      await runner.pass();
      expect(checks() - before).toBe(6);
      h.clock.advance(30_000);
    }
    expect(listings()).toBe(1);
    for (const d of all) expect(checked(d.id)).toBeGreaterThanOrEqual(1);
    const rotation = (await readState<RotationState>(h.ctx.db, tenant.id, 'datasources')).get(ROTATION_KEY)!;
    expect(rotation).toMatchObject({ hot: 0, cold: 20, lastFullRotationSeconds: 150 });

    // A data source fails while it is not its turn: found when its turn comes, then checked every run.
    const late = all[19]!;
    sim.control.datasourceReachable({ datasourceId: late.id, reachable: false });
    let runs = 0;
    while ((await alerts(h, orgId, 'Connector')).length === 0) {
      expect(++runs).toBeLessThanOrEqual(4);
      await runner.pass();
      h.clock.advance(30_000);
    }
    // A semantic model reading through another data source failed recently: that one is hot too.
    const used = all[10]!;
    const itemId = '0b9e7c1e-1111-4222-8333-944445555666';
    await savePlacements(h.ctx.db, tenant.id, [{ itemId, itemType: 'SemanticModel', itemName: 'Vendas', workspaceId: sim.state.workspaces[0]!.id, capacityId: null }], h.clock.now());
    await saveDatasources(h.ctx.db, tenant.id, itemId, [used.gatewayId], [used.id], h.clock.now());
    await txWithRetry(h.ctx.db, (q) => applySignalsIn(q, h.ctx, orgId, [
      { sourceType: 'Dataset', sourceId: itemId, sourceName: 'Vendas', notificationKind: 'RefreshFailed', kind: 'failure', title: 'Refresh failed', message: 'The refresh failed.' },
    ], h.clock.now()));
    // Every run that checks, checks both hot ones; the runs that re-read the listing (and pay it back) check nothing.
    let checkingRuns = 0;
    for (let run = 0; run < 6 && checkingRuns < 3; run++) {
      const [lateBefore, usedBefore, before] = [checked(late.id), checked(used.id), checks()];
      await runner.pass();
      if (checks() === before) {
        expect(listings()).toBe(2);
      } else {
        expect(checked(late.id) - lateBefore).toBe(1);
        expect(checked(used.id) - usedBefore).toBe(1);
        expect(checks() - before).toBe(6);
        checkingRuns++;
      }
      h.clock.advance(30_000);
    }
    expect(checkingRuns).toBe(3);
    // Over all its runs, the collector made no more calls than its runs' budgets.
    const runsSoFar = Math.round((h.clock.now().getTime() - started) / 30_000); // every run was followed by one interval
    expect(sim.countCalls({ family: 'powerbi' }) + sim.countCalls({ family: 'fabric' })).toBeLessThanOrEqual(6 * runsSoFar);
    expect((await readState<RotationState>(h.ctx.db, tenant.id, 'datasources')).get(ROTATION_KEY)).toMatchObject({ hot: 2, cold: 18 });
    expect((await schedule(h, tenant.id, 'datasources')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });
});

/**
 * The gateway collector against the tenant simulator: an offline gateway opens GatewayOffline
 * with the platform's error details, its offline members are correlated to it (no page of their
 * own), a member alone offline opens GatewayMemberOffline, an upgrade required is info, the
 * long-running status checks are followed, and everything recovers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gatewayCollector } from '../../src/monitoring/sources/gateway/gateway.js';
import { alerts, createHarness, schedule, type Harness } from './harness.js';

describe('collector: gateway', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  it('detects offline gateways and members, upgrades, and recoveries', async () => {
    const sim = await h.sim({ seed: 51, sizes: { capacities: 1, workspaces: 1, gateways: 3, membersPerGateway: 2 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { gateway: { intervalSeconds: 300 } } });
    const visible = sim.state.gateways.filter((g) => g.principalIsAdmin);
    expect(visible.length).toBeGreaterThanOrEqual(2);
    for (const g of sim.state.gateways) {
      sim.control.gatewayOffline({ gatewayId: g.id, offline: false });
      sim.control.gatewayUpgradeRequired({ gatewayId: g.id, on: false });
      for (const m of g.members) sim.control.memberOffline({ gatewayId: g.id, memberId: m.id, offline: false });
    }
    const runner = h.scheduler({ collectors: [gatewayCollector] });
    await runner.pass();
    expect((await schedule(h, tenant.id, 'gateway')).last_error).toBeNull();
    expect(await alerts(h, orgId)).toEqual([]);

    const [g1, g2] = visible as [(typeof visible)[0], (typeof visible)[0]];
    sim.control.gatewayOffline({ gatewayId: g1.id, offline: true });
    for (const m of g1.members) sim.control.memberOffline({ gatewayId: g1.id, memberId: m.id, offline: true });
    sim.control.memberOffline({ gatewayId: g2.id, memberId: g2.members[0]!.id, offline: true });
    sim.control.gatewayUpgradeRequired({ gatewayId: g2.id, on: true });
    sim.control.longRunningStatusChecks({ on: true });
    h.clock.advance(300_000);
    await runner.pass();
    expect((await schedule(h, tenant.id, 'gateway')).last_error).toBeNull();
    const { rows } = await h.ctx.db.query(
      `SELECT source_id, notification_kind, severity, status, correlated, message FROM alerts WHERE org_id = $1 ORDER BY notification_kind, source_id`,
      [orgId],
    );
    const byKind = (k: string) => rows.filter((r) => r.notification_kind === k);
    expect(byKind('GatewayOffline')).toMatchObject([{ source_id: g1.id.toLowerCase(), severity: 'error', status: 'open', correlated: false, message: expect.stringContaining('GatewayNotReachable') }]);
    const members = byKind('GatewayMemberOffline');
    expect(members).toHaveLength(g1.members.length + 1);
    for (const m of g1.members) expect(members.find((r) => r.source_id === m.id.toLowerCase())).toMatchObject({ correlated: true });
    expect(members.find((r) => r.source_id === g2.members[0]!.id.toLowerCase())).toMatchObject({ correlated: false, message: expect.stringContaining('GatewayMemberNotReachable') });
    expect(byKind('GatewayUpgradeRequired')).toMatchObject([{ source_id: g2.id.toLowerCase(), severity: 'info', status: 'open' }]);
    expect(sim.countCalls({ path: '/v1/operations/' })).toBeGreaterThan(0);

    sim.control.longRunningStatusChecks({ on: false });
    sim.control.gatewayOffline({ gatewayId: g1.id, offline: false });
    for (const m of g1.members) sim.control.memberOffline({ gatewayId: g1.id, memberId: m.id, offline: false });
    sim.control.memberOffline({ gatewayId: g2.id, memberId: g2.members[0]!.id, offline: false });
    sim.control.gatewayUpgradeRequired({ gatewayId: g2.id, on: false });
    h.clock.advance(300_000);
    await runner.pass();
    const after = await alerts(h, orgId);
    expect(after.every((r) => r.status === 'resolved')).toBe(true);
    expect(after.every((r) => r.failure_count === 1)).toBe(true);
    expect(sim.violations).toEqual([]);
  });

  it('follows the member list across pages (continuationUri) and finds an offline member on a later page', async () => {
    const sim = await h.sim({ seed: 53, fabricPageSize: 1, sizes: { capacities: 1, workspaces: 1, gateways: 1, membersPerGateway: 3 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { gateway: { intervalSeconds: 300 } } });
    const g = sim.state.gateways.find((x) => x.principalIsAdmin && x.members.length === 3)!;
    sim.control.gatewayOffline({ gatewayId: g.id, offline: false });
    for (const m of g.members) sim.control.memberOffline({ gatewayId: g.id, memberId: m.id, offline: false });
    sim.control.memberOffline({ gatewayId: g.id, memberId: g.members[2]!.id, offline: true });
    await h.scheduler({ collectors: [gatewayCollector] }).pass();
    expect((await schedule(h, tenant.id, 'gateway')).last_error).toBeNull();
    expect(sim.countCalls({ path: `/v1/gateways/${g.id}/members`, method: 'GET' })).toBe(3);
    const found = await alerts(h, orgId, 'Gateway');
    expect(found.map((r) => [r.source_id, r.notification_kind])).toEqual([[g.members[2]!.id.toLowerCase(), 'GatewayMemberOffline']]);
    expect(sim.violations).toEqual([]);
  });

  it('a long-running status check that ends Failed fails the run with the operation\'s error code', async () => {
    const sim = await h.sim({ seed: 54, sizes: { capacities: 1, workspaces: 1, gateways: 1, membersPerGateway: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { gateway: { intervalSeconds: 300 } } });
    sim.control.longRunningStatusChecks({ on: true, fail: true });
    await h.scheduler({ collectors: [gatewayCollector] }).pass();
    expect((await schedule(h, tenant.id, 'gateway')).last_error).toBe('long-running operation failed (GatewayStatusCheckFailed)');
    expect(sim.violations).toEqual([]);
  });
});

/**
 * The gateway collector on a tenant with many gateways: every run stays inside its share of the
 * Fabric hourly cap, every gateway and member is checked once per rotation, a gateway the Power
 * BI gateway list does not report Live is checked in the next run and, while it is not fully
 * online, every run; and a refresh failing with the gateway family's code
 * marks its gateway hot, so the gateway collector runs at once and opens GatewayOffline while
 * the gateway's turn is far away; the mark expires.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HOURLY_CAPS } from '../../src/monitoring/platform/budget.js';
import { GATEWAY_SHARE, gatewayCollector } from '../../src/monitoring/sources/gateway/gateway.js';
import { refreshesCollector } from '../../src/monitoring/sources/refreshes/refreshes.js';
import { HOT_MARK_MS, hotMarks } from '../../src/monitoring/sources/refreshes/gateway-evidence.js';
import { readRotations, rotationKeyOf } from '../../src/monitoring/engine/rotation-status.js';
import { runBudget } from '../../src/monitoring/platform/run-budget.js';
import type { SimGateway, TenantSim } from '../../src/tenant-sim/index.js';
import { alerts, createHarness, schedule, type Harness } from './harness.js';

/** Status checks the simulator answered since request number `from`, by "gateway" or "gateway/member" (lower case). */
function checksSince(sim: TenantSim, from: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of sim.requests.slice(from)) {
    const m = /^\/v1\/gateways\/([^/]+)(?:\/members\/([^/]+))?\/checkStatus$/.exec(r.path);
    if (!m) continue;
    const key = m[2] ? `${m[1]!.toLowerCase()}/${m[2].toLowerCase()}` : m[1]!.toLowerCase();
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/** Fabric calls (listings, checks, long-running polls) since request number `from`. */
const fabricCallsSince = (sim: TenantSim, from: number) => sim.requests.slice(from).filter((r) => r.family === 'fabric').length;

function allOnline(sim: TenantSim): SimGateway[] {
  for (const g of sim.state.gateways) {
    sim.control.gatewayOffline({ gatewayId: g.id, offline: false });
    sim.control.gatewayUpgradeRequired({ gatewayId: g.id, on: false });
    for (const m of g.members) sim.control.memberOffline({ gatewayId: g.id, memberId: m.id, offline: false });
  }
  return sim.state.gateways.filter((g) => g.principalIsAdmin);
}

async function rotationOf(h: Harness, tenantRef: string) {
  const { rows } = await h.ctx.db.query<{ value: { passStartedAt: string; cursor: number } }>(
    "SELECT value FROM collector_state WHERE tenant_ref = $1 AND collector = 'gateway' AND key = 'rotation'",
    [tenantRef],
  );
  return rows[0]?.value;
}

describe('collector: gateway at scale', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  it('stays inside its budget, checks every gateway and member once per rotation, and an offline gateway every run', async () => {
    const INTERVAL = 60;
    const perRun = runBudget(HOURLY_CAPS.fabric, GATEWAY_SHARE, INTERVAL);
    const sim = await h.sim({ seed: 271, sizes: { capacities: 1, workspaces: 1, gateways: 40, membersPerGateway: 3 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { gateway: { intervalSeconds: INTERVAL } } });
    const visible = allOnline(sim);
    const everyCheck = visible.flatMap((g) => [g.id.toLowerCase(), ...g.members.map((m) => `${g.id.toLowerCase()}/${m.id.toLowerCase()}`)]);
    expect(everyCheck.length).toBeGreaterThan(perRun * 3); // a rotation takes several runs
    const runner = h.scheduler({ collectors: [gatewayCollector] });
    const pass = async () => {
      const from = sim.requests.length;
      await runner.pass();
      expect((await schedule(h, tenant.id, 'gateway')).last_error).toBeNull();
      // A run's share, plus the fraction of a call carried from earlier runs (PacedBudget's carry).
      expect(fabricCallsSince(sim, from)).toBeLessThanOrEqual(perRun + 1);
      h.clock.advance(INTERVAL * 1000);
      return from;
    };
    const completed = async () => (await rotationOf(h, tenant.id))?.passStartedAt === new Date(h.clock.now().getTime() - INTERVAL * 1000).toISOString();

    // Until every member list was read and a rotation completed after that.
    let rotations = 0;
    for (let i = 0; i < 60 && rotations < 2; i++) {
      await pass();
      if (await completed()) rotations++;
    }
    expect(rotations).toBe(2);
    // One full rotation: each gateway and each member checked exactly once.
    const start = sim.requests.length;
    let runs = 0;
    do {
      await pass();
      runs++;
    } while (!(await completed()) && runs < 60);
    const counted = checksSince(sim, start);
    expect([...counted.keys()].sort()).toEqual([...everyCheck].sort());
    expect([...counted.values()].every((n) => n === 1)).toBe(true);
    expect(runs).toBeGreaterThan(2);
    // The tenant view and /metrics read the full rotation time from the same state.
    const view = (await readRotations(h.ctx.db, [tenant.id])).get(rotationKeyOf(tenant.id, 'gateway'));
    expect(view).toMatchObject({ lastFullRotationSeconds: runs * INTERVAL, hot: 0, cold: everyCheck.length });
    expect(await alerts(h, orgId)).toEqual([]);

    // A gateway goes offline far from its turn: the Power BI gateway list no longer reports it
    // Live, so the next run checks it; from then on it and its members are checked every run.
    // A rotation just completed: the next run starts the list again, and this gateway is its last.
    const down = [...visible].sort((a, b) => (a.id.toLowerCase() < b.id.toLowerCase() ? -1 : 1)).at(-1)!;
    sim.control.gatewayOffline({ gatewayId: down.id, offline: true });
    expect(checksSince(sim, await pass()).get(down.id.toLowerCase())).toBe(1);
    expect((await alerts(h, orgId, 'Gateway')).filter((a) => a.notification_kind === 'GatewayOffline').map((a) => [a.source_id, a.status])).toEqual([[down.id.toLowerCase(), 'open']]);
    for (let i = 0; i < 3; i++) {
      const counted = checksSince(sim, await pass());
      expect(counted.get(down.id.toLowerCase())).toBe(1);
      for (const m of down.members) expect(counted.get(`${down.id.toLowerCase()}/${m.id.toLowerCase()}`)).toBe(1);
    }
    expect(sim.violations).toEqual([]);
  });

  it('a refresh failing behind a gateway marks it hot: checked in the same minute while its turn is far away, and the mark expires', async () => {
    const sim = await h.sim({ seed: 272, sizes: { capacities: 1, workspaces: 1, gateways: 100, membersPerGateway: 3 } });
    const orgId = await h.org();
    const visible = allOnline(sim);
    const gw = visible[visible.length - 1]!;
    const m = sim.state.workspaces[0]!.items.find((i) => i.type === 'SemanticModel')!;
    m.gatewayDatasourceId = gw.datasources[0]!.id;
    m.refreshes = [{ requestId: `seed-${m.id}`, refreshType: 'Scheduled', startTime: '2026-06-15T06:00:00.000Z', endTime: '2026-06-15T06:05:00.000Z', status: 'Completed' }];
    // The gateway collector at its default interval; refreshes every minute.
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { refreshes: { intervalSeconds: 60 }, gateway: { intervalSeconds: 300 } } });
    const gateways = h.scheduler({ collectors: [gatewayCollector] });
    const refreshes = h.scheduler({ collectors: [refreshesCollector] });
    const minute = async () => {
      const from = sim.requests.length;
      await refreshes.pass();
      await gateways.pass();
      expect((await schedule(h, tenant.id, 'refreshes')).last_error).toBeNull();
      expect((await schedule(h, tenant.id, 'gateway')).last_error).toBeNull();
      h.clock.advance(60_000);
      return checksSince(sim, from);
    };
    // Until the gateway had its turn (its members listed and checked); its next turn is a rotation away.
    let sinceTurn = -1;
    for (let i = 0; i < 120; i++) {
      const counted = await minute();
      if (counted.has(`${gw.id.toLowerCase()}/${gw.members[0]!.id.toLowerCase()}`)) {
        sinceTurn = 0;
        break;
      }
    }
    expect(sinceTurn).toBe(0);
    const lastGatewayRun = (await schedule(h, tenant.id, 'gateway')).last_run_at as Date;
    const { rows: lineage } = await h.ctx.db.query('SELECT gateway_ids FROM monitored_lineage WHERE tenant_ref = $1 AND item_id = $2', [tenant.id, m.id.toLowerCase()]);
    expect(lineage[0]?.gateway_ids).toEqual([gw.id.toLowerCase()]);

    // A minute later (the gateway collector is not due for four more): the gateway goes down and the scheduled refresh fails.
    sim.control.gatewayOffline({ gatewayId: gw.id, offline: true });
    sim.control.refreshResult({ datasetId: m.id, status: 'Failed', errorCode: 'DM_GWPipeline_Client_GatewayUnreachable' });
    const failedAt = h.clock.now();
    expect(failedAt.getTime() - lastGatewayRun.getTime()).toBeLessThan(300_000);
    const from = sim.requests.length;
    const counted = await minute();
    expect(counted.get(gw.id.toLowerCase())).toBe(1);
    expect((await schedule(h, tenant.id, 'gateway')).last_run_at).toEqual(failedAt);
    // The early run spent the budget of one minute plus the marked gateway's checks.
    expect(fabricCallsSince(sim, from)).toBeLessThanOrEqual(runBudget(HOURLY_CAPS.fabric, GATEWAY_SHARE, 60) + 2 + gw.members.length);
    const offline = (await alerts(h, orgId, 'Gateway')).filter((a) => a.notification_kind === 'GatewayOffline');
    expect(offline.map((a) => [a.source_id, a.status])).toEqual([[gw.id.toLowerCase(), 'open']]);
    expect([...(await hotMarks(h.ctx.db, tenant.id, h.clock.now())).keys()]).toEqual([gw.id.toLowerCase()]);

    // The same failure seen again on the next refreshes run asks for no further early run.
    const before = (await schedule(h, tenant.id, 'gateway')).next_run_at as Date;
    await refreshes.pass();
    expect((await schedule(h, tenant.id, 'gateway')).next_run_at).toEqual(before);

    // The gateway is back; once the mark and the recent change are older than their windows, it takes turns again.
    sim.control.gatewayOffline({ gatewayId: gw.id, offline: false });
    sim.control.refreshResult({ datasetId: m.id, status: 'Completed' });
    for (let t = 0; t <= HOT_MARK_MS + 300_000; t += 60_000) await minute();
    expect((await alerts(h, orgId, 'Gateway')).filter((a) => a.notification_kind === 'GatewayOffline').map((a) => a.status)).toEqual(['resolved']);
    expect((await hotMarks(h.ctx.db, tenant.id, h.clock.now())).size).toBe(0);
    const later = new Map<string, number>();
    for (let i = 0; i < 10; i++) for (const [k, n] of await minute()) later.set(k, (later.get(k) ?? 0) + n);
    // Ten minutes are two runs of the gateway collector: a gateway taking turns is checked at most once.
    expect(later.get(gw.id.toLowerCase()) ?? 0).toBeLessThanOrEqual(1);
    expect(sim.violations).toEqual([]);
  });
});

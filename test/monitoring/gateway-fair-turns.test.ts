/**
 * Fair turns under the gateway collector's run budget (docs/monitoring.md, "Turns, effective
 * intervals and the first pass"): at an interval the budget cannot honour (5 s) every gateway
 * and member still gets its turn within a bounded time, a gateway that goes offline is found,
 * the collector runs at the interval its share can pay for (the tenant view and the PATCH answer
 * say so), and a healthy tenant never raises CollectorBehind.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gatewayCollector } from '../../src/monitoring/sources/gateway/gateway.js';
import { getTenant, updateTenant } from '../../src/monitoring/tenants.js';
import type { SimGateway, TenantSim } from '../../src/tenant-sim/index.js';
import { alerts, createHarness, schedule, type Harness } from './harness.js';

function allOnline(sim: TenantSim): SimGateway[] {
  for (const g of sim.state.gateways) {
    sim.control.gatewayOffline({ gatewayId: g.id, offline: false });
    sim.control.gatewayUpgradeRequired({ gatewayId: g.id, on: false });
    for (const m of g.members) sim.control.memberOffline({ gatewayId: g.id, memberId: m.id, offline: false });
  }
  return sim.state.gateways.filter((g) => g.principalIsAdmin);
}

/** When each status check ("gateway" or "gateway/member", lower case) was last made, from request number `from`. */
function checkTimes(sim: TenantSim, from: number, at: Map<string, number[]>, now: number): void {
  for (const r of sim.requests.slice(from)) {
    const m = /^\/v1\/gateways\/([^/]+)(?:\/members\/([^/]+))?\/checkStatus$/.exec(r.path);
    if (!m) continue;
    const key = m[2] ? `${m[1]!.toLowerCase()}/${m[2].toLowerCase()}` : m[1]!.toLowerCase();
    at.set(key, [...(at.get(key) ?? []), now]);
  }
}

describe('collector: gateway, fair turns', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  /** Runs the collector each time it is due, for `ms` of the clock; returns when each check was made. */
  const runFor = async (sim: TenantSim, tenantRef: string, ms: number, each?: (elapsed: number) => void) => {
    const runner = h.scheduler({ collectors: [gatewayCollector] });
    const start = h.clock.now().getTime();
    const at = new Map<string, number[]>();
    const runs: number[] = [];
    for (;;) {
      const due = new Date((await schedule(h, tenantRef, 'gateway')).next_run_at).getTime();
      if (due - start > ms) break;
      h.clock.set(Math.max(due, h.clock.now().getTime()));
      each?.(h.clock.now().getTime() - start);
      const from = sim.requests.length;
      await runner.pass();
      expect((await schedule(h, tenantRef, 'gateway')).last_error).toBeNull();
      checkTimes(sim, from, at, h.clock.now().getTime() - start);
      runs.push(h.clock.now().getTime() - start);
    }
    return { at, runs };
  };

  it('a healthy tenant at 5 s: every gateway and member checked within minutes, no CollectorBehind, the effective interval shown', async () => {
    const sim = await h.sim({ seed: 361, sizes: { capacities: 1, workspaces: 1, gateways: 6, membersPerGateway: 2 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { gateway: { intervalSeconds: 5 } } });
    const visible = allOnline(sim);
    const { at } = await runFor(sim, tenant.id, 5 * 60_000);
    const every = visible.flatMap((g) => [g.id.toLowerCase(), ...g.members.map((m) => `${g.id.toLowerCase()}/${m.id.toLowerCase()}`)]);
    // Every check got a turn, and again within a bounded wait after its members were known.
    for (const key of every) expect(at.get(key)?.length ?? 0, key).toBeGreaterThanOrEqual(2);
    expect((await alerts(h, orgId)).map((a) => a.notification_kind)).toEqual([]);
    const view = (await getTenant(h.ctx, orgId, tenant.id)).collectors.find((c) => c.name === 'gateway')!;
    expect(view.intervalSeconds).toBe(5);
    expect(view.effectiveIntervalSeconds).toBeGreaterThanOrEqual(5);
    expect(sim.violations).toEqual([]);
  }, 180_000);

  it('two hot gateways at 5 s: the rest still get turns, a third going offline is found, the collector runs at its effective interval and says so', async () => {
    const sim = await h.sim({ seed: 362, sizes: { capacities: 1, workspaces: 1, gateways: 6, membersPerGateway: 2 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { gateway: { intervalSeconds: 5 } } });
    const visible = allOnline(sim);
    const [a, b, , c] = visible as [SimGateway, SimGateway, SimGateway, SimGateway];
    sim.control.gatewayOffline({ gatewayId: a.id, offline: true });
    sim.control.gatewayOffline({ gatewayId: b.id, offline: true });
    let wentDown = -1;
    const { at, runs } = await runFor(sim, tenant.id, 15 * 60_000, (elapsed) => {
      if (wentDown < 0 && elapsed >= 5 * 60_000) {
        sim.control.gatewayOffline({ gatewayId: c.id, offline: true });
        wentDown = elapsed;
      }
    });
    // The cold gateways and members had turns too.
    const cold = visible.filter((g) => g !== a && g !== b && g !== c);
    for (const g of cold) for (const key of [g.id.toLowerCase(), ...g.members.map((m) => `${g.id.toLowerCase()}/${m.id.toLowerCase()}`)]) expect(at.get(key)?.length ?? 0, key).toBeGreaterThanOrEqual(1);
    // The third outage was checked, and opened, within a minute.
    const found = (at.get(c.id.toLowerCase()) ?? []).find((t) => t >= wentDown);
    expect(found).toBeDefined();
    expect(found! - wentDown).toBeLessThanOrEqual(60_000);
    const open = (await alerts(h, orgId, 'Gateway')).filter((x) => x.notification_kind === 'GatewayOffline' && x.status === 'open').map((x) => x.source_id).sort();
    expect(open).toEqual([a.id, b.id, c.id].map((id) => id.toLowerCase()).sort());
    expect((await alerts(h, orgId, 'Tenant')).map((x) => x.notification_kind)).toEqual([]);

    // The collector does not run every 5 s: it runs at the interval its share pays for, and says so.
    const view = (await getTenant(h.ctx, orgId, tenant.id)).collectors.find((x) => x.name === 'gateway')!;
    expect(view.effectiveIntervalSeconds).toBeGreaterThan(5);
    expect(view.effectiveIntervalNote).toContain(`${view.effectiveIntervalSeconds} s`);
    const gaps = runs.slice(-5).map((t, i, all) => (i === 0 ? null : t - all[i - 1]!)).filter((g): g is number => g !== null);
    for (const gap of gaps) expect(gap).toBeGreaterThan(5_000);
    // The PATCH answer says it too when a short interval is set.
    const patched = await updateTenant(h.ctx, orgId, tenant.id, { collectors: { gateway: { intervalSeconds: 6 } } });
    const pv = patched.collectors.find((x) => x.name === 'gateway')!;
    expect(pv).toMatchObject({ intervalSeconds: 6, effectiveIntervalSeconds: view.effectiveIntervalSeconds });
    expect(pv.effectiveIntervalNote).toMatch(/6 s/);
    expect(sim.violations).toEqual([]);
  }, 180_000);
});

/**
 * Admin mode: a model whose refresh schedule (known from the scanner) falls due becomes hot, and
 * each run reads its latest refresh (`GET …/datasets/{id}/refreshes?$top=1`, Power BI family)
 * until a result after the slot is seen. A scheduled refresh that fails in the simulator is found
 * within the interval + 60 s of its slot, while the refreshables pages alone (a small share of
 * the endpoint's cap: a page every ~33 min) miss it for much longer; a model that succeeds stops
 * being hot; the reads stay within their share of the run's budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOURLY_CAPS } from '../../src/monitoring/platform/budget.js';
import { runBudget } from '../../src/monitoring/platform/run-budget.js';
import { DUE_SHARE } from '../../src/monitoring/sources/refreshes/refresh-hot.js';
import { makeRefreshesCollector, POWERBI_SHARE } from '../../src/monitoring/sources/refreshes/refreshes.js';
import { scannerCollector } from '../../src/monitoring/sources/scanner/scanner.js';
import type { SimItem, TenantSim } from '../../src/tenant-sim/index.js';
import { createHarness, schedule, type Harness } from './harness.js';

const INTERVAL = 300;
const SLOT = '13:30';
const SLOT_AT = Date.parse('2026-06-15T13:30:00Z');

/** Every model: an old completed refresh and no enabled schedule; two models on capacities, readable by the principal, scheduled at SLOT (UTC, every day). */
function arrange(sim: TenantSim): { failing: SimItem; fine: SimItem } {
  const candidates: SimItem[] = [];
  for (const w of sim.state.workspaces) {
    for (const m of w.items.filter((i) => i.type === 'SemanticModel')) {
      m.refreshes = [{ requestId: `seed-${m.id}`, refreshType: 'Scheduled', startTime: '2026-06-13T06:00:00.000Z', endTime: '2026-06-13T06:05:00.000Z', status: 'Completed' }];
      m.refreshSchedule = { days: ['Monday'], times: ['06:00'], enabled: false, localTimeZoneId: 'UTC' };
      if (w.capacityId !== null && w.member) candidates.push(m);
    }
  }
  const [failing, fine] = candidates as [SimItem, SimItem];
  const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  for (const m of [failing, fine]) m.refreshSchedule = { days, times: [SLOT], enabled: true, localTimeZoneId: 'UTC' };
  return { failing, fine };
}

async function openedAt(h: Harness, orgId: string, modelId: string): Promise<number | null> {
  const { rows } = await h.ctx.db.query<{ created_at: Date }>("SELECT created_at FROM alerts WHERE org_id = $1 AND source_type = 'Dataset' AND source_id = $2 AND notification_kind = 'RefreshFailed'", [orgId, modelId.toLowerCase()]);
  return rows[0] ? new Date(rows[0].created_at).getTime() : null;
}

async function hotKeys(h: Harness, tenantRef: string): Promise<string[]> {
  const { rows } = await h.ctx.db.query<{ key: string }>("SELECT key FROM collector_state WHERE tenant_ref = $1 AND collector = 'refreshes' AND key LIKE 'hot:%' ORDER BY key", [tenantRef]);
  return rows.map((r) => r.key);
}

describe('collector: refreshes (admin mode, due schedules)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  /** A tenant scanned at 12:40, then the refreshes collector every INTERVAL until 13:36; when the failure opened (null: not by then). */
  async function scenario(dueReads: boolean, seed: number) {
    const sim = await h.sim({ seed, sizes: { capacities: 1, workspaces: 6, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 60 * 86_400 });
    const { failing, fine } = arrange(sim);
    sim.control.scheduledRefreshes({ on: true });
    sim.control.failScheduledRefresh({ datasetId: failing.id, errorCode: 'ModelRefreshFailed_CredentialsNotSpecified' });
    h.clock.set(new Date('2026-06-15T12:40:00Z'));
    const orgId = await h.org();
    // 1 % of the refreshables endpoint's 200/h: a page every ~33 minutes.
    const tenant = await h.tenant(orgId, sim, { mode: 'admin', capSharePercent: 1, collectors: { refreshes: { intervalSeconds: INTERVAL }, scanner: { intervalSeconds: INTERVAL } } });
    const scanner = h.scheduler({ collectors: [scannerCollector], workerId: `scanner-${seed}` });
    expect(await scanner.pass()).toBe(1);
    expect((await schedule(h, tenant.id, 'scanner')).last_error).toBeNull();
    await scanner.stop();
    const runner = h.scheduler({ collectors: [makeRefreshesCollector({ dueReads })], workerId: `refreshes-${seed}` });
    const perRun: number[] = [];
    let hotAfterSlot: string[] = [];
    while (h.clock.now().getTime() <= SLOT_AT + (INTERVAL + 60) * 1000) {
      const before = sim.countCalls({ operationId: 'Datasets_GetRefreshHistoryInGroup' });
      expect(await runner.pass()).toBe(1);
      expect((await schedule(h, tenant.id, 'refreshes')).last_error).toBeNull();
      perRun.push(sim.countCalls({ operationId: 'Datasets_GetRefreshHistoryInGroup' }) - before);
      if (h.clock.now().getTime() >= SLOT_AT && hotAfterSlot.length === 0) hotAfterSlot = await hotKeys(h, tenant.id);
      h.clock.advance(INTERVAL * 1000);
    }
    await runner.stop();
    expect(sim.violations).toEqual([]);
    return { sim, tenant, failing, fine, opened: await openedAt(h, orgId, failing.id), perRun, hot: await hotKeys(h, tenant.id), fineOpened: await openedAt(h, orgId, fine.id) };
  }

  it('a scheduled refresh that fails is found within interval + 60 s of its slot; the pages alone miss it; a success stops being hot; reads within the share', { timeout: 120_000 }, async () => {
    const on = await scenario(true, 3801);
    expect(on.opened).not.toBeNull();
    expect(on.opened! - SLOT_AT).toBeLessThanOrEqual((INTERVAL + 60) * 1000);
    expect(on.opened! - SLOT_AT).toBeGreaterThanOrEqual(0);
    // Both models were read after their slot (the only latest-refresh reads); a success is no failure and neither stays hot.
    expect(on.fineOpened).toBeNull();
    expect(on.hot).toEqual([]);
    expect(on.sim.countCalls({ operationId: 'Datasets_GetRefreshHistoryInGroup' })).toBeGreaterThanOrEqual(2);
    // Within the share of each run's Power BI budget.
    const share = Math.max(1, Math.floor(runBudget(HOURLY_CAPS.powerbi, POWERBI_SHARE, INTERVAL) * DUE_SHARE));
    expect(Math.max(...on.perRun)).toBeLessThanOrEqual(share);
    expect(on.perRun.slice(0, -2).every((n) => n === 0)).toBe(true);
    const { rows } = await h.ctx.db.query("SELECT message FROM alerts WHERE source_type = 'Dataset' AND source_id = $1", [on.failing.id.toLowerCase()]);
    expect(rows[0].message).toContain('Código do erro: ModelRefreshFailed_CredentialsNotSpecified');

    // The same tenant with the refreshables pages alone: not found by then.
    const off = await scenario(false, 3802);
    expect(off.opened).toBeNull();
    expect(off.sim.countCalls({ operationId: 'Datasets_GetRefreshHistoryInGroup' })).toBe(0);
  });
});

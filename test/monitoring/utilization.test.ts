/**
 * The utilization collector against the strict simulator's Eventhouse: throttling stages open a
 * CapacityThrottled incident naming the stage, the carry-forward, the burn-down and the heaviest
 * items; CapacityHighUtilization above warnPercent; recovery only after recoverWindows calm
 * windows; the ingestion-time cursor (the platform's clock) reads every window once across a restart, a gap and the
 * platform's duplicates; token refused, 403, 429 and a paused capacity.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { utilizationCollector } from '../../src/monitoring/sources/utilization/utilization.js';
import { removeTenant } from '../../src/monitoring/tenant-removal.js';
import { alerts, createHarness, type Harness, schedule } from './harness.js';

describe('collector: utilization (capacity load from the Eventhouse)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  async function setup(utilization: Record<string, unknown> = {}) {
    const sim = await h.sim({ seed: 26, sizes: { capacities: 2, workspaces: 6, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, {
      collectors: { utilization: { intervalSeconds: 30 } },
      utilization: { eventhouse: { queryUri: sim.origin, database: 'CapacityMonitoring', table: 'CapacityEvents' }, ...utilization },
    });
    const cap = sim.state.capacities[0]!;
    const heavy = sim.state.workspaces.find((w) => w.capacityId === cap.id)!.items[1]!;
    return { sim, orgId, tenant, cap, heavy };
  }

  const step = async (runner: ReturnType<Harness['scheduler']>, ms = 60_000) => {
    h.clock.advance(ms);
    return runner.pass();
  };

  async function windowsOf(tenantRef: string, capacityId: string): Promise<string[]> {
    const { rows } = await h.ctx.db.query('SELECT window_start FROM capacity_utilization WHERE tenant_ref = $1 AND capacity_id = $2 ORDER BY window_start', [tenantRef, capacityId.toLowerCase()]);
    return rows.map((r) => new Date(r.window_start).toISOString());
  }

  it('opens CapacityThrottled per stage with carry-forward, burn-down and the heaviest item; recovers after recoverWindows calm windows', async () => {
    const { sim, orgId, tenant, cap, heavy } = await setup();
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    expect(await runner.pass()).toBe(1);
    expect(await alerts(h, orgId)).toEqual([]);

    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveDelay', heavyItemId: heavy.id });
    await step(runner);
    let found = await alerts(h, orgId, 'Capacity');
    const throttled = found.find((a) => a.notification_kind === 'CapacityThrottled')!;
    expect(throttled).toMatchObject({ source_id: cap.id.toLowerCase(), capacity_name: cap.displayName, severity: 'error', status: 'open', failure_count: 1 });
    expect(throttled.message).toContain('em atraso interativo');
    expect(throttled.message).toContain('Carry-forward:');
    expect(throttled.message).toMatch(/Queima prevista|com a capacidade ociosa/);
    expect(throttled.message).toContain(`Itens com mais CU na última meia hora: ${heavy.displayName}`);
    expect(found.find((a) => a.notification_kind === 'CapacityHighUtilization')).toMatchObject({ severity: 'info', status: 'open' });

    // A worse stage while open: the same incident, a reoccurrence naming the new stage.
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveRejection', heavyItemId: heavy.id });
    await step(runner);
    found = await alerts(h, orgId, 'Capacity');
    expect(found.filter((a) => a.notification_kind === 'CapacityThrottled')).toMatchObject([{ status: 'open', failure_count: 2 }]);

    sim.control.capacityLoad({ capacityId: cap.id, stage: 'backgroundRejection', heavyItemId: heavy.id });
    await step(runner);
    expect((await alerts(h, orgId, 'Capacity')).find((a) => a.notification_kind === 'CapacityThrottled')!.failure_count).toBe(3);
    // Each occurrence's message names its stage (the incident keeps its first; the events keep each).
    const { rows: events } = await h.ctx.db.query(
      `SELECT e.snapshot FROM alert_events e JOIN alerts a ON a.id = e.alert_id WHERE a.org_id = $1 AND a.notification_kind = 'CapacityThrottled' ORDER BY e.seq`,
      [orgId],
    );
    expect(JSON.stringify(events)).toContain('em atraso interativo');

    // Back to normal: 40 s later no calm window is in yet (the first is ingested 45 s after it starts) — still open (recoverWindows 4).
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'normal', clearCarryForward: true });
    await step(runner, 40_000);
    expect((await alerts(h, orgId, 'Capacity')).every((a) => a.status === 'open')).toBe(true);
    // Three calm windows in: still open.
    await step(runner, 90_000);
    expect((await alerts(h, orgId, 'Capacity')).every((a) => a.status === 'open')).toBe(true);
    await step(runner, 30_000);
    found = await alerts(h, orgId, 'Capacity');
    expect(found.map((a) => [a.notification_kind, a.status]).sort().reverse()).toEqual([
      ['CapacityThrottled', 'resolved'],
      ['CapacityHighUtilization', 'resolved'],
    ]);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it('a capacity hovering around 100 % keeps one incident (no flapping); overrides per capacity name apply', async () => {
    const { sim, orgId, cap } = await setup({ recoverWindows: 2 });
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    for (let i = 0; i < 3; i++) {
      sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveDelay' });
      await step(runner, 30_000);
      sim.control.capacityLoad({ capacityId: cap.id, stage: 'normal', clearCarryForward: true });
      await step(runner, 30_000);
    }
    await step(runner, 30_000);
    // With recoverWindows 2 a single calm window between throttled ones never recovers it.
    const throttled = (await alerts(h, orgId, 'Capacity')).filter((a) => a.notification_kind === 'CapacityThrottled');
    expect(throttled).toHaveLength(1);
    expect(throttled[0].failure_count).toBe(1);

    // warnPercent of this capacity only: 10 % puts its normal load over the warning.
    const other = sim.state.capacities[1]!;
    const h2 = await setup({ overrides: { [other.displayName]: { warnPercent: 10 } } });
    const runner2 = h.scheduler({ collectors: [utilizationCollector] });
    await runner2.pass();
    const high = (await alerts(h, h2.orgId, 'Capacity')).filter((a) => a.notification_kind === 'CapacityHighUtilization');
    expect(high.map((a) => a.capacity_name)).toEqual([other.displayName]);
    expect(sim.violations).toEqual([]);
    expect(h2.sim.violations).toEqual([]);
  });

  it('reads every window exactly once across a restart, a long gap between runs and duplicate events', async () => {
    const { sim, tenant, cap } = await setup();
    const first = h.scheduler({ collectors: [utilizationCollector] });
    await first.pass();
    sim.control.capacityEvents({ capacityId: cap.id, duplicate: 6 });
    await step(first);
    await first.stop();
    // No run for 2.5 hours (more than one query's span); a new instance takes over.
    h.clock.advance(150 * 60_000);
    const second = h.scheduler({ collectors: [utilizationCollector] });
    expect(await second.pass()).toBe(1);
    const w = await windowsOf(tenant.id, cap.id);
    // Contiguous: no window skipped, none stored twice (the primary key would refuse it anyway,
    // so the count is what proves the reading: every 30 s from the first to the last).
    const span = (Date.parse(w.at(-1)!) - Date.parse(w[0]!)) / 30_000 + 1;
    expect(w.length).toBe(span);
    expect(new Set(w).size).toBe(w.length);
    // The last window read is the newest ingested one (settled), i.e. nothing left behind.
    const now = h.clock.now().getTime();
    expect(Date.parse(w.at(-1)!)).toBeGreaterThan(now - 30_000 - 15_000 - 10_000 - 30_000);
    // The 2.5 h gap is one query (rows after the newest ingestion time read, oldest first, a page at a time).
    expect(sim.countCalls({ family: 'kusto' })).toBe(2 + 1);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it('a gap in the events is not calm: dropped windows neither recover an incident nor get invented', async () => {
    const { sim, orgId, tenant, cap } = await setup({ recoverWindows: 3 });
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveDelay' });
    await step(runner);
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'normal', clearCarryForward: true });
    sim.control.capacityEvents({ capacityId: cap.id, drop: 6 });
    await step(runner, 150_000);
    // Five minutes of calm load, but no event arrived: the incident stays open.
    expect((await alerts(h, orgId, 'Capacity')).find((a) => a.notification_kind === 'CapacityThrottled')!.status).toBe('open');
    await step(runner, 180_000);
    expect((await alerts(h, orgId, 'Capacity')).find((a) => a.notification_kind === 'CapacityThrottled')!.status).toBe('resolved');
    const w = await windowsOf(tenant.id, cap.id);
    const span = (Date.parse(w.at(-1)!) - Date.parse(w[0]!)) / 30_000 + 1;
    expect(span - w.length).toBe(6);
    expect(sim.violations).toEqual([]);
  });

  it('a duplicate of a throttled window arriving in a later run is not a second occurrence', async () => {
    const { sim, orgId, cap } = await setup();
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    sim.control.capacityEvents({ capacityId: cap.id, duplicate: 4 });
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveDelay' });
    // The first copies arrive in this run, their duplicates (40 s later) in the next ones.
    await step(runner, 30_000);
    await step(runner, 30_000);
    await step(runner, 30_000);
    await step(runner, 30_000);
    const throttled = (await alerts(h, orgId, 'Capacity')).filter((a) => a.notification_kind === 'CapacityThrottled');
    expect(throttled).toMatchObject([{ status: 'open', failure_count: 1 }]);
    expect(sim.violations).toEqual([]);
  });

  it('token refused, database forbidden (403) and a query throttled (429) are the run\'s error or waited out; nothing is skipped', async () => {
    const { sim, tenant, cap } = await setup();
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    const before = (await windowsOf(tenant.id, cap.id)).length;

    sim.control.eventhouseForbidden({ on: true });
    await step(runner);
    let row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toMatch(/403/);
    expect(row.problem_kind).toBe('TenantAccessDenied');
    sim.control.eventhouseForbidden({ on: false });

    sim.control.throttle({ family: 'kusto', count: 2, retryAfterSeconds: 0 });
    await step(runner);
    row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toBeNull();
    expect(row.last_throttled_calls).toBe(2);
    // The window of the failed run was read by the next one.
    expect((await windowsOf(tenant.id, cap.id)).length).toBe(before + 4);

    sim.control.refuseTokens({ on: true });
    // A new connection version: msal's cached token is dropped.
    await h.ctx.db.query('UPDATE tenants SET updated_at = updated_at + interval \'1 second\' WHERE id = $1', [tenant.id]);
    await step(runner);
    row = await schedule(h, tenant.id, 'utilization');
    expect(row.last_error).toMatch(/refused the credentials/);
    expect(row.problem_kind).toBe('TenantAuthFailed');
    expect(sim.violations).toEqual([]);
  });

  it('a paused capacity: its throttling ends (the carry-forward is billed), and no event is not read as idle', async () => {
    const { sim, orgId, tenant, cap } = await setup();
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    await runner.pass();
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveRejection' });
    await step(runner);
    expect((await alerts(h, orgId, 'Capacity')).map((a) => a.status)).toEqual(['open', 'open']);
    sim.control.capacityState({ capacityId: cap.id, state: 'Paused' });
    await step(runner);
    const found = await alerts(h, orgId, 'Capacity');
    expect(found.map((a) => [a.notification_kind, a.status]).sort().reverse()).toEqual([
      ['CapacityThrottled', 'resolved'],
      ['CapacityHighUtilization', 'resolved'],
    ]);
    const count = (await windowsOf(tenant.id, cap.id)).length;
    await step(runner, 10 * 60_000);
    expect((await windowsOf(tenant.id, cap.id)).length).toBe(count);
    expect((await alerts(h, orgId, 'Capacity')).length).toBe(2);
    expect(sim.violations).toEqual([]);
  });

  it('a connection without a source makes no call; deleting a connection resolves its capacities\' incidents', async () => {
    const { sim, orgId, tenant, cap } = await setup();
    const quiet = await h.tenant(orgId, sim, { name: 'No source', collectors: { utilization: { intervalSeconds: 30 } } });
    const runner = h.scheduler({ collectors: [utilizationCollector] });
    expect(await runner.pass()).toBe(2);
    expect((await schedule(h, quiet.id, 'utilization')).last_calls).toBe(0);
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveDelay' });
    await step(runner);
    expect((await alerts(h, orgId, 'Capacity')).map((a) => a.status)).toEqual(['open', 'open']);
    await removeTenant(h.ctx, orgId, tenant.id);
    expect((await alerts(h, orgId, 'Capacity')).map((a) => a.status)).toEqual(['resolved', 'resolved']);
    expect(sim.violations).toEqual([]);
  });
});

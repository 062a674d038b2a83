/**
 * Root causes: a job failure on a capacity whose CapacityThrottled incident is open is correlated
 * to it (held, not paged), as failures behind an offline gateway or a suspended capacity are; it
 * is released when the throttling ends and the failure outlives it — and the high-utilization
 * warning, still open at 80 %, does not hold it back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobsCollector } from '../../src/monitoring/sources/jobs/jobs.js';
import { utilizationCollector } from '../../src/monitoring/sources/utilization/utilization.js';
import { createHarness, type Harness } from './harness.js';

describe('root causes: a throttled capacity', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('correlates a job failure to the open CapacityThrottled incident and releases it when the throttling ends', async () => {
    const sim = await h.sim({ seed: 261, sizes: { capacities: 1, workspaces: 1, gateways: 0, runnableItems: 3 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    const capacity = sim.state.capacities[0]!;
    sim.control.capacityState({ capacityId: capacity.id, state: 'Active' });
    sim.state.workspaces[0]!.capacityId = capacity.id;
    const orgId = await h.org();
    await h.tenant(orgId, sim, {
      collectors: { jobs: { intervalSeconds: 30 }, utilization: { intervalSeconds: 30 } },
      utilization: { eventhouse: { queryUri: sim.origin, database: 'CapacityMonitoring', table: 'CapacityEvents' }, warnPercent: 20 },
    });
    const pipeline = sim.state.workspaces[0]!.items.filter((i) => i.type === 'DataPipeline').at(-1)!;
    sim.control.jobResult({ itemId: pipeline.id, status: 'Completed' });
    const load = h.scheduler({ collectors: [utilizationCollector] });
    const jobs = h.scheduler({ collectors: [jobsCollector] });
    await load.pass();
    await jobs.pass();

    sim.control.capacityLoad({ capacityId: capacity.id, stage: 'backgroundRejection' });
    h.clock.advance(60_000);
    await load.pass();
    sim.control.jobResult({ itemId: pipeline.id, status: 'Failed', errorCode: 'CapacityLimitExceeded' });
    await jobs.pass();
    const jobAlert = async () =>
      (await h.ctx.db.query("SELECT id, status, correlated, suppressed, released_at FROM alerts WHERE org_id = $1 AND source_type = 'FabricJob'", [orgId])).rows[0];
    const failed = await jobAlert();
    expect(failed).toMatchObject({ status: 'open', correlated: true, suppressed: true, released_at: null });
    const events = async () => (await h.ctx.db.query('SELECT event FROM alert_events WHERE alert_id = $1 ORDER BY created_at', [failed.id])).rows.map((r) => r.event);
    expect(await events()).toEqual([]);

    // The throttling ends (4 calm windows); the load warning (warnPercent 20) stays open.
    sim.control.capacityLoad({ capacityId: capacity.id, stage: 'normal', clearCarryForward: true });
    h.clock.advance(150_000);
    await load.pass();
    const { rows: capacityAlerts } = await h.ctx.db.query("SELECT notification_kind, status FROM alerts WHERE org_id = $1 AND source_type = 'Capacity' ORDER BY notification_kind", [orgId]);
    expect(capacityAlerts).toEqual([
      { notification_kind: 'CapacityHighUtilization', status: 'open' },
      { notification_kind: 'CapacityThrottled', status: 'resolved' },
    ]);
    expect(await jobAlert()).toMatchObject({ status: 'open', suppressed: false, released_at: expect.any(Date) });
    expect(await events()).toEqual(['alert.opened']);
    expect(sim.violations).toEqual([]);
  });
});

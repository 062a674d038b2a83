/**
 * Rotation visibility: a collector that rotates through its resources with pickForRun (the test
 * collector below, a real Collector run by the engine) keeps its RotationState under
 * ROTATION_KEY; the admin API's tenant view and /metrics then show, per (tenant, collector), how
 * long the last full rotation took and how many resources are hot and cold, and what the last
 * run read and left due (lastPolled, lastDeferred).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Collector } from '../../src/monitoring/engine/collector.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import { registerMonitoringMetrics } from '../../src/monitoring/metrics.js';
import { ROTATION_KEY, pickForRun, type RotationState } from '../../src/monitoring/engine/rotation.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { insertOrg } from './support.js';

/** Ten pretend models, the first two scheduled (hot); four polls per run, so the eight cold ones take four runs. */
const MODELS = Array.from({ length: 10 }, (_, i) => ({ id: `model-${String(i).padStart(2, '0')}`, scheduled: i < 2 }));

const rotatingCollector: Collector = {
  name: 'jobs',
  async run(run) {
    const pick = pickForRun(MODELS, {
      key: (m) => m.id,
      isHot: (m) => m.scheduled,
      budget: 4,
      state: run.state.get(ROTATION_KEY) as RotationState | undefined,
      now: run.ctx.clock.now(),
    });
    run.reportProgress({ polled: pick.poll.length, deferred: pick.skippedHot });
    await run.commit([], [{ key: ROTATION_KEY, value: pick.next }]);
  },
};

describe('rotation visibility', () => {
  let t: TestApp;
  let sim: TenantSim;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
    sim = await startSim({ seed: 43, sizes: { capacities: 1, workspaces: 2 } });
    registerMonitoringMetrics(t.ctx);
  });
  afterAll(async () => {
    await sim.stop();
    await t.close();
  });

  it('the tenant view and /metrics show the last full rotation and the hot/cold counts of a rotating collector', async () => {
    const orgId = await insertOrg(t.ctx);
    const off = { enabled: false };
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Large',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
      collectors: { inventory: off, capacity: off, gateway: off, costs: off, jobs: { enabled: true, intervalSeconds: 60 } },
    });
    expect(res.statusCode).toBe(201);
    const tenant = res.json();
    const jobsOf = async () => (await t.admin('GET', `/orgs/${orgId}/tenants/${tenant.id}`)).json().collectors.find((c: { name: string }) => c.name === 'jobs');
    expect((await jobsOf()).rotation).toBeNull();
    expect(await jobsOf()).toMatchObject({ lastPolled: null, lastDeferred: null });
    expect(tenant.collectors.find((c: { name: string }) => c.name === 'capacity').rotation).toBeNull();

    const runner = new CollectorScheduler(t.ctx, { collectors: [rotatingCollector], pollMs: 60_000 });
    try {
      // Run 1 starts the first rotation, which ends in run 4 (slices of two cold models).
      for (let run = 1; run <= 3; run++) {
        expect(await runner.pass()).toBe(1);
        clock.advance(60_000);
      }
      expect((await jobsOf()).rotation).toEqual({ lastFullRotationSeconds: null, hot: 2, cold: 8 });
      expect(await runner.pass()).toBe(1);
      clock.advance(60_000);
      expect((await jobsOf()).rotation).toEqual({ lastFullRotationSeconds: 180, hot: 2, cold: 8 });
      // Runs 5–8: the next rotation, from run 4's end to run 8's end — four intervals.
      for (let run = 5; run <= 8; run++) {
        expect(await runner.pass()).toBe(1);
        clock.advance(60_000);
      }
    } finally {
      await runner.stop();
    }
    const jobs = await jobsOf();
    expect(jobs.rotation).toEqual({ lastFullRotationSeconds: 240, hot: 2, cold: 8 });
    // What the last run read and left: four models, nothing due left over.
    expect(jobs).toMatchObject({ lastPolled: 4, lastDeferred: 0 });
    const list = (await t.admin('GET', `/orgs/${orgId}/tenants`)).json();
    expect(list.value[0].collectors.find((c: { name: string }) => c.name === 'jobs').rotation).toEqual(jobs.rotation);

    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const labels = `org="${orgId}",tenant="${tenant.id}",collector="jobs"`;
    expect(metrics).toContain(`vigia_collector_rotation_seconds{${labels}} 240`);
    expect(metrics).toContain(`vigia_collector_rotation_resources{${labels},kind="hot"} 2`);
    expect(metrics).toContain(`vigia_collector_rotation_resources{${labels},kind="cold"} 8`);
    expect(metrics).toContain(`vigia_collector_last_polled_resources{${labels}} 4`);
    expect(metrics).toContain(`vigia_collector_last_deferred_resources{${labels}} 0`);
    // Collectors that do not rotate report no rotation.
    expect(metrics).not.toMatch(new RegExp(`vigia_collector_rotation_seconds\\{org="${orgId}",tenant="${tenant.id}",collector="capacity"`));
  });

  it("another organization's tenant view does not show this rotation", async () => {
    const other = await insertOrg(t.ctx, 'Other');
    const res = await t.admin('GET', `/orgs/${other}/tenants`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ value: [] });
  });
});

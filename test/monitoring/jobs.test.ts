/**
 * The jobs collector against the tenant simulator: a failed run opens FabricJob / JobFailed with
 * its failureReason, further failures reoccur, the next completed run recovers, cancelled and
 * deduped runs change nothing, a run in progress is counted once when it ends (also across a
 * restart), a failure on a suspended capacity is correlated to the capacity's incident (no
 * delivery while it is open, released when it outlives it), and the rotation polls the items
 * that ran recently or have a schedule every run and the others in turns, within the budget.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { JOBS_SHARE, jobsCollector } from '../../src/monitoring/sources/jobs/jobs.js';
import { HOURLY_CAPS } from '../../src/monitoring/platform/budget.js';
import { readLineage } from '../../src/monitoring/lineage/lineage.js';
import { runBudget } from '../../src/monitoring/platform/run-budget.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import type { SimItem, SimWorkspace } from '../../src/tenant-sim/types.js';
import { createHarness, schedule, type Harness } from './harness.js';

const INTERVAL = 300;

describe('collector: jobs', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  const simFor = (seed: number, sizes: Record<string, number>) => h.sim({ seed, sizes: { capacities: 1, gateways: 0, ...sizes }, now: () => h.clock.now().getTime() });
  const item = (sim: TenantSim, type: SimItem['type'], nth = 0) => sim.state.workspaces.flatMap((w) => w.items).filter((i) => i.type === type)[nth]!;
  const jobAlerts = async (orgId: string, sourceId: string) => {
    const { rows } = await h.ctx.db.query(
      `SELECT id, source_id, source_name, notification_kind, severity, status, failure_count, workspace_name, capacity_name, message, correlated, suppressed, released_at
         FROM alerts WHERE org_id = $1 AND source_type = 'FabricJob' AND source_id = $2 ORDER BY created_at, id`,
      [orgId, sourceId],
    );
    return rows;
  };
  const tick = async (runner: { pass(): Promise<unknown> }, seconds = INTERVAL) => {
    h.clock.advance(seconds * 1000);
    await runner.pass();
  };

  it('opens on a failed run, reoccurs on each further failure, recovers on the next completed run; cancelled and deduped change nothing', async () => {
    const sim = await simFor(181, { workspaces: 2, runnableItems: 5 });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { jobs: { intervalSeconds: INTERVAL } } });
    const spark = item(sim, 'SparkJobDefinition');
    const copy = item(sim, 'CopyJob');
    for (const i of [spark, copy]) sim.control.jobResult({ itemId: i.id, status: 'Completed' });
    const runner = h.scheduler({ collectors: [jobsCollector] });
    await runner.pass();
    expect((await schedule(h, tenant.id, 'jobs')).last_error).toBeNull();
    expect(await jobAlerts(orgId, spark.id)).toEqual([]);

    h.clock.advance(1_000);
    sim.control.jobResult({ itemId: spark.id, status: 'Failed', errorCode: 'SparkJobFailed' });
    await tick(runner);
    const ws = sim.state.workspaces.find((w) => w.id === spark.workspaceId)!;
    const capacity = sim.state.capacities.find((c) => c.id === ws.capacityId);
    expect(await jobAlerts(orgId, spark.id)).toMatchObject([
      {
        source_name: spark.displayName,
        notification_kind: 'JobFailed',
        severity: 'error',
        status: 'open',
        failure_count: 1,
        workspace_name: ws.name,
        capacity_name: capacity?.displayName ?? null,
        correlated: false,
        message: expect.stringContaining('SparkJobFailed: Spark job failed'),
      },
    ]);

    h.clock.advance(1_000);
    sim.control.jobResult({ itemId: spark.id, status: 'Failed', errorCode: 'RequestExecutionFailed' });
    h.clock.advance(1_000);
    sim.control.jobResult({ itemId: spark.id, status: 'Cancelled' });
    h.clock.advance(1_000);
    sim.control.jobResult({ itemId: spark.id, status: 'Deduped' });
    await tick(runner);
    expect(await jobAlerts(orgId, spark.id)).toMatchObject([{ status: 'open', failure_count: 2 }]);

    // Cancelled and Deduped neither fail nor recover, on an open incident or on a healthy item.
    for (const i of [spark, copy]) {
      sim.control.jobResult({ itemId: i.id, status: 'Cancelled' });
      h.clock.advance(1_000);
      sim.control.jobResult({ itemId: i.id, status: 'Deduped' });
    }
    await tick(runner);
    expect(await jobAlerts(orgId, spark.id)).toMatchObject([{ status: 'open', failure_count: 2 }]);
    expect(await jobAlerts(orgId, copy.id)).toEqual([]);

    h.clock.advance(1_000);
    sim.control.jobResult({ itemId: spark.id, status: 'Completed' });
    await tick(runner);
    expect(await jobAlerts(orgId, spark.id)).toMatchObject([{ status: 'resolved', failure_count: 2 }]);

    // The placement went into the lineage: item → workspace → capacity.
    const lineage = await readLineage(h.ctx.db, tenant.id);
    expect(lineage.get(spark.id)).toMatchObject({ itemType: 'SparkJobDefinition', workspaceId: ws.id, capacityId: ws.capacityId?.toLowerCase() ?? null });
    expect((await schedule(h, tenant.id, 'jobs')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it('counts a run that spans polls once, also across a restart, and misses none that finishes after a newer one', async () => {
    const sim = await simFor(182, { workspaces: 1, runnableItems: 5 });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { jobs: { intervalSeconds: INTERVAL } } });
    const flow = item(sim, 'Dataflow');
    sim.control.jobResult({ itemId: flow.id, status: 'Completed' });
    h.clock.advance(1_000);
    sim.control.jobResult({ itemId: flow.id, status: 'InProgress' });
    const runner = h.scheduler({ collectors: [jobsCollector] });
    await runner.pass();
    await tick(runner);
    expect(await jobAlerts(orgId, flow.id)).toEqual([]);

    sim.control.finishJob({ itemId: flow.id, status: 'Failed', errorCode: 'DataflowRefreshFailed' });
    await tick(runner);
    await tick(runner);
    expect(await jobAlerts(orgId, flow.id)).toMatchObject([{ status: 'open', failure_count: 1, message: expect.stringContaining('DataflowRefreshFailed') }]);

    // A restart: a new scheduler reads the remembered cursor; nothing is counted again.
    await runner.stop();
    const restarted = h.scheduler({ collectors: [jobsCollector] });
    await tick(restarted);
    expect(await jobAlerts(orgId, flow.id)).toMatchObject([{ status: 'open', failure_count: 1 }]);

    // An older run still in progress ends after a newer one completed: both count, in order of ending.
    h.clock.advance(1_000);
    sim.control.jobResult({ itemId: flow.id, status: 'InProgress' });
    h.clock.advance(1_000);
    sim.control.jobResult({ itemId: flow.id, status: 'Completed' });
    const older = flow.jobs[1]!;
    expect(older.status).toBe('InProgress');
    await tick(restarted);
    expect(await jobAlerts(orgId, flow.id)).toMatchObject([{ status: 'resolved', failure_count: 1 }]);
    older.status = 'Failed';
    older.endTimeUtc = h.clock.now().toISOString();
    older.failureReason = { errorCode: 'JobInstanceStatusFailed', message: 'Job instance failed without detail error.' };
    await tick(restarted);
    const after = await jobAlerts(orgId, flow.id);
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({ status: 'open', failure_count: 1, message: expect.stringContaining('JobInstanceStatusFailed') });
    await tick(restarted);
    expect((await jobAlerts(orgId, flow.id))[1]).toMatchObject({ status: 'open', failure_count: 1 });
    expect((await schedule(h, tenant.id, 'jobs')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it('names the suspended capacity as the cause: no delivery while it is open, released when the failure outlives it', async () => {
    const sim = await simFor(183, { workspaces: 1, runnableItems: 5 });
    sim.state.workspaces[0]!.capacityId = sim.state.capacities[0]!.id;
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: INTERVAL }, jobs: { intervalSeconds: INTERVAL } } });
    const pipeline = item(sim, 'DataPipeline', sim.state.workspaces[0]!.items.filter((i) => i.type === 'DataPipeline').length - 1);
    sim.control.jobResult({ itemId: pipeline.id, status: 'Completed' });
    const capacities = h.scheduler({ collectors: [capacityCollector] });
    const jobs = h.scheduler({ collectors: [jobsCollector] });
    await capacities.pass();
    await jobs.pass();
    expect(await jobAlerts(orgId, pipeline.id)).toEqual([]);

    const capacity = sim.state.capacities[0]!;
    sim.control.capacityState({ capacityId: capacity.id, state: 'Suspended' });
    await tick(capacities);
    h.clock.advance(1_000);
    sim.control.jobResult({ itemId: pipeline.id, status: 'Failed', errorCode: 'CapacityNotActive' });
    await tick(jobs);
    const [failed] = await jobAlerts(orgId, pipeline.id);
    expect(failed).toMatchObject({ status: 'open', correlated: true, suppressed: true, released_at: null, capacity_name: capacity.displayName });
    const events = async () => (await h.ctx.db.query('SELECT event FROM alert_events WHERE alert_id = $1 ORDER BY created_at', [failed.id])).rows.map((r) => r.event);
    expect(await events()).toEqual([]);
    const { rows: capacityAlerts } = await h.ctx.db.query("SELECT status FROM alerts WHERE org_id = $1 AND source_type = 'Capacity'", [orgId]);
    expect(capacityAlerts).toEqual([{ status: 'open' }]);

    // The capacity is back, the pipeline has not run again: the failure outlives its cause.
    sim.control.capacityState({ capacityId: capacity.id, state: 'Active' });
    await tick(capacities);
    expect((await jobAlerts(orgId, pipeline.id))[0]).toMatchObject({ status: 'open', suppressed: false, released_at: expect.any(Date) });
    expect(await events()).toEqual(['alert.opened']);
    expect((await schedule(h, tenant.id, 'jobs')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it('polls the items that ran recently or have a schedule every run and the others in turns, within the budget', async () => {
    const interval = 20;
    const budget = runBudget(HOURLY_CAPS.fabric, JOBS_SHARE, interval);
    const sim = await simFor(184, { workspaces: 4, runnableItems: 6 });
    const orgId = await h.org();
    await h.tenant(orgId, sim, { collectors: { jobs: { intervalSeconds: interval } } });
    const runnable = sim.state.workspaces.flatMap((w) => w.items).filter((i) => i.jobs.length > 0 || i.schedules);
    const polls = (i: SimItem) => sim.countCalls({ path: `/v1/workspaces/${i.workspaceId}/items/${i.id}/jobs/instances` });
    const instanceCalls = () => sim.countCalls({ path: /\/jobs\/instances$/ });
    const runner = h.scheduler({ collectors: [jobsCollector] });

    // Warm up until every schedule was read once and every item was polled once.
    for (let n = 0; n < 2 * runnable.length && !(runnable.every((i) => polls(i) > 0) && sim.countCalls({ path: /\/schedules$/ }) >= runnable.length); n++) {
      const calls = instanceCalls();
      await tick(runner, interval);
      expect(instanceCalls() - calls).toBeLessThanOrEqual(budget);
    }
    expect(runnable.every((i) => polls(i) > 0)).toBe(true);

    // One item that took turns runs now: it is polled every run once its turn has seen that.
    const nowMs = h.clock.now().getTime();
    const recent = (i: SimItem) => i.jobs.some((j) => nowMs - Date.parse(j.startTimeUtc) < 86_400_000);
    const scheduled = (i: SimItem) => (i.schedules ? i.schedules.some((s) => s.enabled) : i.jobs.length > 0);
    const hot = runnable.filter((i) => recent(i) || scheduled(i));
    const cold = runnable.filter((i) => !hot.includes(i));
    expect(hot.length).toBeGreaterThan(0);
    expect(cold.length).toBeGreaterThan(budget - hot.length);

    const before = new Map(runnable.map((i) => [i.id, polls(i)]));
    const runs = 3;
    for (let n = 0; n < runs; n++) {
      const calls = instanceCalls();
      await tick(runner, interval);
      expect(instanceCalls() - calls).toBeLessThanOrEqual(budget);
    }
    for (const i of hot) expect(polls(i) - before.get(i.id)!).toBe(runs);
    for (const i of cold) expect(polls(i) - before.get(i.id)!).toBeLessThan(runs);
    expect(cold.reduce((n, i) => n + polls(i) - before.get(i.id)!, 0)).toBeGreaterThan(0);

    const rotation = (await h.ctx.db.query("SELECT value FROM collector_state WHERE collector = 'jobs' AND key = 'rotation' AND tenant_ref IN (SELECT id FROM tenants WHERE org_id = $1)", [orgId])).rows[0]?.value;
    expect(rotation).toMatchObject({ hot: hot.length, cold: cold.length });
    expect(rotation.lastFullRotationSeconds).toBeGreaterThan(0);
    expect(sim.violations).toEqual([]);
  });

  it('lets the hot items take turns too when they alone exceed the budget, without starving the others', async () => {
    const interval = 5;
    const budget = runBudget(HOURLY_CAPS.fabric, JOBS_SHARE, interval);
    const sim = await simFor(185, { workspaces: 4, runnableItems: 6 });
    const orgId = await h.org();
    await h.tenant(orgId, sim, { collectors: { jobs: { intervalSeconds: interval } } });
    const runnable = sim.state.workspaces.flatMap((w) => w.items).filter((i) => i.jobs.length > 0 || i.schedules);
    const polls = (i: SimItem) => sim.countCalls({ path: `/v1/workspaces/${i.workspaceId}/items/${i.id}/jobs/instances` });
    const fabricCalls = () => sim.countCalls({ family: 'fabric' });
    const runner = h.scheduler({ collectors: [jobsCollector] });
    // Until every schedule was read (one a run at this budget) and a bit more.
    for (let n = 0; n < runnable.length + 10; n++) {
      const calls = fabricCalls();
      await tick(runner, interval);
      // The first run also lists the capacities.
      expect(fabricCalls() - calls).toBeLessThanOrEqual(budget + (n === 0 ? 1 : 0));
    }
    const nowMs = h.clock.now().getTime();
    const hot = runnable.filter((i) => (i.schedules ? i.schedules.some((x) => x.enabled) : i.jobs.length > 0) || i.jobs.some((j) => nowMs - Date.parse(j.startTimeUtc) < 86_400_000));
    expect(hot.length).toBeGreaterThan(budget);
    const before = new Map(runnable.map((i) => [i.id, polls(i)]));
    for (let n = 0; n < hot.length; n++) await tick(runner, interval);
    for (const i of hot) expect(polls(i) - before.get(i.id)!).toBeGreaterThan(0);
    const cold = runnable.filter((i) => !hot.includes(i));
    expect(cold.reduce((n, i) => n + polls(i) - before.get(i.id)!, 0)).toBeGreaterThan(0);
    expect(sim.violations).toEqual([]);
  });

  it('lists items per workspace in member mode, and skips items whose jobs the principal may not read in admin mode', async () => {
    const sim = await simFor(186, { workspaces: 2, runnableItems: 5 });
    const [mine, other] = sim.state.workspaces as [SimWorkspace, SimWorkspace];
    const notebook = mine.items.filter((i) => i.type === 'Notebook').at(-1)!;
    const hidden = other.items.find((i) => i.type === 'CopyJob')!;
    sim.control.workspaceMembership({ workspaceId: other.id, member: false });
    sim.control.jobResult({ itemId: notebook.id, status: 'Completed' });
    sim.control.jobResult({ itemId: hidden.id, status: 'Completed' });

    const memberOrg = await h.org();
    const member = await h.tenant(memberOrg, sim, { mode: 'member', collectors: { jobs: { intervalSeconds: INTERVAL } } });
    const adminOrg = await h.org();
    const admin = await h.tenant(adminOrg, sim, { collectors: { jobs: { intervalSeconds: INTERVAL } } });
    const runner = h.scheduler({ collectors: [jobsCollector] });
    await runner.pass();
    expect(sim.countCalls({ path: `/v1/workspaces/${mine.id}/items` })).toBeGreaterThan(0);
    expect(sim.countCalls({ path: '/v1/admin/items' })).toBe(1);
    // Its schedule read is refused (403): it is not polled.
    const hiddenCalls = () => sim.countCalls({ path: `/v1/workspaces/${other.id}/items/${hidden.id}/` });
    expect(hiddenCalls()).toBe(1);
    expect(sim.countCalls({ path: `/v1/workspaces/${other.id}/items/${hidden.id}/`, status: 403 })).toBe(1);

    h.clock.advance(1_000);
    sim.control.jobResult({ itemId: notebook.id, status: 'Failed', errorCode: 'JobInstanceStatusFailed' });
    sim.control.jobResult({ itemId: hidden.id, status: 'Failed' });
    await tick(runner);
    await tick(runner);
    for (const orgId of [memberOrg, adminOrg]) {
      expect(await jobAlerts(orgId, notebook.id)).toMatchObject([{ status: 'open', source_name: notebook.displayName, workspace_name: mine.name }]);
      expect(await jobAlerts(orgId, hidden.id)).toEqual([]);
    }
    // Refused once, the hidden item waits for the next hourly list.
    expect(hiddenCalls()).toBe(1);
    for (const t of [member, admin]) expect((await schedule(h, t.id, 'jobs')).last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });
});

// @engine-neutral: the tenant simulator alone, no database
/**
 * The simulator's runnable items: the `runnableItems` size adds Spark job definitions, dataflows,
 * copy jobs, pipelines and notebooks without changing what a seed generated before; their
 * schedules answer per job type; `finishJob` and `jobSchedule` work in process and over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTenant, DEFAULT_SIZES } from '../../src/tenant-sim/generate.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { call, msalToken, SCOPES, startSim } from './helpers.js';

const NOW = Date.parse('2026-06-15T12:00:00Z');

describe('tenant simulator: runnable items', () => {
  let sim: TenantSim;
  let token: string;
  beforeAll(async () => {
    sim = await startSim({ seed: 77, sizes: { workspaces: 2, gateways: 1, runnableItems: 5 }, now: () => NOW });
    token = await msalToken(sim, SCOPES.fabric);
  });
  afterAll(() => sim.stop());

  it('adds runnable items behind the new size and leaves the rest of a seed as it was', () => {
    const sizes = { ...DEFAULT_SIZES, workspaces: 3 };
    const before = generateTenant({ seed: 9, sizes, tenantId: 't', now: NOW });
    const after = generateTenant({ seed: 9, sizes: { ...sizes, runnableItems: 5 }, tenantId: 't', now: NOW });
    expect(after.capacities).toEqual(before.capacities);
    expect(after.gateways).toEqual(before.gateways);
    expect(after.costs).toEqual(before.costs);
    after.workspaces.forEach((w, n) => {
      expect(w.items.slice(0, 2)).toEqual(before.workspaces[n]!.items);
      expect(w.items.slice(2).map((i) => i.type).sort()).toEqual(['CopyJob', 'DataPipeline', 'Dataflow', 'Notebook', 'SparkJobDefinition']);
    });
    expect(generateTenant({ seed: 9, sizes: { ...sizes, runnableItems: 5 }, tenantId: 't', now: NOW })).toEqual(after);
  });

  it('answers schedules per job type, and ends or schedules a run on request', async () => {
    const spark = sim.state.workspaces[0]!.items.find((i) => i.type === 'SparkJobDefinition')!;
    const base = `/v1/workspaces/${spark.workspaceId}/items/${spark.id}`;
    expect((await call(sim, 'POST', '/_sim/jobSchedule', { body: { itemId: spark.id, enabled: true } })).status).toBe(200);
    const schedules = await call(sim, 'GET', `${base}/jobs/sparkjob/schedules`, { token });
    expect(schedules.json).toMatchObject({ value: [{ enabled: true }] });
    expect((await call(sim, 'GET', `${base}/jobs/Pipeline/schedules`, { token })).json).toMatchObject({ value: [] });

    sim.control.jobResult({ itemId: spark.id, status: 'InProgress' });
    expect((await call(sim, 'POST', '/_sim/finishJob', { body: { itemId: spark.id, status: 'Failed', errorCode: 'SparkJobFailed' } })).status).toBe(200);
    const instances = await call(sim, 'GET', `${base}/jobs/instances`, { token });
    expect((instances.json as { value: unknown[] }).value[0]).toMatchObject({
      jobType: 'sparkjob',
      status: 'Failed',
      endTimeUtc: new Date(NOW).toISOString(),
      failureReason: { errorCode: 'SparkJobFailed', message: expect.stringContaining('Spark') },
    });
    expect((await call(sim, 'POST', '/_sim/finishJob', { body: { itemId: spark.id, status: 'Completed' } })).status).toBe(400);
    expect(sim.violations).toEqual([]);
  });
});

// @engine-neutral: the tenant simulator alone, no database
/**
 * The simulator's Power BI Embedded side, called like a client: A SKUs are listed as
 * `Microsoft.PowerBIDedicated/capacities` (and no longer as Fabric ones), their Azure Monitor
 * metrics answer the documented shape (value[].timeseries[].data[] with timeStamp and the asked
 * aggregations), follow the throttling controls, leave unpublished and paused minutes without
 * values, and refuse what the service refuses (unknown metric 400, ARM read missing 403, another
 * resource 404, 429 storms) — all within the strict contracts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { call, msalToken, SCOPES, startSim } from './helpers.js';

describe('tenant simulator: Power BI Embedded capacities and Azure Monitor metrics', () => {
  let sim: TenantSim;
  let now = Date.parse('2026-06-15T12:00:00Z');
  let token: string;
  beforeAll(async () => {
    sim = await startSim({ seed: 7, sizes: { capacities: 2, workspaces: 4, gateways: 0 }, now: () => now, tokenLifetimeSeconds: 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    token = await msalToken(sim, SCOPES.arm);
  });
  afterAll(async () => {
    await sim.stop();
  });

  const sub = () => sim.state.settings.subscriptionId;
  const metrics = (resourceId: string, from: number, to: number, extra = '') =>
    call(
      sim,
      'GET',
      `${resourceId}/providers/Microsoft.Insights/metrics?api-version=2023-10-01&metricnames=overload_metric,cpu_metric&interval=PT1M&aggregation=Average,Maximum&timespan=${new Date(from).toISOString()}/${new Date(to).toISOString()}${extra}`,
      { token },
    );

  it('lists A SKUs under PowerBIDedicated and serves their minute metrics, driven by the load controls', async () => {
    const cap = sim.state.capacities[0]!;
    sim.control.capacitySku({ capacityId: cap.id, sku: 'A3' });
    const list = await call(sim, 'GET', `/subscriptions/${sub()}/providers/Microsoft.PowerBIDedicated/capacities?api-version=2021-01-01`, { token });
    expect(list.status).toBe(200);
    expect(list.json.value).toHaveLength(1);
    const resource = list.json.value[0];
    expect(resource).toMatchObject({ name: cap.armName, type: 'Microsoft.PowerBIDedicated/capacities', sku: { name: 'A3', tier: 'PBIE_Azure' }, properties: { state: 'Succeeded' } });
    const fabric = await call(sim, 'GET', `/subscriptions/${sub()}/providers/Microsoft.Fabric/capacities?api-version=2023-11-01`, { token });
    expect(fabric.json.value.map((c: { name: string }) => c.name)).not.toContain(cap.armName);
    const byGroup = await call(sim, 'GET', `/subscriptions/${sub()}/resourceGroups/${cap.resourceGroup}/providers/Microsoft.PowerBIDedicated/capacities?api-version=2021-01-01`, { token });
    expect(byGroup.json.value).toHaveLength(1);

    now += 10 * 60_000;
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveDelay' });
    const pushedAt = now;
    now += 5 * 60_000;
    const from = pushedAt - 5 * 60_000;
    const res = await metrics(resource.id, from, now);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ interval: 'PT1M', namespace: 'Microsoft.PowerBIDedicated/capacities' });
    const [overload, cpu] = res.json.value;
    expect(overload).toMatchObject({ type: 'Microsoft.Insights/metrics', name: { value: 'overload_metric' }, unit: 'Count', errorCode: 'Success' });
    expect(cpu).toMatchObject({ name: { value: 'cpu_metric' }, unit: 'Percent' });
    const points = overload.timeseries[0].data as Array<{ timeStamp: string; average?: number; maximum?: number }>;
    expect(points).toHaveLength(10);
    expect(points[0]!.timeStamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
    // Before the push: not overloaded; after it: overloaded at 100 % CPU; the last minute is not published yet.
    expect(points[0]).toMatchObject({ average: 0, maximum: 0 });
    expect(points[7]).toMatchObject({ average: 1, maximum: 1 });
    expect(cpu.timeseries[0].data[7]).toMatchObject({ average: 100, maximum: 100 });
    expect(points[9]!.average).toBeUndefined();

    // Paused: the minutes are listed without values, and ARM says Paused.
    sim.control.capacityState({ capacityId: cap.id, state: 'Paused' });
    const pausedAt = now;
    now += 5 * 60_000;
    const paused = await metrics(resource.id, pausedAt + 60_000, now - 60_000);
    expect(paused.json.value[1].timeseries[0].data.every((p: { average?: number }) => p.average === undefined)).toBe(true);
    const listed = await call(sim, 'GET', `/subscriptions/${sub()}/providers/Microsoft.PowerBIDedicated/capacities?api-version=2021-01-01`, { token });
    expect(listed.json.value[0].properties.state).toBe('Paused');
    sim.control.capacityState({ capacityId: cap.id, state: 'Active' });
    expect(sim.violations).toEqual([]);
  });

  it('refuses what the service refuses', async () => {
    const cap = sim.state.capacities[0]!;
    const id = `/subscriptions/${sub()}/resourceGroups/${cap.resourceGroup}/providers/Microsoft.PowerBIDedicated/capacities/${cap.armName}`;
    const unknown = await call(sim, 'GET', `${id}/providers/Microsoft.Insights/metrics?api-version=2023-10-01&metricnames=memory_metric`, { token });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toContain('Valid metrics: cpu_metric,overload_metric');
    const other = await metrics(`/subscriptions/${sub()}/resourceGroups/${cap.resourceGroup}/providers/Microsoft.PowerBIDedicated/capacities/nope`, now - 600_000, now);
    expect(other.status).toBe(404);

    sim.control.armReadForbidden({ scope: `subscriptions/${sub()}/resourceGroups/${cap.resourceGroup}`, on: true });
    const forbidden = await metrics(id, now - 600_000, now);
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.error.code).toBe('AuthorizationFailed');
    const list = await call(sim, 'GET', `/subscriptions/${sub()}/resourceGroups/${cap.resourceGroup}/providers/Microsoft.PowerBIDedicated/capacities?api-version=2021-01-01`, { token });
    expect(list.status).toBe(403);
    sim.control.armReadForbidden({ scope: `subscriptions/${sub()}/resourceGroups/${cap.resourceGroup}`, on: false });

    sim.control.throttle({ family: 'arm', count: 1, retryAfterSeconds: 3 });
    const throttled = await metrics(id, now - 600_000, now);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('3');
    expect((await metrics(id, now - 600_000, now)).status).toBe(200);

    // Outside the contract: a wrong api-version is a recorded violation (strict mode).
    const bad = await call(sim, 'GET', `${id}/providers/Microsoft.Insights/metrics?api-version=2018-01-01`, { token });
    expect(bad.status).toBe(400);
    expect(sim.violations.splice(0)).toHaveLength(1);
  });
});

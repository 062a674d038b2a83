// @engine-neutral: the tenant simulator alone, no database
/**
 * The enterprise tenant of issue 27 (50,000 workspaces, 200,000 semantic models, 20,000
 * pipelines, 2,000 gateways × 3 members, 200 capacities), generated lazily: a client pages
 * through all of it with consistent pages, reads the same item twice alike, sees control changes
 * on objects that were never built before, scans lazily generated workspaces, and meets the caps
 * — in strict mode, without a contract violation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTERPRISE_SIZES, lazyOf, type TenantSim } from '../../src/tenant-sim/index.js';
import { call, msalToken, SCOPES, startSim } from './helpers.js';

describe('tenant simulator: the lazy enterprise tenant', () => {
  let sim: TenantSim;
  let fabric: string;
  let powerbi: string;
  beforeAll(async () => {
    sim = await startSim({ lazy: true, sizes: ENTERPRISE_SIZES, seed: 27 });
    fabric = await msalToken(sim, SCOPES.fabric);
    powerbi = await msalToken(sim, SCOPES.powerbi);
  });
  afterAll(() => sim.stop());

  it('has the issue’s sizes without building the workspaces up front', () => {
    expect(sim.state.workspaces).toHaveLength(50_000);
    expect(sim.state.capacities).toHaveLength(200);
    expect(sim.state.gateways).toHaveLength(2_000);
    expect(sim.state.gateways.every((g) => g.members.length === 3)).toBe(true);
    const lazy = lazyOf(sim.state.workspaces)!;
    expect(lazy.counts()).toEqual({ models: 200_000, scheduledModels: 100_000, pipelines: 20_000, mirrored: 500 });
    // Read, not kept.
    expect(sim.state.workspaces[49_999]!.items.filter((i) => i.type === 'SemanticModel')).toHaveLength(4);
    expect(lazy.pinned.size).toBe(0);
  });

  it('pages through 50,000 workspaces: disjoint pages, every workspace once, the same in both APIs', async () => {
    const fabricIds: string[] = [];
    let next: string | undefined = '/v1/admin/workspaces';
    let pages = 0;
    while (next) {
      const page = await call(sim, 'GET', next, { token: fabric });
      expect(page.status).toBe(200);
      fabricIds.push(...page.json.workspaces.map((w: { id: string }) => w.id));
      next = page.json.continuationUri;
      pages++;
    }
    expect(pages).toBe(5);
    expect(new Set(fabricIds).size).toBe(50_000);
    const groupIds: string[] = [];
    for (let skip = 0; skip < 50_000; skip += 5000) {
      const page = await call(sim, 'GET', `/v1.0/myorg/admin/groups?$top=5000&$skip=${skip}`, { token: powerbi });
      expect(page.status).toBe(200);
      expect(page.json.value).toHaveLength(5000);
      groupIds.push(...page.json.value.map((w: { id: string }) => w.id));
    }
    expect(groupIds).toEqual(fabricIds);
    const past = await call(sim, 'GET', '/v1.0/myorg/admin/groups?$top=5000&$skip=50000', { token: powerbi });
    expect(past.json.value).toEqual([]);
    expect(sim.violations).toEqual([]);
  });

  it('answers the same item alike when it is read twice, and pages of 200,000 models from the refreshables list', async () => {
    const ws = sim.state.workspaces[31_337]!;
    const first = await call(sim, 'GET', `/v1.0/myorg/groups/${ws.id}/datasets`, { token: powerbi });
    const again = await call(sim, 'GET', `/v1.0/myorg/groups/${ws.id.toUpperCase()}/datasets`, { token: powerbi });
    expect(first.status).toBe(200);
    expect(first.json.value).toHaveLength(4);
    expect(again.json).toEqual(first.json);
    const model = first.json.value[0].id as string;
    const h1 = await call(sim, 'GET', `/v1.0/myorg/groups/${ws.id}/datasets/${model}/refreshes`, { token: powerbi });
    const h2 = await call(sim, 'GET', `/v1.0/myorg/groups/${ws.id}/datasets/${model}/refreshes`, { token: powerbi });
    expect(h1.json.value).toHaveLength(3);
    expect(h2.json).toEqual(h1.json);
    const deep = await call(sim, 'GET', '/v1.0/myorg/admin/capacities/refreshables?$top=5000&$skip=175000', { token: powerbi });
    const deepAgain = await call(sim, 'GET', '/v1.0/myorg/admin/capacities/refreshables?$top=5000&$skip=175000', { token: powerbi });
    expect(deep.status).toBe(200);
    expect(deep.json.value.length).toBeGreaterThan(0);
    expect(deepAgain.json).toEqual(deep.json);
    const pipelines = await call(sim, 'GET', '/v1/admin/items?type=DataPipeline', { token: fabric });
    expect(pipelines.json.itemEntities).toHaveLength(10_000);
    expect(new Set(pipelines.json.itemEntities.map((i: { id: string }) => i.id)).size).toBe(10_000);
    expect(lazyOf(sim.state.workspaces)!.pinned.size).toBe(0);
    expect(sim.violations).toEqual([]);
  });

  it('keeps a control change on a workspace that was never built, and only that one', async () => {
    const ws = sim.state.workspaces[40_001]!;
    const model = ws.items.find((i) => i.type === 'SemanticModel')!;
    sim.control.refreshResult({ datasetId: model.id, status: 'Failed', errorCode: 'DM_GWPipeline_Client_GatewayUnreachable' });
    const history = await call(sim, 'GET', `/v1.0/myorg/groups/${ws.id}/datasets/${model.id}/refreshes?$top=1`, { token: powerbi });
    expect(history.json.value[0].status).toBe('Failed');
    expect(history.json.value[0].serviceExceptionJson).toContain('DM_GWPipeline_Client_GatewayUnreachable');
    const other = sim.state.workspaces[40_002]!;
    sim.control.workspaceMembership({ workspaceId: other.id, member: false });
    const refused = await call(sim, 'GET', `/v1.0/myorg/groups/${other.id}/datasets`, { token: powerbi });
    expect(refused.status).toBe(401);
    expect(lazyOf(sim.state.workspaces)!.pinned.size).toBe(2);
    // Eager parts as before: a gateway offline, a capacity paused.
    const g = sim.state.gateways[1_999]!;
    sim.control.gatewayOffline({ gatewayId: g.id, offline: true });
    const gateway = await call(sim, 'GET', `/v1.0/myorg/gateways/${g.id}`, { token: powerbi });
    expect(gateway.json.gatewayStatus).toBe('NotReachable');
    const c = sim.state.capacities[199]!;
    sim.control.capacityState({ capacityId: c.id, state: 'Paused' });
    const caps = await call(sim, 'GET', `/v1/capacities?continuationToken=${Buffer.from(JSON.stringify({ o: 100, v: 1 })).toString('base64url')}`, { token: fabric });
    expect(caps.json.value.find((x: { id: string }) => x.id === c.id.toLowerCase()).state).toBe('Inactive');
    sim.control.reset();
    expect(lazyOf(sim.state.workspaces)!.pinned.size).toBe(0);
    const back = await call(sim, 'GET', `/v1.0/myorg/groups/${ws.id}/datasets/${model.id}/refreshes?$top=1`, { token: powerbi });
    expect(back.json.value[0].requestId).not.toBe(history.json.value[0].requestId);
  });

  it('scans lazily generated workspaces with the scanner API (schedules, lineage, data sources; 16 at once)', async () => {
    const modified = await call(sim, 'GET', '/v1.0/myorg/admin/workspaces/modified', { token: powerbi });
    expect(modified.json).toHaveLength(50_000);
    const ids = modified.json.slice(20_000, 20_100).map((w: { id: string }) => w.id);
    sim.control.scanOmits({ workspaceId: ids[5] });
    const scan = await call(sim, 'POST', '/v1.0/myorg/admin/workspaces/getInfo?lineage=true&datasourceDetails=true', { token: powerbi, body: { workspaces: ids } });
    expect(scan.status).toBe(202);
    await call(sim, 'GET', `/v1.0/myorg/admin/workspaces/scanStatus/${scan.json.id}`, { token: powerbi });
    const status = await call(sim, 'GET', `/v1.0/myorg/admin/workspaces/scanStatus/${scan.json.id}`, { token: powerbi });
    expect(status.json.status).toBe('Succeeded');
    const result = await call(sim, 'GET', `/v1.0/myorg/admin/workspaces/scanResult/${scan.json.id}`, { token: powerbi });
    expect(result.status).toBe(200);
    expect(result.json.workspaces).toHaveLength(99);
    expect(result.json.workspaces.map((w: { id: string }) => w.id)).not.toContain(ids[5]);
    const datasets = result.json.workspaces.flatMap((w: { datasets: unknown[] }) => w.datasets) as Array<{ refreshSchedule?: { enabled: boolean }; datasourceUsages?: unknown[] }>;
    expect(datasets).toHaveLength(396);
    expect(datasets.filter((d) => d.refreshSchedule?.enabled)).toHaveLength(198);
    expect(datasets.every((d) => Array.isArray(d.datasourceUsages))).toBe(true);
    expect(result.json.datasourceInstances.length).toBeGreaterThan(0);
    // The 17th scan in progress is refused.
    const more: number[] = [];
    for (let k = 0; k < 16; k++) {
      const r = await call(sim, 'POST', '/v1.0/myorg/admin/workspaces/getInfo', { token: powerbi, body: { workspaces: [ids[k]] } });
      more.push(r.status);
    }
    expect(more.slice(0, 16)).toEqual(Array(16).fill(202));
    const refused = await call(sim, 'POST', '/v1.0/myorg/admin/workspaces/getInfo', { token: powerbi, body: { workspaces: [ids[0]] } });
    expect(refused.status).toBe(429);
    expect(sim.violations).toEqual([]);
  });

  it('enforces the per-tenant hourly caps (admin groups: 50 an hour)', async () => {
    sim.control.reset();
    const statuses: number[] = [];
    for (let k = 0; k < 51; k++) statuses.push((await call(sim, 'GET', `/v1.0/myorg/admin/groups?$top=1&$skip=${k * 1000}`, { token: powerbi })).status);
    expect(statuses.slice(0, 50).every((s) => s === 200)).toBe(true);
    expect(statuses[50]).toBe(429);
    expect(sim.countCalls({ throttled: true, path: '/v1.0/myorg/admin/groups' })).toBe(1);
    expect(sim.requests.at(-1)!.throttleReason).toBe('cap:powerbi-admin-groups');
  });
});

// @engine-neutral: the tenant simulator alone, no database
/**
 * The simulator generates and serves the tenant size of the monitoring benchmark — 60 capacities,
 * 5,000 workspaces, 500 gateways with 4 members each — and a client can walk all of it through
 * the vendors' paging, in strict mode, without a contract violation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { call, msalToken, SCOPES, startSim } from './helpers.js';

async function walkFabric(sim: TenantSim, token: string, first: string, key: string): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let next: string | undefined = first;
  while (next) {
    const page = await call(sim, 'GET', next, { token });
    expect(page.status).toBe(200);
    out.push(...page.json[key]);
    next = page.json.continuationUri;
  }
  return out;
}

describe('tenant simulator: a large tenant', () => {
  let sim: TenantSim;
  beforeAll(async () => {
    sim = await startSim({ sizes: { capacities: 60, workspaces: 5000, gateways: 500, membersPerGateway: 4, costDays: 31 } });
  });
  afterAll(() => sim.stop());

  it('generates 60 capacities, 5,000 workspaces and 500 gateways with 4 members each', () => {
    expect(sim.state.capacities).toHaveLength(60);
    expect(sim.state.workspaces).toHaveLength(5000);
    expect(sim.state.gateways).toHaveLength(500);
    expect(sim.state.gateways.every((g) => g.members.length === 4)).toBe(true);
  });

  it('answers a full inventory and gateway walk through paging', async () => {
    const fabric = await msalToken(sim, SCOPES.fabric);
    const powerbi = await msalToken(sim, SCOPES.powerbi);
    const workspaces = await walkFabric(sim, fabric, '/v1/admin/workspaces', 'workspaces');
    expect(new Set(workspaces.map((w) => w.id)).size).toBe(5000);
    const memberWorkspaces = await walkFabric(sim, fabric, '/v1/workspaces', 'value');
    expect(memberWorkspaces).toHaveLength(5000);
    const groups = await call(sim, 'GET', '/v1.0/myorg/admin/groups?$top=5000', { token: powerbi });
    expect(groups.json.value).toHaveLength(5000);
    const gateways = await walkFabric(sim, fabric, '/v1/gateways', 'value');
    expect(gateways).toHaveLength(500);
    const capacities = await call(sim, 'GET', '/v1.0/myorg/admin/capacities', { token: powerbi });
    expect(capacities.json.value).toHaveLength(60);
    let members = 0;
    for (const g of gateways.slice(0, 100)) {
      const m = await call(sim, 'GET', `/v1/gateways/${g.id}/members`, { token: fabric });
      members += m.json.value.length;
    }
    expect(members).toBe(400);
    expect(sim.countCalls({ family: 'fabric-admin' })).toBe(1);
    expect(sim.countCalls({ throttled: true })).toBe(0);
    expect(sim.violations).toEqual([]);
  });
});

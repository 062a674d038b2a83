// @engine-neutral: the tenant simulator alone, no database
/**
 * The simulated Capacity Metrics app model behind Power BI executeQueries: each app version's
 * names (a name the model lacks is a 400 DAX error, as the engine answers), timepoints published
 * 10 minutes late with the load the control API sets, and executeQueries' documented limits —
 * one query per call, 120 queries a minute.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAPPINGS, probeQuery, timepointsQuery } from '../../src/monitoring/sources/utilization/metrics-app-dax.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { call, msalToken, SCOPES, startSim } from './helpers.js';

const T0 = Date.parse('2026-06-15T12:00:00Z');
const [V53, V40, V37] = MAPPINGS as [(typeof MAPPINGS)[number], (typeof MAPPINGS)[number], (typeof MAPPINGS)[number]];

describe('tenant simulator: the Capacity Metrics app model (executeQueries)', () => {
  let sim: TenantSim;
  let now = T0;
  afterEach(async () => {
    await sim?.stop();
  });

  async function setup() {
    now = T0;
    sim = await startSim({ seed: 5, sizes: { capacities: 2, workspaces: 4 }, now: () => now });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    return { token: await msalToken(sim, SCOPES.powerbi), app: sim.state.metricsApp!, cap: sim.state.capacities[0]! };
  }

  const dax = (token: string, queries: string[]) => {
    const app = sim.state.metricsApp!;
    return call(sim, 'POST', `/v1.0/myorg/groups/${app.workspaceId}/datasets/${app.datasetId}/executeQueries`, { token, body: { queries: queries.map((query) => ({ query })), serializerSettings: { includeNulls: true } } });
  };

  it('answers each version\'s probe and refuses the others\' names with a DAX error (400)', async () => {
    const { token } = await setup();
    const cases: Array<[string, boolean[]]> = [
      ['v37', [false, false, true]],
      ['v47', [false, true, false]],
      ['v53', [true, true, false]],
      ['v99', [false, false, false]],
    ];
    for (const [version, expected] of cases) {
      sim.control.metricsAppVersion({ version: version as never });
      const answers = [];
      for (const m of [V53, V40, V37]) answers.push((await dax(token, [probeQuery(m)])).status === 200);
      expect([version, ...answers]).toEqual([version, ...expected]);
    }
    const refused = await dax(token, [probeQuery(V53)]);
    expect(refused.json.error.code).toBe('DatasetExecuteQueriesError');
    expect(JSON.stringify(refused.json.error['pbi.error'].details)).toContain("'Blocked workspaces (Day)'");
    // v53 moved the date to a Dates table: the v40 timepoints query is refused there.
    sim.control.metricsAppVersion({ version: 'v53' });
    expect((await dax(token, [timepointsQuery(V40, new Date(T0 - 3_600_000), new Date(T0))])).status).toBe(400);
    expect(sim.violations).toEqual([]);
  });

  it('serves timepoints 10 minutes after their window, driven by the capacity load controls', async () => {
    const { token, cap } = await setup();
    sim.control.metricsAppVersion({ version: 'v47' });
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveDelay' });
    now += 20 * 60_000;
    const res = await dax(token, [timepointsQuery(V40, new Date(T0), new Date(now))]);
    expect(res.status).toBe(200);
    const all = res.json.results[0].tables[0].rows.filter((r: Record<string, unknown>) => r['Capacities[capacity Id]'] === cap.id.toUpperCase());
    const rows = all.filter((r: Record<string, unknown>) => r['[cu]'] !== null);
    // Timepoints in (T0, now - 10 min - 30 s]: 19 of them, each over the 10-minute limit.
    expect(rows).toHaveLength(19);
    // The later ones are there without usage yet (only the constant measures), as the model keeps them.
    const pending = all.filter((r: Record<string, unknown>) => r['[cu]'] === null);
    expect(pending).toHaveLength(20);
    expect(pending[0]).toMatchObject({ '[delay]': null, '[carry]': null, '[thr]': 1 });
    expect(rows[0]['TimePoints[TimePoint]']).toBe('2026-06-15T12:00:30');
    expect(rows.every((r: Record<string, number>) => r['[delay]']! / r['[thr]']! > 1)).toBe(true);
    expect(sim.violations).toEqual([]);
  });

  it('keeps executeQueries\' limits: one query per call, 120 queries a minute', async () => {
    const { token } = await setup();
    sim.control.metricsAppVersion({ version: 'v37' });
    const two = await dax(token, [probeQuery(V37), probeQuery(V37)]);
    expect(two.status).toBe(400);
    let refused = null;
    for (let i = 0; i < 121 && !refused; i++) {
      const r = await dax(token, [probeQuery(V37)]);
      if (r.status === 429) refused = { i, retryAfter: Number(r.headers.get('retry-after')) };
    }
    expect(refused).toMatchObject({ i: 119 });
    expect(refused!.retryAfter).toBeGreaterThan(0);
    now += 61_000;
    expect((await dax(token, [probeQuery(V37)])).status).toBe(200);
    expect(sim.violations).toEqual([]);
  });
});

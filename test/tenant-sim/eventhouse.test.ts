// @engine-neutral: the tenant simulator alone, no database
/**
 * The simulated Eventhouse: the capacity-overview events an Eventstream lands in a table,
 * answered through the Kusto REST query API (v2 frames) to a token of the Kusto audience only;
 * the control API pushes a capacity into each throttling stage and back, drops and duplicates
 * events, and a paused capacity stops its Summary events.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { call, msalToken, SCOPES, startSim } from './helpers.js';

const KUSTO = 'https://kusto.kusto.windows.net/.default';
const T0 = Date.parse('2026-06-15T12:00:00Z');

function readQuery(table = 'CapacityEvents') {
  return `declare query_parameters(since:datetime, until:datetime);\n['${table}']\n| where ingestion_time() > since and ingestion_time() <= until\n| extend ingested = ingestion_time()\n| project ingested, type, data\n| order by ingested asc`;
}

function body(since: number, until: number, over: Record<string, unknown> = {}) {
  return {
    db: 'CapacityMonitoring',
    csl: readQuery(),
    properties: { Options: { servertimeout: '00:01:00' }, Parameters: { since: `datetime(${new Date(since).toISOString()})`, until: `datetime(${new Date(until).toISOString()})` } },
    ...over,
  };
}

function primary(frames: any[]): { columns: string[]; rows: any[][] } {
  const t = frames.find((f) => f.FrameType === 'DataTable' && f.TableKind === 'PrimaryResult');
  return { columns: t.Columns.map((c: any) => c.ColumnName), rows: t.Rows };
}

describe('tenant simulator: Eventhouse with capacity events', () => {
  let sim: TenantSim;
  let now = T0;
  afterEach(async () => {
    await sim?.stop();
  });

  async function setup() {
    now = T0;
    sim = await startSim({ seed: 4, sizes: { capacities: 2, workspaces: 6 }, now: () => now });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    return { token: await msalToken(sim, KUSTO), cap: sim.state.capacities[0]! };
  }

  const query = (token: string, b: unknown, headers: Record<string, string> = { accept: 'application/json' }) =>
    call(sim, 'POST', '/v2/rest/query', { token, body: b, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });

  it('answers v2 frames with one Summary per capacity per 30 s window, ingested after the window ends', async () => {
    const { token, cap } = await setup();
    now += 10 * 60_000;
    const res = await query(token, body(T0, now));
    expect(res.status).toBe(200);
    expect(res.json[0].FrameType).toBe('DataSetHeader');
    expect(res.json.at(-1)).toMatchObject({ FrameType: 'DataSetCompletion', HasErrors: false });
    const { columns, rows } = primary(res.json);
    expect(columns).toEqual(['ingested', 'type', 'data']);
    const summaries = rows.filter((r) => r[1] === 'Microsoft.Fabric.Capacity.Summary' && r[2].capacityId === cap.id.toLowerCase());
    // Windows ending in (T0 - 15 s, now - 15 s]: 20 of them.
    expect(summaries).toHaveLength(20);
    const first = summaries[0]![2];
    expect(first).toMatchObject({ capacityName: cap.displayName, capacitySku: cap.sku, windowStartTime: '2026-06-15 11:59:30.0000000', windowEndTime: '2026-06-15 12:00:00.0000000' });
    expect(first.interactiveDelayThresholdPercentage).toBeLessThan(100);
    expect(Date.parse(summaries[0]![0])).toBe(T0 + 15_000);
    expect(sim.violations).toEqual([]);
  });

  it('pushes a capacity into each stage and back, with the carry-forward burning down', async () => {
    const { token, cap } = await setup();
    const last = async (since: number) => {
      const { rows } = primary((await query(token, body(since, now))).json);
      return rows.filter((r) => r[1] === 'Microsoft.Fabric.Capacity.Summary' && r[2].capacityId === cap.id.toLowerCase()).at(-1)![2];
    };
    const stages = [
      ['interactiveDelay', 'interactiveDelayThresholdPercentage', 'interactiveRejectionThresholdPercentage'],
      ['interactiveRejection', 'interactiveRejectionThresholdPercentage', 'backgroundRejectionThresholdPercentage'],
      ['backgroundRejection', 'backgroundRejectionThresholdPercentage', null],
    ] as const;
    for (const [stage, over, under] of stages) {
      sim.control.capacityLoad({ capacityId: cap.id, stage });
      const from = now;
      now += 2 * 60_000;
      const d = await last(from);
      expect(d[over]).toBeGreaterThan(100);
      if (under) expect(d[under]).toBeLessThanOrEqual(100);
      expect(d.overageTotalCapacityUnitMs).toBeGreaterThan(0);
      sim.control.capacityLoad({ capacityId: cap.id, stage: 'normal', clearCarryForward: true });
      now += 60_000;
    }
    // From interactive delay, the carry-forward burns down by itself.
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'interactiveDelay' });
    now += 60_000;
    sim.control.capacityLoad({ capacityId: cap.id, stage: 'normal' });
    let from = now;
    now += 60_000;
    const burning = await last(from);
    expect(burning.overageBurndownCapacityUnitMs).toBeGreaterThan(0);
    from = now;
    now += 30 * 60_000;
    const done = await last(from);
    expect(done.overageTotalCapacityUnitMs).toBe(0);
    expect(done.interactiveDelayThresholdPercentage).toBeLessThan(100);
    const states = primary((await query(token, body(T0, now))).json).rows.filter((r) => r[1] === 'Microsoft.Fabric.Capacity.State' && r[2].capacityId === cap.id.toLowerCase());
    expect(states.map((r) => r[2].stateChangeReason)).toEqual(['InteractiveDelay', 'NotOverloaded', 'InteractiveRejected', 'NotOverloaded', 'AllRejected', 'NotOverloaded', 'InteractiveDelay', 'NotOverloaded']);
    expect(sim.violations).toEqual([]);
  });

  it('drops and duplicates events; a paused capacity sends a State event and no Summary', async () => {
    const { token, cap } = await setup();
    sim.control.capacityEvents({ capacityId: cap.id, drop: 2 });
    now += 60_000;
    sim.control.capacityEvents({ capacityId: cap.id, duplicate: 1 });
    now += 2 * 60_000;
    const windows = (rows: any[][]) => rows.filter((r) => r[1] === 'Microsoft.Fabric.Capacity.Summary' && r[2].capacityId === cap.id.toLowerCase()).map((r) => r[2].windowStartTime);
    let rows = primary((await query(token, body(T0, now))).json).rows;
    const w = windows(rows);
    expect(w.filter((x) => x === '2026-06-15 12:00:00.0000000')).toHaveLength(0);
    expect(w.filter((x) => x === '2026-06-15 12:00:30.0000000')).toHaveLength(0);
    expect(w.filter((x) => x === '2026-06-15 12:01:00.0000000')).toHaveLength(2);

    const pausedAt = now;
    sim.control.capacityState({ capacityId: cap.id, state: 'Paused' });
    now += 5 * 60_000;
    rows = primary((await query(token, body(pausedAt + 15_000, now))).json).rows;
    expect(windows(rows)).toEqual([]);
    expect(rows.filter((r) => r[1] === 'Microsoft.Fabric.Capacity.State' && r[2].capacityId === cap.id.toLowerCase()).map((r) => [r[2].capacityState, r[2].stateChangeReason])).toEqual([['Suspended', 'ManuallyPaused']]);
    expect(sim.violations).toEqual([]);
  });

  it('is strict: another audience is 401, a body without db or a bad literal is 400 and a violation; a storm is 429', async () => {
    const { token } = await setup();
    const fabricToken = await msalToken(sim, SCOPES.fabric);
    expect((await query(fabricToken, body(T0, now))).status).toBe(401);
    const noDb = await query(token, { csl: readQuery() });
    expect(noDb.status).toBe(400);
    expect(noDb.json.error.code).toBe('General_BadRequest');
    const badLiteral = await query(token, body(T0, now, { properties: { Parameters: { since: new Date(T0).toISOString(), until: `datetime(${new Date(now).toISOString()})` } } }));
    expect(badLiteral.status).toBe(400);
    expect((await query(token, body(T0, now), {})).status).toBe(400);
    expect(sim.violations).toHaveLength(3);
    sim.violations.length = 0;
    const table = await query(token, { ...body(T0, now), csl: readQuery('Other') });
    expect(table.status).toBe(400);
    expect(table.json.error.innererror.code).toBe('SEM0100');
    sim.control.throttle({ family: 'kusto', count: 1, retryAfterSeconds: 3 });
    const throttled = await query(token, body(T0, now));
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('3');
    sim.control.eventhouseForbidden({ on: true });
    expect((await query(token, body(T0, now))).status).toBe(403);
    expect(sim.violations).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';

const cap = (name: string, extra: Record<string, unknown> = {}) => ({ name, sku: 'F64', state: 'Active', region: 'Brazil South', ...extra });
const cost = (date: string, extra: Record<string, unknown> = {}) => ({ date, capacityName: 'cap-a', currency: 'BRL', cost: 10.5, amortizedCost: 9.25, overageCost: 0, ...extra });

describe('admin API: inventory and costs', () => {
  let t: TestApp;
  let orgId: string;
  let otherId: string;
  beforeAll(async () => {
    t = await createTestApp();
    orgId = (await createOrg(t)).id;
    otherId = (await createOrg(t)).id;
  });
  afterAll(() => t.close());

  const rows = async (table: string, id = orgId) => (await t.ctx.db.query(`SELECT * FROM ${table} WHERE org_id = $1 ORDER BY 2, 3`, [id])).rows;

  it('replaces the capacity set', async () => {
    const first = await t.admin('PUT', `/orgs/${orgId}/capacities`, [cap('cap-a'), cap('cap-b', { state: 'Paused' })]);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual([cap('cap-a'), cap('cap-b', { state: 'Paused' })]);
    const second = await t.admin('PUT', `/orgs/${orgId}/capacities`, [cap('cap-c')]);
    expect(second.json()).toEqual([cap('cap-c')]);
    expect((await rows('capacities')).map((r) => r.name)).toEqual(['cap-c']);
    expect((await t.admin('PUT', `/orgs/${orgId}/capacities`, [])).json()).toEqual([]);
    expect(await rows('capacities')).toEqual([]);
  });

  it('replaces the workspace set; capacityName may be null or absent', async () => {
    const res = await t.admin('PUT', `/orgs/${orgId}/workspaces`, [
      { name: 'Sales', remoteId: 'ws-1', capacityName: 'cap-a' },
      { name: 'Finance', remoteId: 'ws-2', capacityName: null },
      { name: 'Ops', remoteId: 'ws-3' },
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { name: 'Finance', remoteId: 'ws-2', capacityName: null },
      { name: 'Ops', remoteId: 'ws-3', capacityName: null },
      { name: 'Sales', remoteId: 'ws-1', capacityName: 'cap-a' },
    ]);
    await t.admin('PUT', `/orgs/${orgId}/workspaces`, [{ name: 'Only', remoteId: 'ws-9', capacityName: null }]);
    expect((await rows('workspaces')).map((r) => r.remote_id)).toEqual(['ws-9']);
  });

  it('upserts costs on (date, capacityName, currency)', async () => {
    const res = await t.admin('POST', `/orgs/${orgId}/costs`, [cost('2026-06-01'), cost('2026-06-01', { currency: 'USD', cost: 2 }), cost('2026-06-02')]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ upserted: 3 });
    await t.admin('POST', `/orgs/${orgId}/costs`, [cost('2026-06-01', { cost: 99.123456, amortizedCost: 1, overageCost: 2.5 })]);
    const all = await t.ctx.db.query(
      'SELECT date, currency, cost, amortized_cost, overage_cost FROM daily_costs WHERE org_id = $1 ORDER BY date, currency',
      [orgId],
    );
    expect(all.rows).toEqual([
      { date: '2026-06-01', currency: 'BRL', cost: 99.123456, amortized_cost: 1, overage_cost: 2.5 },
      { date: '2026-06-01', currency: 'USD', cost: 2, amortized_cost: 9.25, overage_cost: 0 },
      { date: '2026-06-02', currency: 'BRL', cost: 10.5, amortized_cost: 9.25, overage_cost: 0 },
    ]);
  });

  it.each([
    ['capacities', 'PUT', 'not an array', { name: 'x' }],
    ['capacities', 'PUT', 'missing sku', [{ name: 'x', state: 'Active', region: 'r' }]],
    ['capacities', 'PUT', 'unknown field', [cap('x', { owner: 'me' })]],
    ['capacities', 'PUT', 'a number for name', [cap('x', { name: 5 })]],
    ['capacities', 'PUT', 'duplicate names', [cap('dup'), cap('dup')]],
    ['workspaces', 'PUT', 'missing remoteId', [{ name: 'w', capacityName: null }]],
    ['workspaces', 'PUT', 'duplicate remoteId', [{ name: 'a', remoteId: 'r' }, { name: 'b', remoteId: 'r' }]],
    ['workspaces', 'PUT', 'capacityName a number', [{ name: 'a', remoteId: 'r', capacityName: 1 }]],
    ['costs', 'POST', 'impossible date', [cost('2026-02-30')]],
    ['costs', 'POST', 'year zero', [cost('0000-01-01')]],
    ['costs', 'POST', 'date with time', [cost('2026-06-01T00:00:00Z')]],
    ['costs', 'POST', 'date as dd/MM/yyyy', [cost('01/06/2026')]],
    ['costs', 'POST', 'lower-case currency', [cost('2026-06-01', { currency: 'brl' })]],
    ['costs', 'POST', 'four-letter currency', [cost('2026-06-01', { currency: 'BRLX' })]],
    ['costs', 'POST', 'cost as string', [cost('2026-06-01', { cost: '10.5' })]],
    ['costs', 'POST', 'cost null', [cost('2026-06-01', { cost: null })]],
    ['costs', 'POST', 'missing overageCost', [{ date: '2026-06-01', capacityName: 'c', currency: 'BRL', cost: 1, amortizedCost: 1 }]],
    ['costs', 'POST', 'unknown field', [cost('2026-06-01', { tax: 1 })]],
    ['costs', 'POST', 'duplicate key in one request', [cost('2026-06-03'), cost('2026-06-03', { cost: 1 })]],
    ['costs', 'POST', 'one bad item among good ones', [cost('2026-07-01'), cost('2026-07-02'), cost('2026-07-32')]],
  ])('%s %s with %s → 400 and no change', async (resource, method, _l, body) => {
    await t.admin('PUT', `/orgs/${orgId}/capacities`, [cap('keep')]);
    await t.admin('PUT', `/orgs/${orgId}/workspaces`, [{ name: 'keep', remoteId: 'keep' }]);
    const before = [await rows('capacities'), await rows('workspaces'), await rows('daily_costs')];
    const res = await t.admin(method as 'PUT', `/orgs/${orgId}/${resource}`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect([await rows('capacities'), await rows('workspaces'), await rows('daily_costs')]).toEqual(before);
  });

  it('answers unknown orgs with 404, malformed JSON with 400, oversize with 413, and never touches another org', async () => {
    await t.admin('PUT', `/orgs/${otherId}/capacities`, [cap('theirs')]);
    for (const [method, path, body] of [
      ['PUT', 'capacities', [cap('x')]],
      ['PUT', 'workspaces', []],
      ['POST', 'costs', [cost('2026-06-01')]],
    ] as const) {
      const res = await t.admin(method, `/orgs/org_missing/${path}`, body);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
      const bad = await t.admin(method, `/orgs/${orgId}/${path}`, '[{', { 'content-type': 'application/json' });
      expect(bad.statusCode).toBe(400);
      const big = await t.admin(method, `/orgs/${orgId}/${path}`, [{ name: 'x'.repeat(5 * 1024 * 1024) }]);
      expect(big.statusCode).toBe(413);
    }
    await t.admin('PUT', `/orgs/${orgId}/capacities`, []);
    expect((await rows('capacities', otherId)).map((r) => r.name)).toEqual(['theirs']);
  });
});

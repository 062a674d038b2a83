import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { get, insertAlert, insertCapacity, insertCost, insertKey, insertOrg, insertWorkspace } from './helpers.js';

const MARK = 'OTHERORG';

/** Gives an organization one of everything; `tag` is in every text it stores. */
async function seed(t: TestApp, tag: string, currency: string): Promise<string> {
  const db = t.ctx.db;
  const org = await insertOrg(db, { name: tag });
  for (let i = 0; i < 3; i++) {
    await insertAlert(db, org, {
      sourceType: i ? 'Gateway' : 'Capacity',
      sourceName: `${tag}-src-${i}`,
      capacityName: `${tag}-cap`,
      workspaceName: `${tag}-ws`,
      message: `${tag} message`,
      notificationKind: `${tag}Kind`,
      createdAt: `2026-05-1${i}T10:00:00Z`,
      resolvedAt: i === 2 ? '2026-05-12T11:00:00Z' : null,
      acknowledgedAt: i === 0 ? '2026-05-10T10:05:00Z' : null,
    });
    await insertAlert(db, org, { sourceName: `${tag}-recent-${i}`, message: tag, createdAt: `2026-06-1${i}T10:00:00Z` });
  }
  await insertCapacity(db, org, `${tag}-cap`);
  await insertWorkspace(db, org, `${tag}-ws`, `${tag}-remote`, `${tag}-cap`);
  for (const date of ['2026-06-01', '2026-06-02']) await insertCost(db, org, { date, capacityName: `${tag}-cap`, currency, cost: 1 });
  return org;
}

describe('organization isolation', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { apiRateLimitPerMinute: 100_000 } });
    const mine = await seed(t, 'MINE', 'USD');
    await seed(t, MARK, 'USD');
    await seed(t, `${MARK}2`, 'EUR');
    key = (await insertKey(t.ctx.db, mine)).key;
  });
  afterAll(() => t.close());

  const URLS = [
    '/alerts',
    '/alerts?from=2026-01-01T00:00:00Z&to=2026-06-15T00:00:00Z',
    '/alerts?from=2026-01-01T00:00:00Z&to=2026-06-15T00:00:00Z&pageSize=1&page=2',
    '/alerts?from=2026-01-01T00:00:00Z&to=2026-06-15T00:00:00Z&status=resolved',
    '/alerts?from=2026-01-01T00:00:00Z&to=2026-06-15T00:00:00Z&sourceType=Capacity',
    '/alerts?from=2026-01-01T00:00:00Z&to=2026-06-15T00:00:00Z&format=csv',
    '/alerts/metrics?from=2026-05-01&to=2026-06-15',
    '/capacities',
    '/capacities?format=csv',
    '/workspaces',
    '/workspaces?format=csv&pageSize=1',
    '/costs/daily?from=2026-06-01&to=2026-06-02',
    '/costs/daily?from=2026-06-01&to=2026-06-02&currency=EUR',
    '/costs/daily?from=2026-06-01&to=2026-06-02&format=csv',
    '/sla?month=2026-05',
  ];

  it('never returns another organization’s rows, on any endpoint, filter, page or format', async () => {
    for (const url of URLS) {
      const res = await get(t.app, url, key);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain(MARK);
    }
  });

  it('counts only the caller’s rows', async () => {
    expect((await get(t.app, '/alerts?from=2026-01-01T00:00:00Z&to=2026-06-15T00:00:00Z', key)).json().totalCount).toBe(6);
    expect((await get(t.app, '/capacities', key)).json().totalCount).toBe(1);
    expect((await get(t.app, '/workspaces', key)).json().totalCount).toBe(1);
    expect((await get(t.app, '/costs/daily?from=2026-06-01&to=2026-06-02&currency=EUR', key)).json().totalCount).toBe(0);
    const m = (await get(t.app, '/alerts/metrics?from=2026-05-01&to=2026-06-15', key)).json();
    expect(m.totals.incidents).toBe(6);
    expect(m.mtta.samples).toBe(1);
    const sla = (await get(t.app, '/sla?month=2026-05', key)).json();
    expect(sla.totals.incidents).toBe(3);
    expect(sla.availability.map((a: any) => a.capacityName)).toEqual(['MINE-cap']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { errorOf, get, insertAlert, insertCapacity, insertCost, insertKey, insertOrg, insertWorkspace } from './helpers.js';

const BOM = '\ufeff';

describe('capacities, workspaces, daily costs and CSV', () => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { apiRateLimitPerMinute: 100_000 } });
    orgId = await insertOrg(t.ctx.db);
    key = (await insertKey(t.ctx.db, orgId)).key;
    for (const name of ['cap-b', 'cap-a', 'cap-c']) await insertCapacity(t.ctx.db, orgId, name);
    await insertWorkspace(t.ctx.db, orgId, 'Sales', 'ws-2', 'cap-a');
    await insertWorkspace(t.ctx.db, orgId, 'Finance', 'ws-1', null);
    await insertWorkspace(t.ctx.db, orgId, 'Sales', 'ws-0', 'cap-b');
  });
  afterAll(() => t.close());

  it('lists capacities by name and pages them', async () => {
    const res = await get(t.app, '/capacities?pageSize=2', key);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      value: [
        { name: 'cap-a', sku: 'F64', state: 'Active', region: 'brazilsouth' },
        { name: 'cap-b', sku: 'F64', state: 'Active', region: 'brazilsouth' },
      ],
      page: 1,
      pageSize: 2,
      totalCount: 3,
      nextLink: '/api/public/v1/capacities?page=2&pageSize=2',
    });
    const last = await get(t.app, res.json().nextLink, key);
    expect(last.json().value.map((c: any) => c.name)).toEqual(['cap-c']);
    expect(last.json().nextLink).toBe('');
    const beyond = await get(t.app, '/capacities?page=7&pageSize=2', key);
    expect(beyond.json()).toMatchObject({ value: [], page: 7, totalCount: 3, nextLink: '' });
  });

  it('lists workspaces by name then remote id', async () => {
    const res = await get(t.app, '/workspaces', key);
    expect(res.json().value).toEqual([
      { name: 'Finance', remoteId: 'ws-1', capacityName: null },
      { name: 'Sales', remoteId: 'ws-0', capacityName: 'cap-b' },
      { name: 'Sales', remoteId: 'ws-2', capacityName: 'cap-a' },
    ]);
  });

  it('returns CSV with BOM, CRLF, header row, RFC 4180 quoting and paging headers', async () => {
    const res = await get(t.app, '/workspaces?format=csv&pageSize=2', key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers['x-page']).toBe('1');
    expect(res.headers['x-page-size']).toBe('2');
    expect(res.headers['x-next-link']).toBe('/api/public/v1/workspaces?format=csv&page=2&pageSize=2');
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(res.body).toBe(`${BOM}name,remoteId,capacityName\r\nFinance,ws-1,\r\nSales,ws-0,cap-b\r\n`);
    const last = await get(t.app, res.headers['x-next-link'] as string, key);
    expect(res.headers['content-disposition']).toBe('attachment; filename="workspaces-page-1.csv"');
    expect(last.headers['x-next-link']).toBe('');
    expect(last.headers['content-disposition']).toBe('attachment; filename="workspaces-page-2.csv"');
    expect(last.body).toBe(`${BOM}name,remoteId,capacityName\r\nSales,ws-2,cap-a\r\n`);
  });

  it('neutralizes formula cells and quotes commas, quotes and line breaks in alert CSV', async () => {
    const org = await insertOrg(t.ctx.db);
    const k = (await insertKey(t.ctx.db, org)).key;
    await insertAlert(t.ctx.db, org, {
      createdAt: '2026-06-15T10:00:00Z',
      sourceName: '=HYPERLINK("http://evil","x")',
      message: 'a, "b"\nc',
      workspaceName: '@SUM(A1)',
      capacityName: '-1+1',
      notificationKind: '+cmd',
      sourceType: '\tTab',
    });
    await insertAlert(t.ctx.db, org, { createdAt: '2026-06-15T09:00:00Z', sourceName: 'plain', message: '\rcr' });
    const res = await get(t.app, '/alerts?format=csv', k);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(
      BOM +
        'sourceType,sourceName,severity,notificationKind,status,message,createdAt,resolvedAt,acknowledgedAt,failureCount,lastOccurrenceAt,workspaceName,capacityName\r\n' +
        `'\tTab,"'=HYPERLINK(""http://evil"",""x"")",error,'+cmd,open,"a, ""b""\nc",2026-06-15T10:00:00.000Z,,,1,2026-06-15T10:00:00.000Z,'@SUM(A1),'-1+1\r\n` +
        `Gateway,plain,error,GatewayOffline,open,"'\rcr",2026-06-15T09:00:00.000Z,,,1,2026-06-15T09:00:00.000Z,,\r\n`,
    );
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.headers['x-next-link']).toBe('');
    expect(res.headers['content-disposition']).toBe('attachment; filename="alerts-page-1.csv"');
  });

  it('returns an empty CSV page as the header row only', async () => {
    const org = await insertOrg(t.ctx.db);
    const k = (await insertKey(t.ctx.db, org)).key;
    const res = await get(t.app, '/capacities?format=csv', k);
    expect(res.body).toBe(`${BOM}name,sku,state,region\r\n`);
    expect(res.headers['content-disposition']).toBe('attachment; filename="capacities-page-1.csv"');
    expect(res.headers['x-total-count']).toBe('0');
  });

  describe('daily costs', () => {
    let costKey: string;
    beforeAll(async () => {
      const org = await insertOrg(t.ctx.db);
      costKey = (await insertKey(t.ctx.db, org)).key;
      // Default window: the 30 complete days before 2026-06-15 = 2026-05-16 .. 2026-06-14.
      await insertCost(t.ctx.db, org, { date: '2026-06-15', capacityName: 'cap-a', currency: 'EUR', cost: 1 }); // today: outside
      await insertCost(t.ctx.db, org, { date: '2026-06-14', capacityName: 'cap-b', currency: 'BRL', cost: 10.5, amortizedCost: 9.25, overageCost: 1.25 });
      await insertCost(t.ctx.db, org, { date: '2026-06-14', capacityName: 'cap-a', currency: 'BRL', cost: 20 });
      await insertCost(t.ctx.db, org, { date: '2026-05-16', capacityName: 'cap-a', currency: 'USD', cost: 3 });
      await insertCost(t.ctx.db, org, { date: '2026-05-20', capacityName: 'cap-a', currency: 'USD', cost: 4 });
      await insertCost(t.ctx.db, org, { date: '2026-05-15', capacityName: 'cap-a', currency: 'EUR', cost: 5 }); // before window
      await insertCost(t.ctx.db, org, { date: '2026-05-15', capacityName: 'cap-b', currency: 'EUR', cost: 5 });
      await insertCost(t.ctx.db, org, { date: '2026-05-15', capacityName: 'cap-c', currency: 'EUR', cost: 5 });
    });

    it('defaults to the 30 complete days and the predominant currency (ties alphabetical)', async () => {
      const res = await get(t.app, '/costs/daily', costKey);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        value: [
          { date: '2026-06-14', capacityName: 'cap-a', currency: 'BRL', cost: 20, amortizedCost: 20, overageCost: 0 },
          { date: '2026-06-14', capacityName: 'cap-b', currency: 'BRL', cost: 10.5, amortizedCost: 9.25, overageCost: 1.25 },
        ],
        page: 1,
        pageSize: 100,
        totalCount: 2,
        nextLink: '',
      });
    });

    it('uses the requested currency and pins window and currency in nextLink', async () => {
      const res = await get(t.app, '/costs/daily?currency=USD&pageSize=1', costKey);
      expect(res.json().value).toEqual([{ date: '2026-05-20', capacityName: 'cap-a', currency: 'USD', cost: 4, amortizedCost: 4, overageCost: 0 }]);
      expect(res.json().nextLink).toBe('/api/public/v1/costs/daily?from=2026-05-16&to=2026-06-14&currency=USD&page=2&pageSize=1');
      const eur = await get(t.app, '/costs/daily?from=2026-05-01&to=2026-06-30', costKey);
      expect(eur.json().value.map((c: any) => c.currency)).toEqual(['EUR', 'EUR', 'EUR', 'EUR']);
      const one = await get(t.app, '/costs/daily?from=2026-06-14&to=2026-06-14', costKey);
      expect(one.json().totalCount).toBe(2);
      const none = await get(t.app, '/costs/daily?currency=JPY', costKey);
      expect(none.json()).toMatchObject({ value: [], totalCount: 0, nextLink: '' });
    });

    it('refuses unknown currencies, bad dates and inverted or long windows', async () => {
      for (const [url, param] of [
        ['/costs/daily?currency=ABC', 'currency'],
        ['/costs/daily?currency=usd', 'currency'],
        ['/costs/daily?currency=XXX', 'currency'],
        ['/costs/daily?from=2026-02-29', 'from'],
        ['/costs/daily?to=2026-06-01T00:00:00Z', 'to'],
        ['/costs/daily?from=2026-06-02&to=2026-06-01', 'from'],
        ['/costs/daily?from=2025-01-01&to=2026-01-02', 'from'],
      ] as const) {
        const res = await get(t.app, url, costKey);
        expect(res.statusCode, url).toBe(400);
        expect(errorOf(res).message, url).toContain(param);
      }
    });

    it('renders costs as CSV with numbers unquoted', async () => {
      const res = await get(t.app, '/costs/daily?format=csv', costKey);
      expect(res.headers['content-disposition']).toBe('attachment; filename="daily-costs-page-1.csv"');
      expect(res.body).toBe(
        `${BOM}date,capacityName,currency,cost,amortizedCost,overageCost\r\n2026-06-14,cap-a,BRL,20,20,0\r\n2026-06-14,cap-b,BRL,10.5,9.25,1.25\r\n`,
      );
    });
  });
});

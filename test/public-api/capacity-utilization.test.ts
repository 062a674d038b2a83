/**
 * GET /api/public/v1/capacities/utilization: hourly roll-ups (max, mean, minutes per throttling
 * stage) and 30-second figures as the utilization collector stores them, one organization only,
 * scope ReadCapacities, the public API's paging and CSV; and the history's retention (14 days of
 * 30-second figures, 400 days of hours).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { purgeUtilizationHistory, storeWindows } from '../../src/monitoring/sources/utilization/capacity-history.js';
import type { WindowFigures } from '../../src/monitoring/sources/utilization/utilization-events.js';
import { createTenant } from '../../src/monitoring/tenants.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { get, insertKey, insertOrg } from './helpers.js';

const BOM = '\ufeff';

function win(capacityName: string, at: string, utilizationPct: number, delayPct: number, carry = 0): WindowFigures {
  return {
    capacityId: `id-${capacityName}`,
    capacityName,
    sku: 'F64',
    windowStart: new Date(at),
    baseCu: 64,
    capacityUnitMs: (utilizationPct / 100) * 64 * 30_000,
    utilizationPct,
    delayPct,
    interactiveRejectionPct: delayPct / 2,
    backgroundRejectionPct: delayPct / 10,
    carryForwardCuMs: carry,
    workloads: {},
  };
}

describe('public API: capacity utilization', () => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let tenantRef: string;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { apiRateLimitPerMinute: 100_000 } });
    orgId = await insertOrg(t.ctx.db);
    key = (await insertKey(t.ctx.db, orgId)).key;
    const tenant = await createTenant(t.ctx, orgId, {
      name: 'T',
      tenantId: '11111111-2222-3333-4444-555555555555',
      clientId: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
      credentials: { clientSecret: 'x' },
      mode: 'admin',
    });
    tenantRef = tenant.id;
    await storeWindows(t.ctx.db, orgId, tenantRef, [
      win('cap-a', '2026-06-15T10:00:00Z', 50, 60),
      win('cap-a', '2026-06-15T10:00:30Z', 150, 120, 64_000),
      win('cap-a', '2026-06-15T10:01:00Z', 100, 90),
      win('cap-b', '2026-06-15T10:00:00Z', 20, 20),
      win('cap-a', '2026-06-15T11:00:00Z', 40, 40),
    ]);
    // A window stored twice (a re-read after a failed commit) changes nothing.
    await storeWindows(t.ctx.db, orgId, tenantRef, [win('cap-a', '2026-06-15T10:00:30Z', 150, 120, 64_000)]);
    // Another organization's figures are never visible.
    const other = await insertOrg(t.ctx.db);
    const otherTenant = await createTenant(t.ctx, other, { name: 'O', tenantId: '11111111-2222-3333-4444-555555555556', clientId: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeef', credentials: { clientSecret: 'x' }, mode: 'admin' });
    await storeWindows(t.ctx.db, other, otherTenant.id, [win('cap-a', '2026-06-15T10:00:00Z', 99, 99)]);
  });
  afterAll(() => t.close());

  it('answers hourly roll-ups by default: max, mean and minutes per stage, oldest first', async () => {
    const res = await get(t.app, '/capacities/utilization?capacityName=cap-a', key);
    expect(res.statusCode).toBe(200);
    const [h10, h11] = res.json().value;
    expect(res.json().totalCount).toBe(2);
    expect(h10).toMatchObject({ time: '2026-06-15T10:00:00Z', capacityName: 'cap-a', granularity: 'hour', windows: 3, utilizationMax: 150, utilizationMean: 100, interactiveDelayMax: 120, interactiveDelayMinutes: 0.5, interactiveRejectionMinutes: 0, carryForwardMaxCuSeconds: 64 });
    expect(h10.interactiveDelayMean).toBeCloseTo(90, 5);
    expect(h11).toMatchObject({ time: '2026-06-15T11:00:00Z', windows: 1, utilizationMax: 40 });
    const all = await get(t.app, '/capacities/utilization', key);
    expect(all.json().value.map((v: any) => [v.time, v.capacityName])).toEqual([
      ['2026-06-15T10:00:00Z', 'cap-a'],
      ['2026-06-15T10:00:00Z', 'cap-b'],
      ['2026-06-15T11:00:00Z', 'cap-a'],
    ]);
  });

  it('answers 30-second figures, pages them and writes CSV', async () => {
    const res = await get(t.app, '/capacities/utilization?capacityName=cap-a&granularity=30s&pageSize=2&from=2026-06-15T10:00:00Z&to=2026-06-15T10:30:00Z', key);
    expect(res.json()).toMatchObject({ page: 1, pageSize: 2, totalCount: 3 });
    expect(res.json().value[1]).toMatchObject({ time: '2026-06-15T10:00:30Z', granularity: '30s', windows: 1, utilizationMax: 150, utilizationMean: 150, interactiveDelayMinutes: 0.5 });
    expect(res.json().nextLink).toContain('granularity=30s');
    const csv = await get(t.app, `${res.json().nextLink}&format=csv`.replace('/api/public/v1', ''), key);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.body.startsWith(`${BOM}time,capacityName,granularity,windows,utilizationMax`)).toBe(true);
    expect(csv.body).toContain('2026-06-15T10:01:00Z,cap-a,30s,1,100');
  });

  it('refuses a bad window or granularity with the error envelope, and a key without ReadCapacities', async () => {
    expect((await get(t.app, '/capacities/utilization?granularity=minute', key)).statusCode).toBe(400);
    expect((await get(t.app, '/capacities/utilization?from=2026-06-15T11:00:00Z&to=2026-06-15T10:00:00Z', key)).statusCode).toBe(400);
    const narrow = (await insertKey(t.ctx.db, orgId, ['ReadAlerts'])).key;
    expect((await get(t.app, '/capacities/utilization', narrow)).statusCode).toBe(403);
  });

  it('keeps 30-second figures 14 days and hourly roll-ups 400 days', async () => {
    const purged = await purgeUtilizationHistory(t.ctx.db, new Date('2026-06-29T10:00:45Z'));
    // Every organization's windows older than 14 days: three of this one, one of the other.
    expect(purged).toEqual({ windows: 4, hours: 0 });
    expect((await get(t.app, '/capacities/utilization?granularity=30s&from=2026-06-15T00:00:00Z&to=2026-06-16T00:00:00Z', key)).json().totalCount).toBe(2);
    expect((await get(t.app, '/capacities/utilization?from=2026-06-15T00:00:00Z&to=2026-06-16T00:00:00Z', key)).json().totalCount).toBe(3);
    expect(await purgeUtilizationHistory(t.ctx.db, new Date('2027-07-20T12:00:00Z'))).toEqual({ windows: 2, hours: 4 });
  });
});

/**
 * GET /api/admin/v1/orgs/{orgId}/capacities/utilization — the console's capacity load chart:
 * the public API's figures for the same period (compared item for item), the load incidents of
 * the period, one organization only, and bad query strings refused with the 400 envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { storeWindows } from '../../src/monitoring/sources/utilization/capacity-history.js';
import type { WindowFigures } from '../../src/monitoring/sources/utilization/utilization-events.js';
import { createTenant } from '../../src/monitoring/tenants.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { get, insertKey } from '../public-api/helpers.js';

function win(capacityName: string, at: string, utilizationPct: number): WindowFigures {
  return {
    capacityId: `id-${capacityName}`,
    capacityName,
    sku: 'F64',
    windowStart: new Date(at),
    baseCu: 64,
    capacityUnitMs: (utilizationPct / 100) * 64 * 30_000,
    utilizationPct,
    delayPct: utilizationPct,
    interactiveRejectionPct: utilizationPct / 2,
    backgroundRejectionPct: utilizationPct / 10,
    carryForwardCuMs: utilizationPct > 100 ? 64_000 : 0,
    workloads: {},
  };
}

describe('admin API: capacity load chart data', () => {
  let t: TestApp;
  let orgId: string;
  let otherOrgId: string;
  let key: string;
  const tenant = (org: string, n: number) =>
    createTenant(t.ctx, org, { name: `T${n}`, tenantId: `11111111-2222-3333-4444-55555555555${n}`, clientId: `aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeee${n}`, credentials: { clientSecret: 'x' }, mode: 'admin' });

  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { apiRateLimitPerMinute: 100_000 } });
    orgId = (await t.admin('POST', '/orgs', { name: 'Contoso' })).json().id;
    otherOrgId = (await t.admin('POST', '/orgs', { name: 'Fabrikam' })).json().id;
    key = (await insertKey(t.ctx.db, orgId)).key;
    await storeWindows(t.ctx.db, orgId, (await tenant(orgId, 1)).id, [
      win('cap-a', '2026-06-15T10:00:00Z', 50),
      win('cap-a', '2026-06-15T10:00:30Z', 150),
      win('cap-a', '2026-06-15T11:00:00Z', 40),
      win('cap-b', '2026-06-15T10:00:00Z', 20),
    ]);
    await storeWindows(t.ctx.db, otherOrgId, (await tenant(otherOrgId, 2)).id, [win('cap-a', '2026-06-15T10:00:00Z', 99)]);
    // A throttling incident of cap-a (through the signal intake, as the collector raises it), one of the other organization.
    const signal = { sourceType: 'Capacity', sourceId: 'id-cap-a', sourceName: 'cap-a', capacityName: 'cap-a', kind: 'failure', notificationKind: 'CapacityThrottled', title: 'Capacidade cap-a limitada', message: 'Atraso interativo' };
    expect((await t.admin('POST', `/orgs/${orgId}/signals`, signal)).statusCode).toBe(200);
    expect((await t.admin('POST', `/orgs/${otherOrgId}/signals`, { ...signal, sourceId: 'other' })).statusCode).toBe(200);
    expect((await t.admin('POST', `/orgs/${orgId}/signals`, { ...signal, notificationKind: 'RefreshFailed', sourceType: 'Dataset', sourceId: 'ds' })).statusCode).toBe(200);
  });
  afterAll(() => t.close());

  it('answers the public API\'s figures for the same period and the load incidents, scoped to the organization', async () => {
    for (const q of ['capacityName=cap-a', 'granularity=30s&from=2026-06-15T09:00:00Z&to=2026-06-15T12:00:00Z', '']) {
      const admin = await t.admin('GET', `/orgs/${orgId}/capacities/utilization${q ? `?${q}` : ''}`);
      expect(admin.statusCode).toBe(200);
      const pub = await get(t.app, `/capacities/utilization?pageSize=100${q ? `&${q}` : ''}`, key);
      expect(admin.json().items).toEqual(pub.json().value);
    }
    const view = (await t.admin('GET', `/orgs/${orgId}/capacities/utilization?capacityName=cap-a&granularity=30s&from=2026-06-15T10:00:00Z&to=2026-06-15T12:00:00Z`)).json();
    expect(view.items.map((i: { time: string; utilizationMax: number }) => [i.time, i.utilizationMax])).toEqual([
      ['2026-06-15T10:00:00Z', 50],
      ['2026-06-15T10:00:30Z', 150],
      ['2026-06-15T11:00:00Z', 40],
    ]);
    expect(view.incidents).toHaveLength(1);
    expect(view.incidents[0]).toMatchObject({ capacityName: 'cap-a', notificationKind: 'CapacityThrottled', severity: 'error', openedAt: '2026-06-15T12:00:00.000Z', resolvedAt: null });
    // days: the period ending at the server's now (or `to`).
    const lastDay = (await t.admin('GET', `/orgs/${orgId}/capacities/utilization?days=1&granularity=30s&capacityName=cap-a`)).json();
    expect(lastDay.from).toBe('2026-06-14T12:00:00.000Z');
    expect(lastDay.items).toHaveLength(3);
    const other = (await t.admin('GET', `/orgs/${otherOrgId}/capacities/utilization?granularity=30s`)).json();
    expect(other.items.map((i: { utilizationMax: number }) => i.utilizationMax)).toEqual([99]);
    expect(other.incidents).toHaveLength(1);
    expect(other.incidents[0].id).not.toBe(view.incidents[0].id);
  });

  it('refuses bad query strings with the 400 envelope and an unknown organization with 404', async () => {
    for (const [q, words] of [
      ['granularity=minute', 'granularity'],
      ['from=yesterday', 'from'],
      ['from=2026-06-15T12:00:00Z&to=2026-06-15T11:00:00Z', 'from must be earlier than to'],
      ['from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'at most 366 days'],
      ['capacityName=', 'capacityName'],
      ['page=2', 'page'],
      ['days=0', 'days'],
      ['days=2&from=2026-06-15T10:00:00Z', 'from or days'],
    ] as const) {
      const res = await t.admin('GET', `/orgs/${orgId}/capacities/utilization?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.message).toContain(words);
    }
    expect((await t.admin('GET', '/orgs/nope/capacities/utilization')).statusCode).toBe(404);
  });
});

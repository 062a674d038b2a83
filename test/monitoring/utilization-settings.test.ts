/**
 * The tenant connection's `utilization` field in the admin API: defaults in every answer, set on
 * create, changed field by field with PATCH (null removes a source), strict input with the 400
 * envelope (an Eventhouse query URI must be a safe https origin; thresholds in range).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { insertOrg, tenantBody } from './support.js';

const EVENTHOUSE = { queryUri: 'https://trd-abc123.z5.kusto.fabric.microsoft.com', database: 'CapacityMonitoring', table: 'CapacityEvents' };

describe('tenant connections: utilization settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    setResolver(t.ctx, async (host) => (host === 'evil.example.com' ? [{ address: '10.0.0.5', family: 4 }] : [{ address: '93.184.216.34', family: 4 }]));
  });
  afterAll(() => t.close());

  it('answers the defaults, stores a source and thresholds, and changes them field by field', async () => {
    const orgId = await insertOrg(t.ctx);
    const plain = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody());
    expect(plain.statusCode).toBe(201);
    expect(plain.json().utilization).toEqual({ eventhouse: null, metricsApp: null, armScopes: [], warnPercent: 80, recoverWindows: 4, overrides: {} });

    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ utilization: { eventhouse: { ...EVENTHOUSE, queryUri: `${EVENTHOUSE.queryUri}/` }, warnPercent: 70, overrides: { 'Capacity 001': { recoverWindows: 10 } } } }));
    expect(res.statusCode).toBe(201);
    const id = res.json().id;
    expect(res.json().utilization).toEqual({ eventhouse: EVENTHOUSE, metricsApp: null, armScopes: [], warnPercent: 70, recoverWindows: 4, overrides: { 'Capacity 001': { recoverWindows: 10 } } });

    const changed = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { utilization: { recoverWindows: 6, armScopes: ['/subscriptions/00000000-0000-0000-0000-0000000000aa'] } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().utilization).toMatchObject({ eventhouse: EVENTHOUSE, warnPercent: 70, recoverWindows: 6, armScopes: ['/subscriptions/00000000-0000-0000-0000-0000000000aa'] });
    const removed = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { utilization: { eventhouse: null, overrides: null } });
    expect(removed.json().utilization).toMatchObject({ eventhouse: null, overrides: {}, recoverWindows: 6 });
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${id}`)).json().utilization.recoverWindows).toBe(6);
  });

  it('refuses bad input with the 400 envelope and stores nothing', async () => {
    const orgId = await insertOrg(t.ctx);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ eventhouse: { ...EVENTHOUSE, queryUri: 'http://trd.kusto.fabric.microsoft.com' } }, /https/i],
      [{ eventhouse: { ...EVENTHOUSE, queryUri: 'https://evil.example.com' } }, /utilization\.eventhouse\.queryUri/],
      [{ eventhouse: { ...EVENTHOUSE, queryUri: `${EVENTHOUSE.queryUri}/v2/rest/query` } }, /query URI alone/],
      // issue 35: a public host that is not Kusto's would receive the tenant's Kusto Bearer token.
      [{ eventhouse: { ...EVENTHOUSE, queryUri: 'https://93.184.216.34' } }, /Kusto host/],
      [{ eventhouse: { ...EVENTHOUSE, queryUri: 'https://kusto-exfil.example.com' } }, /Kusto host/],
      [{ eventhouse: { ...EVENTHOUSE, queryUri: 'https://kusto.windows.net.example.com' } }, /Kusto host/],
      [{ eventhouse: { ...EVENTHOUSE, table: "T'] | take 1" } }, /Kusto name/],
      [{ warnPercent: 0 }, /warnPercent/],
      [{ recoverWindows: 1000 }, /recoverWindows/],
      [{ metricsApp: { workspaceId: 'x', datasetId: 'y' } }, /GUID/],
      [{ armScopes: ['/subscriptions/nope'] }, /armScopes\[0\]/],
      [{ unknown: true }, /unknown|additional/i],
    ];
    for (const [utilization, message] of cases) {
      const res = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ utilization }));
      expect(res.statusCode, JSON.stringify(utilization)).toBe(400);
      expect(res.json().error.message).toMatch(message);
    }
    expect((await t.admin('GET', `/orgs/${orgId}/tenants`)).json().value).toEqual([]);
  });
});

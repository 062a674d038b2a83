// @engine-neutral: the tenant simulator alone, no database
/**
 * The simulator's Power BI scanner (metadata scanning), on the strict simulator: the modified
 * listing, a scan's life (NotStarted → Running → Succeeded), what a result describes (datasets,
 * schedules, data-source usages, data-source instances with their gateway), omitted workspaces,
 * failed and expired scans, the 100-workspace and 16-scan limits and the 500/h cap of getInfo.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { Limits } from '../../src/tenant-sim/limits.js';
import { call, msalToken, SCOPES, startSim } from './helpers.js';

const BASE = '/v1.0/myorg/admin/workspaces';

let sim: TenantSim | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

async function started(now?: () => number) {
  sim = await startSim(now ? { now } : {});
  return { sim, token: await msalToken(sim, SCOPES.powerbi) };
}

async function scanToSuccess(s: TenantSim, token: string, ids: string[], query = '?lineage=true&datasourceDetails=true') {
  const posted = await call(s, 'POST', `${BASE}/getInfo${query}`, { token, body: { workspaces: ids } });
  expect(posted.status).toBe(202);
  expect(posted.json.status).toBe('NotStarted');
  const statuses: string[] = [];
  for (let i = 0; i < 2; i++) statuses.push((await call(s, 'GET', `${BASE}/scanStatus/${posted.json.id}`, { token })).json.status);
  return { id: posted.json.id as string, statuses };
}

describe('tenant simulator: scanner API', () => {
  it('lists every workspace as modified, then only those changed since an instant 30 minutes to 30 days back', async () => {
    let t = Date.parse('2026-06-15T12:00:00Z');
    const { sim: s, token } = await started(() => t);
    const all = await call(s, 'GET', `${BASE}/modified`, { token });
    expect(all.status).toBe(200);
    expect(all.json).toHaveLength(s.state.workspaces.length);
    t += 60_000;
    const since = new Date(t).toISOString();
    t += 60_000;
    const changed = s.state.workspaces[3]!;
    s.control.workspaceModified({ workspaceId: changed.id });
    // Less than 30 minutes back is outside the documented range.
    const tooRecent = await call(s, 'GET', `${BASE}/modified?modifiedSince=${encodeURIComponent(since)}`, { token });
    expect(tooRecent.status).toBe(400);
    t += 30 * 60_000;
    const later = await call(s, 'GET', `${BASE}/modified?modifiedSince=${encodeURIComponent(since)}`, { token });
    expect(later.json).toEqual([{ id: changed.id }]);
    // A change that shows late: made 20 minutes ago, listed since then.
    const late = s.state.workspaces[4]!;
    s.control.workspaceModified({ workspaceId: late.id, minutesAgo: 20 });
    const withLate = await call(s, 'GET', `${BASE}/modified?modifiedSince=${encodeURIComponent(new Date(t - 30 * 60_000).toISOString())}`, { token });
    expect(withLate.json).toEqual([{ id: late.id }]);
    const tooOld = await call(s, 'GET', `${BASE}/modified?modifiedSince=${encodeURIComponent(new Date(t - 31 * 86_400_000).toISOString())}`, { token });
    expect(tooOld.status).toBe(400);
    expect(s.violations).toEqual([]);
  });

  it('a scan goes NotStarted → Running → Succeeded and describes datasets, schedules and data sources with their gateway', async () => {
    const { sim: s, token } = await started();
    const withGateway = s.state.workspaces.find((w) => w.items.some((i) => i.type === 'SemanticModel' && i.gatewayDatasourceId))!;
    const { id, statuses } = await scanToSuccess(s, token, [withGateway.id]);
    expect(statuses).toEqual(['Running', 'Succeeded']);
    const result = await call(s, 'GET', `${BASE}/scanResult/${id}`, { token });
    expect(result.status).toBe(200);
    const [described] = result.json.workspaces;
    expect(described.id).toBe(withGateway.id);
    const model = withGateway.items.find((i) => i.type === 'SemanticModel' && i.gatewayDatasourceId)!;
    const ds = described.datasets.find((d: { id: string }) => d.id === model.id);
    expect(ds.datasourceUsages).toEqual([{ datasourceInstanceId: model.gatewayDatasourceId }]);
    const instance = result.json.datasourceInstances.find((d: { datasourceId: string }) => d.datasourceId === model.gatewayDatasourceId);
    expect(instance.gatewayId).toBe(s.state.gateways.find((g) => g.datasources.some((d) => d.id === model.gatewayDatasourceId))!.id);
    if (model.refreshSchedule) expect(ds.refreshSchedule.times).toEqual(model.refreshSchedule.times);
    expect(s.violations).toEqual([]);
  });

  it('without lineage and datasourceDetails the result carries neither usages nor instances', async () => {
    const { sim: s, token } = await started();
    const w = s.state.workspaces[0]!;
    const { id } = await scanToSuccess(s, token, [w.id], '');
    const result = await call(s, 'GET', `${BASE}/scanResult/${id}`, { token });
    expect(result.json.datasourceInstances).toBeUndefined();
    expect(result.json.workspaces[0].datasets.every((d: object) => !('datasourceUsages' in d))).toBe(true);
  });

  it('leaves out the workspaces the service cannot describe', async () => {
    const { sim: s, token } = await started();
    const [a, b] = s.state.workspaces;
    s.control.scanOmits({ workspaceId: b!.id });
    const { id } = await scanToSuccess(s, token, [a!.id, b!.id]);
    const result = await call(s, 'GET', `${BASE}/scanResult/${id}`, { token });
    expect(result.json.workspaces.map((w: { id: string }) => w.id)).toEqual([a!.id]);
  });

  it('a failed scan says so and has no result; a result expires 24 h after the scan', async () => {
    let t = Date.parse('2026-06-15T12:00:00Z');
    const { sim: s, token } = await started(() => t);
    s.control.failScans({ count: 1 });
    const failed = await scanToSuccess(s, token, [s.state.workspaces[0]!.id]);
    expect(failed.statuses).toEqual(['Running', 'Failed']);
    expect((await call(s, 'GET', `${BASE}/scanResult/${failed.id}`, { token })).status).toBe(400);
    const good = await scanToSuccess(s, token, [s.state.workspaces[0]!.id]);
    expect((await call(s, 'GET', `${BASE}/scanResult/${good.id}`, { token })).status).toBe(200);
    t += 24 * 3_600_000 + 1;
    const token2 = await msalToken(s, SCOPES.powerbi);
    expect((await call(s, 'GET', `${BASE}/scanResult/${good.id}`, { token: token2 })).status).toBe(404);
    expect((await call(s, 'GET', `${BASE}/scanStatus/${good.id}`, { token: token2 })).status).toBe(404);
  });

  it('refuses more than 100 workspaces a scan and more than 16 scans at once', async () => {
    const { sim: s, token } = await started();
    const ids = s.state.workspaces.map((w) => w.id);
    const tooMany = Array.from({ length: 101 }, (_, i) => ids[i % ids.length]!);
    expect((await call(s, 'POST', `${BASE}/getInfo`, { token, body: { workspaces: tooMany } })).status).toBe(400);
    for (let i = 0; i < 16; i++) expect((await call(s, 'POST', `${BASE}/getInfo`, { token, body: { workspaces: [ids[0]] } })).status).toBe(202);
    const seventeenth = await call(s, 'POST', `${BASE}/getInfo`, { token, body: { workspaces: [ids[0]] } });
    expect(seventeenth.status).toBe(429);
    expect(Number(seventeenth.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('getInfo is capped at 500 calls an hour (the documented per-tenant cap)', () => {
    let t = Date.parse('2026-06-15T12:00:00Z');
    const limits = new Limits(() => t);
    const path = '/v1.0/myorg/admin/workspaces/getInfo';
    for (let i = 0; i < 500; i++) expect(limits.admit('powerbi-admin', path)).toBeNull();
    expect(limits.admit('powerbi-admin', path)?.reason).toBe('cap:powerbi-admin-scanner-getinfo');
    // The other scanner calls are not counted against it.
    expect(limits.admit('powerbi-admin', '/v1.0/myorg/admin/workspaces/scanStatus/x')).toBeNull();
    t += 3_600_001;
    expect(limits.admit('powerbi-admin', path)).toBeNull();
  });
});

/**
 * The console's admin read views (overview and inventory) answer the same figures as the public
 * API for the same period: both call the same query functions, and this proves it on the wire
 * with the demo data seeded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo.js';
import { createTestApp, type TestApp } from '../helpers/context.js';

describe('admin overview and inventory views', () => {
  let t: TestApp;
  let orgId: string;
  let apiKey: string;
  const pub = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/public/v1${url}`, headers: { 'x-api-key': apiKey } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const admin = async (url: string) => {
    const res = await t.admin('GET', `/orgs/${orgId}${url}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, apiKey } = await seedDemo(t.ctx, t.ctx.clock.now()));
  }, 120_000);
  afterAll(() => t?.close());

  it('metrics of a period equal the public API’s, and the daily series adds up to them', async () => {
    const q = '?from=2026-05-17&to=2026-06-15';
    const [mine, theirs, series] = await Promise.all([admin(`/metrics${q}`), pub(`/alerts/metrics${q}`), admin(`/metrics/series${q}&step=day`)]);
    expect(mine).toEqual(theirs);
    expect(theirs.totals.incidents).toBeGreaterThan(0);
    expect(series.buckets).toHaveLength(30);
    expect(series.buckets.reduce((n: number, b: { incidents: number }) => n + b.incidents, 0)).toBe(theirs.totals.incidents);
  });

  it('SLA month, costs of a period: the public API’s numbers', async () => {
    expect(await admin('/sla?month=2026-05')).toEqual(await pub('/sla?month=2026-05'));
    const costs = await admin('/costs/daily?from=2026-06-01&to=2026-06-14');
    const page = await pub('/costs/daily?from=2026-06-01&to=2026-06-14&pageSize=500');
    expect(costs.items).toEqual(page.value);
    expect(costs.items.length).toBeGreaterThan(0);
    const history = await admin('/sla/history');
    expect(history.months.map((m: { month: string }) => m.month)).toEqual(
      ['2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06'],
    );
    expect(history.months[10]).toEqual(await pub('/sla?month=2026-05'));
  });

  it('inventory: capacities and workspaces with open incidents that the alert list confirms', async () => {
    const caps = await admin('/capacities');
    expect(caps.items.map((c: { name: string }) => c.name)).toEqual(['cap-bi-p1', 'cap-dev-f8', 'cap-prod-f64']);
    const sla = await admin('/sla?month=2026-06');
    for (const c of caps.items) {
      const list = await admin(`/alerts?status=open&capacityName=${encodeURIComponent(c.name)}`);
      expect(list.totalCount).toBe(c.openIncidents);
      const a = sla.availability.find((x: { capacityName: string }) => x.capacityName === c.name);
      expect(c.availabilityPercent).toBe(a.availabilityPercent);
    }
    expect(caps.items.find((c: { name: string }) => c.name === 'cap-prod-f64').openIncidents).toBeGreaterThan(0);
    const ws = await admin('/workspaces');
    const vendas = ws.items.find((w: { name: string }) => w.name === 'Vendas');
    const list = await admin('/alerts?status=open&workspaceName=Vendas');
    expect(list.totalCount).toBe(vendas.openIncidents);
    const open = await admin('/incidents/open');
    expect(open.total).toBe((await admin('/alerts?status=open')).totalCount);
  });

  it('bad periods are a 400 envelope; an unknown organization a 404', async () => {
    const bad = await t.admin('GET', `/orgs/${orgId}/metrics/series?from=2025-01-01&to=2025-12-31&step=day`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_request');
    expect((await t.admin('GET', `/orgs/${orgId}/metrics?from=nope`)).statusCode).toBe(400);
    expect((await t.admin('GET', '/orgs/org_missing/capacities')).statusCode).toBe(404);
  });
});

/**
 * The freshness collector against the tenant simulator (scheduled refreshes running on the test's
 * clock): a skipped slot opens RefreshMissed once its grace period is over and a late success
 * recovers it; a run that completes late is "still running" until it completes; DataStale
 * follows the most specific maximum age (item, then workspace, then tenant) for semantic models
 * and mirrored tables, and recovers on fresh data; the settings API checks roles, input and the
 * organization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession } from '../../src/access/sessions.js';
import { ManualClock } from '../../src/clock.js';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { freshnessCollector } from '../../src/monitoring/sources/freshness/freshness.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import { createTenant } from '../../src/monitoring/tenants.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { insertOrg } from './support.js';

const ALL_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

describe('collector: freshness', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-06-15T12:00:00Z');
  const sims: TenantSim[] = [];
  const runners: CollectorScheduler[] = [];

  beforeAll(async () => {
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
  });
  afterAll(async () => {
    await Promise.all(runners.map((r) => r.stop()));
    await Promise.all(sims.map((s) => s.stop()));
    await t.close();
  });

  /** A simulator on the test's clock; its tokens outlive the clock's jumps. */
  async function sim(seed: number, workspaces: number) {
    const s = await startSim({ seed, sizes: { capacities: 1, workspaces, gateways: 0 }, now: () => clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    sims.push(s);
    return s;
  }
  async function connect(orgId: string, s: TenantSim) {
    return createTenant(t.ctx, orgId, {
      name: 'Contoso BI',
      tenantId: s.tenantId,
      clientId: s.clientId,
      credentials: { clientSecret: s.clientSecret },
      mode: 'member',
      collectors: { freshness: { intervalSeconds: 300 } },
      endpoints: { authorityHost: s.origin, powerBi: s.origin, fabric: s.origin, arm: s.origin },
    });
  }
  function runner() {
    const r = new CollectorScheduler(t.ctx, { pollMs: 60_000, stopTimeoutMs: 2_000, collectors: [freshnessCollector] });
    runners.push(r);
    return r;
  }
  async function lastError(tenantRef: string) {
    const { rows } = await t.ctx.db.query<{ last_error: string | null }>(`SELECT last_error FROM collector_schedules WHERE tenant_ref = $1 AND collector = 'freshness'`, [tenantRef]);
    return rows[0]?.last_error;
  }
  async function incidents(orgId: string) {
    const { rows } = await t.ctx.db.query<{ source_id: string; notification_kind: string; status: string; message: string; workspace_name: string | null }>(
      `SELECT source_id, notification_kind, status, message, workspace_name FROM alerts WHERE org_id = $1 AND source_type = 'DataFreshness' ORDER BY created_at, id`,
      [orgId],
    );
    return rows;
  }
  const open = async (orgId: string) =>
    (await incidents(orgId))
      .filter((r) => r.status === 'open')
      .map((r) => `${r.notification_kind} ${r.source_id}`)
      .sort();

  it('a skipped slot opens RefreshMissed after the grace period; a late success recovers it', async () => {
    clock.set('2026-06-15T12:00:00Z');
    const s = await sim(181, 2);
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s);
    const [a, b] = s.state.workspaces.map((w) => w.items[0]!) as [TenantSim['state']['workspaces'][0]['items'][0], TenantSim['state']['workspaces'][0]['items'][0]];
    s.control.refreshSchedule({ datasetId: a.id, days: ALL_DAYS, times: ['13:00'], enabled: true, localTimeZoneId: 'UTC' });
    s.control.refreshSchedule({ datasetId: b.id, enabled: false });
    s.control.scheduledRefreshes({ on: true });
    // Yesterday's slot was served by a run this morning: nothing to say at the start.
    s.control.refreshResult({ datasetId: a.id, status: 'Completed' });
    const r = runner();
    await r.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect(await incidents(orgId)).toEqual([]);
    expect(s.countCalls({ path: /\/refreshSchedule$/ })).toBe(2);

    // 13:00 is skipped (the run never starts); within the grace period nothing is read or said.
    s.control.skipScheduledRefresh({ datasetId: a.id });
    clock.set('2026-06-15T13:20:00Z');
    const before = s.countCalls({ path: /\/refreshes$/ });
    await r.pass();
    expect(s.countCalls({ path: /\/refreshes$/ })).toBe(before);
    expect(await incidents(orgId)).toEqual([]);

    clock.set('2026-06-15T13:31:00Z');
    await r.pass();
    expect(await lastError(tenant.id)).toBeNull();
    const missed = await incidents(orgId);
    expect(missed).toMatchObject([{ source_id: a.id.toLowerCase(), notification_kind: 'RefreshMissed', status: 'open', workspace_name: s.state.workspaces[0]!.name }]);
    expect(missed[0]!.message).toContain('2026-06-15T13:00:00.000Z');
    expect(missed[0]!.message).toContain('nenhuma atualização começou');

    // Still nothing at the next run; then an on-demand refresh completes: a late success.
    clock.set('2026-06-15T13:40:00Z');
    await r.pass();
    expect(await open(orgId)).toEqual([`RefreshMissed ${a.id.toLowerCase()}`]);
    clock.set('2026-06-15T14:00:00Z');
    s.control.refreshResult({ datasetId: a.id, status: 'Completed' });
    clock.set('2026-06-15T14:05:00Z');
    await r.pass();
    expect(await open(orgId)).toEqual([]);

    // Next day the scheduled run starts on time but completes 60 minutes late.
    s.control.lateScheduledRefresh({ datasetId: a.id, minutes: 60 });
    clock.set('2026-06-16T13:31:00Z');
    await r.pass();
    const late = (await incidents(orgId)).filter((x) => x.status === 'open');
    expect(late).toHaveLength(1);
    expect(late[0]!.message).toContain('ainda está em execução');
    clock.set('2026-06-16T14:05:00Z');
    await r.pass();
    expect(await open(orgId)).toEqual([]);
    // A miss whose schedule is then disabled is released when the schedule is read again (6 h on).
    s.control.skipScheduledRefresh({ datasetId: a.id });
    clock.set('2026-06-17T13:31:00Z');
    await r.pass();
    expect(await open(orgId)).toEqual([`RefreshMissed ${a.id.toLowerCase()}`]);
    s.control.refreshSchedule({ datasetId: a.id, enabled: false });
    clock.set('2026-06-17T16:00:00Z');
    await r.pass();
    expect(await open(orgId)).toEqual([`RefreshMissed ${a.id.toLowerCase()}`]);
    clock.set('2026-06-17T19:40:00Z');
    await r.pass();
    expect(await open(orgId)).toEqual([]);
    // The model without an enabled schedule never had an incident.
    expect((await incidents(orgId)).some((x) => x.source_id === b.id.toLowerCase())).toBe(false);
    expect(s.violations).toEqual([]);
  });

  it('member mode reads the catalog in slices within each run budget; a model is judged once its workspace was read, never before', async () => {
    clock.set('2026-06-15T12:00:00Z');
    const s = await sim(183, 120);
    const orgId = await insertOrg(t.ctx);
    // 300 s: a run may spend 60 Power BI and 60 Fabric calls on the catalog (10 % of each cap; the
    // workspace listing's two pages come out of the Fabric share), so 120 workspaces take three runs.
    const tenant = await createTenant(t.ctx, orgId, {
      name: 'Contoso BI',
      tenantId: s.tenantId,
      clientId: s.clientId,
      credentials: { clientSecret: s.clientSecret },
      mode: 'member',
      collectors: { freshness: { intervalSeconds: 300 } },
      endpoints: { authorityHost: s.origin, powerBi: s.origin, fabric: s.origin, arm: s.origin },
    });
    // The one scheduled model is in the workspace read last (workspaces take turns by id).
    const last = [...s.state.workspaces].sort((a, b) => (a.id.toLowerCase() < b.id.toLowerCase() ? -1 : 1)).at(-1)!;
    const x = last.items.find((i) => i.type === 'SemanticModel')!;
    for (const w of s.state.workspaces) for (const i of w.items) if (i.type === 'SemanticModel' && i.id !== x.id) s.control.refreshSchedule({ datasetId: i.id, enabled: false });
    s.control.refreshSchedule({ datasetId: x.id, days: ALL_DAYS, times: ['13:00'], enabled: true, localTimeZoneId: 'UTC' });
    s.control.scheduledRefreshes({ on: true });
    s.control.refreshResult({ datasetId: x.id, status: 'Completed' });
    s.control.skipScheduledRefresh({ datasetId: x.id });

    const datasets = () => s.countCalls({ family: 'powerbi', path: /\/groups\/[^/]+\/datasets$/ });
    const fabric = () => s.countCalls({ family: 'fabric' });
    const powerbi = () => s.countCalls({ family: 'powerbi' });
    const r = runner();
    // Runs start past the 13:00 slot's grace period: X is late from the start.
    clock.set('2026-06-15T13:31:00Z');
    const perRun: { datasets: number; fabric: number; powerbi: number }[] = [];
    for (let run = 0; run < 3; run++) {
      const before = { datasets: datasets(), fabric: fabric(), powerbi: powerbi() };
      await r.pass();
      expect(await lastError(tenant.id)).toBeNull();
      perRun.push({ datasets: datasets() - before.datasets, fabric: fabric() - before.fabric, powerbi: powerbi() - before.powerbi });
      if (run < 2) {
        // X's workspace is not read yet: no incident for a model not catalogued.
        expect(await open(orgId)).toEqual([]);
        const { rows } = await t.ctx.db.query(`SELECT 1 FROM collector_state WHERE tenant_ref = $1 AND collector = 'freshness' AND key = $2`, [tenant.id, `model:${x.id.toLowerCase()}`]);
        expect(rows).toEqual([]);
      }
      clock.set(new Date(clock.now().getTime() + 300_000).toISOString());
    }
    // Every workspace read once over three runs, each within its share (catalog 60 per family;
    // the whole collector 60 + 30 schedules + 90 refreshes on Power BI, 60 + 60 mirrors on Fabric).
    expect(perRun.map((p) => p.datasets)).toEqual([perRun[0]!.datasets, perRun[1]!.datasets, 120 - perRun[0]!.datasets - perRun[1]!.datasets]);
    for (const p of perRun) {
      expect(p.datasets).toBeGreaterThan(0);
      expect(p.datasets).toBeLessThanOrEqual(60);
      expect(p.powerbi).toBeLessThanOrEqual(60 + 30 + 90);
      expect(p.fabric).toBeLessThanOrEqual(60 + 60);
    }
    expect(datasets()).toBe(120);
    const { rows: mark } = await t.ctx.db.query<{ value: { readAt: string | null; passing?: boolean } }>(`SELECT value FROM collector_state WHERE tenant_ref = $1 AND collector = 'freshness' AND key = 'catalog'`, [tenant.id]);
    expect(mark[0]!.value.passing).toBeUndefined();
    expect(mark[0]!.value.readAt).not.toBeNull();
    // The tenant view shows the pass: 120 workspaces taking turns, the first pass 600 s (runs 1 to 3).
    const view = await t.admin('GET', `/orgs/${orgId}/tenants/${tenant.id}`);
    expect(view.statusCode).toBe(200);
    const fresh = view.json().collectors.find((c: { name: string }) => c.name === 'freshness');
    expect(fresh.rotation.catalog).toEqual({ lastFullRotationSeconds: 600, hot: 0, cold: 120 });
    expect(fresh.lastPolled).toBeGreaterThanOrEqual(4);

    // Once catalogued, X's schedule is read (new models' schedules take turns too) and the missed slot opens.
    for (let run = 0; run < 40 && (await open(orgId)).length === 0; run++) {
      const before = datasets();
      await r.pass();
      expect(datasets()).toBe(before); // the pass is complete: no catalog reads until it is due again
      clock.set(new Date(clock.now().getTime() + 300_000).toISOString());
    }
    expect(await open(orgId)).toEqual([`RefreshMissed ${x.id.toLowerCase()}`]);

    // A workspace gone from the listing loses its models (and releases their incidents) at the next pass.
    s.state.workspaces.splice(s.state.workspaces.indexOf(last), 1);
    clock.set(new Date(clock.now().getTime() + 6 * 3_600_000).toISOString());
    for (let run = 0; run < 3; run++) {
      await r.pass();
      clock.set(new Date(clock.now().getTime() + 300_000).toISOString());
    }
    expect(await open(orgId)).toEqual([]);
    const { rows: gone } = await t.ctx.db.query(`SELECT 1 FROM collector_state WHERE tenant_ref = $1 AND collector = 'freshness' AND key = $2`, [tenant.id, `model:${x.id.toLowerCase()}`]);
    expect(gone).toEqual([]);
    expect(s.violations).toEqual([]);
  });

  it('a slot missed while the capacity is suspended is correlated to the capacity incident', async () => {
    clock.set('2026-06-15T12:00:00Z');
    const s = await sim(182, 1);
    const orgId = await insertOrg(t.ctx);
    const tenant = await createTenant(t.ctx, orgId, {
      name: 'Contoso BI',
      tenantId: s.tenantId,
      clientId: s.clientId,
      credentials: { clientSecret: s.clientSecret },
      mode: 'member',
      collectors: { freshness: { intervalSeconds: 300 }, capacity: { intervalSeconds: 300 } },
      endpoints: { authorityHost: s.origin, powerBi: s.origin, fabric: s.origin, arm: s.origin },
    });
    const w = s.state.workspaces[0]!;
    const model = w.items[0]!;
    expect(w.capacityId).not.toBeNull();
    s.control.refreshSchedule({ datasetId: model.id, days: ALL_DAYS, times: ['13:00'], enabled: true, localTimeZoneId: 'UTC' });
    s.control.scheduledRefreshes({ on: true });
    s.control.refreshResult({ datasetId: model.id, status: 'Completed' });
    const capacities = new CollectorScheduler(t.ctx, { pollMs: 60_000, stopTimeoutMs: 2_000, collectors: [capacityCollector] });
    runners.push(capacities);
    const r = runner();
    await capacities.pass();
    await r.pass();
    expect(await lastError(tenant.id)).toBeNull();
    // The lineage knows where the model runs.
    const { rows: placed } = await t.ctx.db.query<{ capacity_id: string | null }>('SELECT capacity_id FROM monitored_lineage WHERE tenant_ref = $1 AND item_id = $2', [tenant.id, model.id.toLowerCase()]);
    expect(placed).toEqual([{ capacity_id: w.capacityId!.toLowerCase() }]);

    s.control.capacityState({ capacityId: w.capacityId!, state: 'Suspended' });
    s.control.skipScheduledRefresh({ datasetId: model.id });
    clock.set('2026-06-15T13:31:00Z');
    await capacities.pass();
    await r.pass();
    const { rows } = await t.ctx.db.query<{ source_type: string; notification_kind: string; status: string; correlated: boolean }>(
      'SELECT source_type, notification_kind, status, correlated FROM alerts WHERE org_id = $1 ORDER BY source_type',
      [orgId],
    );
    expect(rows).toMatchObject([
      { source_type: 'Capacity', notification_kind: 'CapacityNotActive', status: 'open', correlated: false },
      { source_type: 'DataFreshness', notification_kind: 'RefreshMissed', status: 'open', correlated: true },
    ]);
    expect(s.violations).toEqual([]);
  });

  it('DataStale follows the most specific maximum age (item, workspace, tenant) and recovers on fresh data', async () => {
    clock.set('2026-06-15T12:00:00Z');
    const s = await sim(184, 3);
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s);
    const [w1, w2, w3] = s.state.workspaces as [TenantSim['state']['workspaces'][0], TenantSim['state']['workspaces'][0], TenantSim['state']['workspaces'][0]];
    const [m1, m2, m3] = [w1.items[0]!, w2.items[0]!, w3.items[0]!];
    const mirror = w1.items[1]!;
    expect(mirror.type).toBe('MirroredDatabase');
    for (const m of [m1, m2, m3]) {
      s.control.refreshSchedule({ datasetId: m.id, enabled: false });
      s.control.refreshResult({ datasetId: m.id, status: 'Completed' });
    }
    for (const tb of mirror.mirroring!.tables) s.control.mirroredTableSync({ itemId: mirror.id, table: tb.sourceTableName });

    const put = await t.admin('PUT', `/orgs/${orgId}/tenants/${tenant.id}/freshness`, {
      maxAgeMinutes: 120,
      workspaces: [{ id: w1.id.toUpperCase(), maxAgeMinutes: 600 }],
      items: [
        { id: m2.id, maxAgeMinutes: 30 },
        { id: mirror.id, maxAgeMinutes: 60 },
      ],
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ graceMinutes: 30, maxAgeMinutes: 120, workspaces: [{ id: w1.id.toLowerCase(), maxAgeMinutes: 600 }] });

    const r = runner();
    await r.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect(await incidents(orgId)).toEqual([]);

    const table = (name: string) => `DataStale ${mirror.id.toLowerCase()}/dbo.${name}`;
    clock.set('2026-06-15T12:45:00Z');
    await r.pass();
    expect(await open(orgId)).toEqual([`DataStale ${m2.id.toLowerCase()}`]);

    clock.set('2026-06-15T13:10:00Z');
    s.control.mirroredTableSync({ itemId: mirror.id, table: 'table_1' });
    await r.pass();
    expect(await open(orgId)).toEqual([`DataStale ${m2.id.toLowerCase()}`, table('table_2'), table('table_3')].sort());

    clock.set('2026-06-15T14:10:00Z');
    s.control.mirroredTableSync({ itemId: mirror.id, table: 'table_1' });
    await r.pass();
    // m3 takes the tenant's 120 minutes; m1 its workspace's 600.
    expect(await open(orgId)).toEqual([`DataStale ${m2.id.toLowerCase()}`, `DataStale ${m3.id.toLowerCase()}`, table('table_2'), table('table_3')].sort());
    const m3Incident = (await incidents(orgId)).find((x) => x.source_id === m3.id.toLowerCase())!;
    expect(m3Incident.message).toContain('idade máxima de 120 min');

    s.control.refreshResult({ datasetId: m2.id, status: 'Completed' });
    s.control.refreshResult({ datasetId: m3.id, status: 'Completed' });
    for (const tb of mirror.mirroring!.tables) s.control.mirroredTableSync({ itemId: mirror.id, table: tb.sourceTableName });
    clock.set('2026-06-15T14:15:00Z');
    await r.pass();
    expect(await open(orgId)).toEqual([]);
    expect((await incidents(orgId)).every((x) => x.status === 'resolved')).toBe(true);
    expect((await incidents(orgId)).some((x) => x.source_id === m1.id.toLowerCase())).toBe(false);

    // Removing the limits releases what is stale.
    clock.set('2026-06-15T16:30:00Z');
    await r.pass();
    expect(await open(orgId)).toContain(`DataStale ${m2.id.toLowerCase()}`);
    expect((await t.admin('DELETE', `/orgs/${orgId}/tenants/${tenant.id}/freshness`)).statusCode).toBe(204);
    clock.set('2026-06-15T16:40:00Z');
    await r.pass();
    expect(await open(orgId)).toEqual([]);
    expect(s.violations).toEqual([]);
  });

  it('settings API: viewers and operators read, owners write (like every tenant setting), input is checked, other organizations get 404', async () => {
    clock.set('2026-06-15T12:00:00Z');
    const s = await sim(183, 1);
    const orgId = await insertOrg(t.ctx);
    const otherOrgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s);
    const url = `/orgs/${orgId}/tenants/${tenant.id}/freshness`;
    const people: Record<string, { cookie: string; csrf: string }> = {};
    for (const role of ['viewer', 'operator', 'owner'] as const) {
      const res = await t.admin('PUT', `/orgs/${orgId}/members`, { email: `${role}-fresh@example.test`, role });
      expect(res.statusCode).toBe(200);
      const session = await openSession(t.ctx.db, { personId: res.json().id, now: clock.now(), times: { idleMs: 3_600_000, maxMs: 43_200_000 } });
      people[role] = { cookie: `vigia_session=${session.id}`, csrf: session.csrfToken };
    }
    const as = (role: string, method: 'GET' | 'PUT' | 'DELETE', payload?: unknown) =>
      t.app.inject({ method, url: `/api/admin/v1${url}`, headers: { cookie: people[role]!.cookie, 'x-csrf-token': people[role]!.csrf }, ...(payload === undefined ? {} : { payload: payload as never }) });

    const fresh = await as('viewer', 'GET');
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json()).toEqual({ graceMinutes: 30, maxAgeMinutes: null, workspaces: [], items: [] });
    expect((await as('viewer', 'PUT', { maxAgeMinutes: 60 })).statusCode).toBe(403);
    expect((await as('viewer', 'DELETE')).statusCode).toBe(403);
    expect((await as('operator', 'PUT', { maxAgeMinutes: 60 })).statusCode).toBe(403);
    expect((await as('operator', 'DELETE')).statusCode).toBe(403);
    const saved = await as('owner', 'PUT', { graceMinutes: 45, maxAgeMinutes: 60, items: [{ id: 'ABC', maxAgeMinutes: 15 }] });
    expect(saved.statusCode).toBe(200);
    expect((await as('viewer', 'GET')).json()).toEqual({ graceMinutes: 45, maxAgeMinutes: 60, workspaces: [], items: [{ id: 'abc', maxAgeMinutes: 15 }] });

    for (const bad of [
      { maxAgeMinutes: 0 },
      { maxAgeMinutes: -5 },
      { maxAgeMinutes: 1.5 },
      { maxAgeMinutes: '60' },
      { maxAgeMinutes: 90 * 24 * 60 + 1 },
      { graceMinutes: 0 },
      { items: [{ id: 'x', maxAgeMinutes: 0 }] },
      { items: [{ id: 'x' }] },
      { items: [{ id: 'x', maxAgeMinutes: 5 }, { id: 'X', maxAgeMinutes: 6 }] },
      { workspaces: [{ id: '', maxAgeMinutes: 5 }] },
      { unknown: 1 },
    ]) {
      const res = await as('owner', 'PUT', bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error.code).toBeTypeOf('string');
    }
    // Nothing of the refused documents was kept.
    expect((await as('viewer', 'GET')).json().graceMinutes).toBe(45);

    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await t.admin(method, `/orgs/${otherOrgId}/tenants/${tenant.id}/freshness`, method === 'PUT' ? { maxAgeMinutes: 5 } : undefined);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    expect((await as('owner', 'DELETE')).statusCode).toBe(204);
    expect((await as('viewer', 'GET')).json()).toEqual({ graceMinutes: 30, maxAgeMinutes: null, workspaces: [], items: [] });
  });
});

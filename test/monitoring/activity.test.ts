/**
 * The activity collector (admin mode's activity log) against the strict simulator, on both
 * engines: windows inside one UTC day with quoted times, every continuation followed (a window of
 * 23.5 hours is 24 pages, empty ones carrying a continuation), only change activities kept (views,
 * exports and unknown names are not), de-duplicated by record id across passes, late events caught
 * by re-reading the last hour, the actor kept apart from the stored record; malformed records and
 * a refused window skipped and counted; a pass cut by the run's budget, a 429 or a restart resumes
 * at its continuation, never re-reading a window from its start; member mode makes no call.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activityCollector, type ActivityCursor } from '../../src/monitoring/sources/activity/activity.js';
import { readState } from '../../src/monitoring/engine/output.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createHarness, type Harness, schedule } from './harness.js';

const LOG = /\/admin\/activityevents$/;
const GATEWAY = '5b1ae3c2-7d7e-4a61-9c1c-0d1f00000001';
const MODEL = '7c2bf4d3-8e8f-4b72-8d2d-1e2f00000002';
const WORKSPACE = '8d3c05e4-9f90-4c83-9e3e-2f3000000003';

describe('collector: activity', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  async function setUp(intervalSeconds: number, mode: 'admin' | 'member' = 'admin') {
    const sim = await h.sim({ seed: 38, sizes: { capacities: 1, workspaces: 2, gateways: 1 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 60 * 86_400 });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { mode, collectors: { activity: { intervalSeconds } } });
    return { sim, orgId, tenant, runner: h.scheduler({ collectors: [activityCollector] }) };
  }
  const rows = async (tenantRef: string) =>
    (await h.ctx.db.query('SELECT record_id, activity, object_kind, object_id, object_name, gateway_id, datasource_id, actor_upn, raw FROM tenant_changes WHERE tenant_ref = $1 ORDER BY occurred_at', [tenantRef])).rows;
  const cursor = async (tenantRef: string) => (await readState(h.ctx.db, tenantRef, 'activity')).get('cursor') as ActivityCursor;
  const logCalls = (sim: TenantSim) => sim.requests.filter((r) => LOG.test(r.path) && !r.throttled);

  it('reads whole UTC days page by page, keeps only changes once each, catches late ones, and counts what it skips', async () => {
    h.clock.set(new Date('2026-06-16T00:30:00Z'));
    const { sim, tenant, runner } = await setUp(900);
    const add = sim.control.activityEvent;
    add({ activity: 'UpdateDatasourceCredentials', at: '2026-06-15T23:50:00Z', id: 'a0000000-0000-0000-0000-000000000001', fields: { GatewayId: GATEWAY, DatasourceId: 'ds-1', GatewayName: 'GW Norte' }, userId: 'ana@contoso.example' });
    add({ activity: 'ViewReport', at: '2026-06-15T23:55:00Z' });
    add({ activity: 'ExportActivityEvents', at: '2026-06-16T00:05:00Z' });
    add({ activity: 'FrobnicateWidget', at: '2026-06-16T00:06:00Z' });
    add({ activity: 'SetScheduledRefresh', at: '2026-06-16T00:10:00Z', id: 'a0000000-0000-0000-0000-000000000004', fields: { DatasetId: MODEL, DatasetName: 'Vendas', WorkspaceId: WORKSPACE } });
    add({ activity: 'UpdatedAdminFeatureSwitch', at: '2026-06-15T08:00:00Z', id: 'a0000000-0000-0000-0000-000000000009', fields: { CreationTime: '2026-06-15T08:00:00Z', SwitchState: 'Disabled' } });
    add({ at: '2026-06-16T00:15:00Z', record: { Id: 'bad-time', Activity: 'SetScheduledRefresh', CreationTime: 'yesterday' } });
    add({ at: '2026-06-16T00:16:00Z', record: { Activity: 'TakeOverDataset', CreationTime: '2026-06-16T00:16:00' } });
    add({ activity: 'BindToGateway', at: '2026-06-16T00:20:00Z', id: 'a0000000-0000-0000-0000-000000000005', lateMinutes: 30, fields: { DatasetId: MODEL, GatewayId: GATEWAY } });
    // The model is in the lineage (another collector saw it); the gateway is not: one change names an object Vigia does not know.
    await h.ctx.db.query(
      "INSERT INTO monitored_lineage (tenant_ref, item_id, item_type, item_name, workspace_id, updated_at) VALUES ($1, $2, 'SemanticModel', 'Vendas', $3, now())",
      [tenant.id, MODEL, WORKSPACE],
    );

    await runner.pass();
    expect((await schedule(h, tenant.id, 'activity')).last_error).toBeNull();
    // 00:30 yesterday to the end of its day: 24 hour-pages; today to 00:30: one.
    const first = logCalls(sim);
    expect(first).toHaveLength(25);
    expect(first.filter((r) => r.query.startDateTime).map((r) => [r.query.startDateTime, r.query.endDateTime])).toEqual([
      ["'2026-06-15T00:30:00.000Z'", "'2026-06-15T23:59:59.999Z'"],
      ["'2026-06-16T00:00:00.000Z'", "'2026-06-16T00:30:00.000Z'"],
    ]);
    expect(first.filter((r) => r.query.continuationToken)).toHaveLength(23);
    expect(sim.violations).toEqual([]);
    let stored = await rows(tenant.id);
    expect(stored.map((r) => [r.activity, r.object_kind])).toEqual([
      ['UpdatedAdminFeatureSwitch', 'tenant'],
      ['UpdateDatasourceCredentials', 'gateway'],
      ['SetScheduledRefresh', 'item'],
    ]);
    expect(stored[1]).toMatchObject({ object_id: GATEWAY, object_name: 'GW Norte', gateway_id: GATEWAY, datasource_id: 'ds-1', actor_upn: 'ana@contoso.example' });
    expect(Object.keys(stored[1].raw)).not.toEqual(expect.arrayContaining(['UserId']));
    expect(JSON.stringify(stored.map((r) => r.raw))).not.toMatch(/contoso\.example|203\.0\.113/);
    expect(stored[2]).toMatchObject({ object_id: MODEL, object_name: 'Vendas' });
    const status = await schedule(h, tenant.id, 'activity');
    expect(status.last_rejected).toBe(2);
    expect(status.last_rejected_note).toMatch(/CreationTime that is not a time/);
    expect(await cursor(tenant.id)).toMatchObject({ readTo: '2026-06-16T00:30:00.000Z', pass: null, ignored: 3, unknownObjects: 1 });

    // 30 minutes on: the pass starts an hour before the last one ended; the late BindToGateway is there now.
    h.clock.advance(30 * 60_000);
    await runner.pass();
    const second = logCalls(sim).slice(first.length);
    expect(second.filter((r) => r.query.startDateTime).map((r) => [r.query.startDateTime, r.query.endDateTime])).toEqual([
      ["'2026-06-15T23:30:00.000Z'", "'2026-06-15T23:59:59.999Z'"],
      ["'2026-06-16T00:00:00.000Z'", "'2026-06-16T01:00:00.000Z'"],
    ]);
    stored = await rows(tenant.id);
    expect(stored.map((r) => r.activity)).toEqual(['UpdatedAdminFeatureSwitch', 'UpdateDatasourceCredentials', 'SetScheduledRefresh', 'BindToGateway']);
    // The overlap read the two malformed records again: skipped, not counted twice (no incident from one bad record).
    expect((await schedule(h, tenant.id, 'activity')).last_rejected).toBe(0);
    expect(sim.violations).toEqual([]);

    // The connection keeps one day: a run a day later forgets what is older.
    await h.ctx.db.query('UPDATE tenants SET change_retention_days = 1 WHERE id = $1', [tenant.id]);
    h.clock.set(new Date('2026-06-17T00:15:00Z')); // older than 06-16 00:15 goes: SetScheduledRefresh (00:10) and before
    await runner.pass();
    expect((await rows(tenant.id)).map((r) => r.activity)).toEqual(['BindToGateway']);
  });

  it('resumes a pass at its continuation after its budget, a restart and a 429; a day the log no longer keeps is skipped and counted', async () => {
    // At 300 s a run may spend 100/h × 300 s ≈ 8 calls of the first pass's 24.
    const { sim, tenant, runner } = await setUp(300);
    await runner.pass();
    expect(logCalls(sim)).toHaveLength(8);
    const paused = await cursor(tenant.id);
    expect(paused.readTo).toBeNull();
    expect(paused.pass?.next).toMatch(/continuationToken=/);

    // A restart: another scheduler (another process) continues where the state says.
    await runner.stop();
    const again = h.scheduler({ collectors: [activityCollector] });
    h.clock.advance(300_000);
    await again.pass();
    const resumed = logCalls(sim)[8]!;
    expect(resumed.query.startDateTime).toBeUndefined();
    expect(resumed.query.continuationToken).toBeDefined();

    // A 429: the run stops at once, nothing is lost, the next run goes on from the same page.
    const before = await cursor(tenant.id);
    sim.control.throttle({ family: 'powerbi-admin', count: 1, retryAfterSeconds: 60 });
    h.clock.advance(300_000);
    await again.pass();
    expect((await cursor(tenant.id)).pass?.next).toBe(before.pass?.next);
    expect((await schedule(h, tenant.id, 'activity')).last_throttled_calls).toBe(1);
    for (let i = 0; i < 6 && (await cursor(tenant.id)).pass !== null; i++) {
      h.clock.advance(300_000);
      await again.pass();
    }
    expect((await cursor(tenant.id)).readTo).not.toBeNull();
    // Every window was read once from its start: 2 windows, 24 pages in all (and no page twice).
    const calls = logCalls(sim).slice(0, 24);
    expect(calls.filter((r) => r.query.startDateTime)).toHaveLength(2);
    expect(new Set(calls.map((r) => r.query.continuationToken ?? r.query.startDateTime)).size).toBe(24);
    expect(sim.violations).toEqual([]);

    // A pass left pending for 40 days asks for a day the log no longer keeps: 400, skipped, counted.
    const old = new Date(h.clock.now().getTime() - 40 * 86_400_000);
    const stale: ActivityCursor = { readTo: null, pass: { at: old.toISOString(), to: new Date(old.getTime() + 3_600_000).toISOString(), next: null }, pace: null };
    await h.ctx.db.query("UPDATE collector_state SET value = $2::jsonb WHERE tenant_ref = $1 AND collector = 'activity' AND key = 'cursor'", [tenant.id, JSON.stringify(stale)]);
    h.clock.advance(300_000);
    await again.pass();
    const status = await schedule(h, tenant.id, 'activity');
    expect(status.last_error).toBeNull();
    expect(status.last_rejected).toBe(1);
    expect(status.last_rejected_note).toMatch(/refused the window/);
    expect((await cursor(tenant.id)).pass).toBeNull();
  });

  it('skips pages that are not JSON or not of the documented shape, counts them, and finishes the pass', async () => {
    const { sim, tenant, runner } = await setUp(3600);
    sim.control.garbageResponse({ path: '/v1.0/myorg/admin/activityevents', on: true });
    await runner.pass();
    let status = await schedule(h, tenant.id, 'activity');
    expect(status.last_error).toBeNull();
    expect(status.last_rejected).toBe(2);
    expect(status.last_rejected_note).toMatch(/unusable page/);
    expect((await cursor(tenant.id)).pass).toBeNull();
    sim.control.garbageResponse({ path: '/v1.0/myorg/admin/activityevents', on: false });

    sim.control.oddResponse({ path: '/v1.0/myorg/admin/activityevents', body: { activityEventEntities: { not: 'a list' }, lastResultSet: true } });
    h.clock.advance(3_600_000);
    await runner.pass();
    status = await schedule(h, tenant.id, 'activity');
    expect(status.last_error).toBeNull();
    expect(status.last_rejected_note).toMatch(/not an array/);
  });

  it('makes no call in member mode', async () => {
    const { sim, tenant, runner } = await setUp(300, 'member');
    await runner.pass();
    expect(logCalls(sim)).toHaveLength(0);
    expect((await schedule(h, tenant.id, 'activity')).last_error).toBeNull();
  });
});

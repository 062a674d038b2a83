/**
 * The mirroring collector against the tenant simulator (strict): a stopped or failed database,
 * one incident per failed table, replication lag as info then error then recovery against the
 * tenant's thresholds, paged table answers, a paused database on a suspended capacity
 * correlated to it, a database or table that disappears, the connection deleted — and the
 * `mirroringLag` thresholds in the admin API (stored, returned, PATCHable, 400 envelope).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { mirroringCollector } from '../../src/monitoring/sources/mirroring/mirroring.js';
import { readLineage } from '../../src/monitoring/lineage/lineage.js';
import { removeTenant } from '../../src/monitoring/tenant-removal.js';
import { getTenant, updateTenant } from '../../src/monitoring/tenants.js';
import { HOURLY_CAPS } from '../../src/monitoring/platform/budget.js';
import { runBudget } from '../../src/monitoring/platform/run-budget.js';
import type { SimItem, TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createHarness, schedule, type Harness } from './harness.js';
import { insertOrg, tenantBody } from './support.js';

const INTERVAL_MS = 300_000;

/** A mirrored database of our own in the first workspace, with `tables` replicating tables (dbo.t1…). */
function addDatabase(sim: TenantSim, id: string, tables: number, workspace = 0): SimItem {
  const w = sim.state.workspaces[workspace]!;
  const db: SimItem = {
    id,
    type: 'MirroredDatabase',
    displayName: `Mirror ${id.slice(0, 4)}`,
    workspaceId: w.id,
    refreshes: [],
    jobs: [],
    mirroring: {
      status: 'Running',
      tables: Array.from({ length: tables }, (_, t) => ({
        sourceSchemaName: 'dbo',
        sourceTableName: `T${t + 1}`,
        status: 'Replicating' as const,
        processedRows: 10,
        processedBytes: 100,
        lastSyncDateTime: '2026-06-15T11:59:00Z',
        lastSyncLatencyInSeconds: 20,
      })),
    },
  };
  w.items.push(db);
  return db;
}

async function mirroringAlerts(h: Harness, orgId: string, dbId: string) {
  const { rows } = await h.ctx.db.query(
    `SELECT source_id, notification_kind, severity, status, correlated, failure_count, message, workspace_name FROM alerts
      WHERE org_id = $1 AND source_type = 'Mirroring' AND (source_id = $2 OR source_id LIKE $2 || '/%') ORDER BY created_at, notification_kind, source_id`,
    [orgId, dbId],
  );
  return rows;
}

describe('collector: mirroring', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  const pass = async (runner: ReturnType<Harness['scheduler']>, tenantId: string) => {
    h.clock.advance(INTERVAL_MS);
    await runner.pass();
    expect((await schedule(h, tenantId, 'mirroring')).last_error).toBeNull();
  };

  it('a stopped or failed database, one incident per failed table, recovery, and disappearance', async () => {
    const sim = await h.sim({ seed: 181, sizes: { capacities: 1, workspaces: 2, gateways: 0 } });
    const db = addDatabase(sim, 'a1a1a1a1-0000-4000-8000-000000000001', 3);
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim);
    const runner = h.scheduler({ collectors: [mirroringCollector] });
    await pass(runner, tenant.id);
    expect(await mirroringAlerts(h, orgId, db.id)).toEqual([]);
    const lineage = (await readLineage(h.ctx.db, tenant.id)).get(db.id);
    expect(lineage).toMatchObject({ itemType: 'MirroredDatabase', workspaceId: db.workspaceId.toLowerCase(), capacityId: sim.state.workspaces[0]!.capacityId?.toLowerCase() ?? null });

    // Two tables fail: one incident each, with the platform's error code.
    sim.control.mirroringStatus({ itemId: db.id, table: 'T1', tableStatus: 'Failed', errorCode: 'SourceTableDropped' });
    sim.control.mirroringStatus({ itemId: db.id, table: 'T3', tableStatus: 'Failed' });
    await pass(runner, tenant.id);
    await pass(runner, tenant.id); // still failed: no second incident, no reoccurrence
    let rows = await mirroringAlerts(h, orgId, db.id);
    expect(rows).toMatchObject([
      { source_id: `${db.id}/dbo.t1`, notification_kind: 'MirroringTableFailed', severity: 'error', status: 'open', failure_count: 1, correlated: false, message: expect.stringContaining('SourceTableDropped') },
      { source_id: `${db.id}/dbo.t3`, notification_kind: 'MirroringTableFailed', severity: 'error', status: 'open', failure_count: 1, message: expect.stringContaining('SourceTableNotAccessible') },
    ]);
    expect(rows[0].workspace_name).toBe(sim.state.workspaces[0]!.name);

    // The database stops: its own incident (error); T1 recovers, T2 failing now is correlated to the stop.
    sim.control.mirroringStatus({ itemId: db.id, status: 'Stopped' });
    sim.control.mirroringStatus({ itemId: db.id, table: 'T1', tableStatus: 'Replicating' });
    sim.control.mirroringStatus({ itemId: db.id, table: 'T2', tableStatus: 'Failed' });
    await pass(runner, tenant.id);
    rows = await mirroringAlerts(h, orgId, db.id);
    const find = (sourceId: string, kind: string) => rows.find((r) => r.source_id === sourceId && r.notification_kind === kind);
    expect(find(db.id, 'MirroringStopped')).toMatchObject({ severity: 'error', status: 'open', correlated: false, message: expect.stringContaining('Stopped') });
    expect(find(`${db.id}/dbo.t1`, 'MirroringTableFailed')).toMatchObject({ status: 'resolved' });
    expect(find(`${db.id}/dbo.t2`, 'MirroringTableFailed')).toMatchObject({ status: 'open', correlated: true });

    // Running again but reporting an error: still down (a failed database), no new incident.
    sim.control.mirroringStatus({ itemId: db.id, status: 'Running', errorCode: 'SourceDatabaseUnreachable' });
    await pass(runner, tenant.id);
    expect((await mirroringAlerts(h, orgId, db.id)).filter((r) => r.notification_kind === 'MirroringStopped')).toMatchObject([{ status: 'open', failure_count: 1 }]);

    // Healthy again: everything recovers.
    sim.control.mirroringStatus({ itemId: db.id, errorCode: null });
    sim.control.mirroringStatus({ itemId: db.id, table: 'T2', tableStatus: 'Replicating' });
    sim.control.mirroringStatus({ itemId: db.id, table: 'T3', tableStatus: 'Replicating' });
    await pass(runner, tenant.id);
    expect((await mirroringAlerts(h, orgId, db.id)).every((r) => r.status === 'resolved')).toBe(true);

    // A failed table that disappears recovers; then the whole database disappears.
    sim.control.mirroringStatus({ itemId: db.id, table: 'T3', tableStatus: 'Failed' });
    sim.control.mirroringStatus({ itemId: db.id, table: 'T2', tableStatus: 'Failed' });
    await pass(runner, tenant.id);
    expect((await mirroringAlerts(h, orgId, db.id)).filter((r) => r.status === 'open').map((r) => r.source_id)).toEqual([`${db.id}/dbo.t2`, `${db.id}/dbo.t3`]);
    db.mirroring!.tables = db.mirroring!.tables.filter((t) => t.sourceTableName !== 'T3');
    sim.control.mirroringStatus({ itemId: db.id, status: 'Stopped' });
    await pass(runner, tenant.id);
    expect((await mirroringAlerts(h, orgId, db.id)).filter((r) => r.status === 'open').map((r) => [r.source_id, r.notification_kind])).toEqual([
      [`${db.id}/dbo.t2`, 'MirroringTableFailed'],
      [db.id, 'MirroringStopped'],
    ]);
    const w = sim.state.workspaces[0]!;
    w.items = w.items.filter((i) => i.id !== db.id);
    await pass(runner, tenant.id);
    expect((await mirroringAlerts(h, orgId, db.id)).every((r) => r.status === 'resolved')).toBe(true);
    expect((await readLineage(h.ctx.db, tenant.id)).has(db.id)).toBe(false);
    expect(sim.violations).toEqual([]);
  });

  it('replication lag over the tenant thresholds: info, then error (the info one resolved), then recovery', async () => {
    const sim = await h.sim({ seed: 182, sizes: { capacities: 1, workspaces: 1, gateways: 0 } });
    const db = addDatabase(sim, 'b2b2b2b2-0000-4000-8000-000000000002', 2);
    const orgId = await h.org();
    // Member mode: the databases come from each workspace's list instead of the admin items list.
    const tenant = await h.tenant(orgId, sim, { mode: 'member', mirroringLag: { infoSeconds: 600, errorSeconds: 1800 } });
    const runner = h.scheduler({ collectors: [mirroringCollector] });
    const t1 = `${db.id}/dbo.t1`;
    const state = async () => (await mirroringAlerts(h, orgId, db.id)).map((r) => [r.source_id, r.notification_kind, r.severity, r.status]);
    await pass(runner, tenant.id);
    sim.control.mirroringLag({ itemId: db.id, table: 'T1', seconds: 600 }); // at the threshold: not over it
    await pass(runner, tenant.id);
    expect(await state()).toEqual([]);
    expect(sim.countCalls({ operationId: 'Items_ListMirroredDatabases' })).toBeGreaterThan(0);
    expect(sim.countCalls({ family: 'fabric-admin' })).toBe(0);

    sim.control.mirroringLag({ itemId: db.id, table: 'T1', seconds: 601 });
    await pass(runner, tenant.id);
    expect(await state()).toEqual([[t1, 'MirroringLag', 'info', 'open']]);

    // A source that stops reporting its latency keeps the last verdict.
    sim.control.mirroringLag({ itemId: db.id, table: 'T1', seconds: null });
    await pass(runner, tenant.id);
    expect(await state()).toEqual([[t1, 'MirroringLag', 'info', 'open']]);

    sim.control.mirroringLag({ itemId: db.id, table: 'T1', seconds: 4000 });
    await pass(runner, tenant.id);
    expect(await state()).toEqual([
      [t1, 'MirroringLag', 'info', 'resolved'],
      [t1, 'MirroringLagSevere', 'error', 'open'],
    ]);
    const severe = (await mirroringAlerts(h, orgId, db.id)).find((r) => r.notification_kind === 'MirroringLagSevere');
    expect(severe?.message).toContain('4000 s');
    expect(severe?.message).toContain('1800 s');

    sim.control.mirroringLag({ itemId: db.id, table: 'T1', seconds: 30 });
    await pass(runner, tenant.id);
    expect((await state()).map((r) => r[3])).toEqual(['resolved', 'resolved']);

    // Thresholds changed through the connection apply at the next run.
    await updateTenant(h.ctx, orgId, tenant.id, { mirroringLag: { infoSeconds: 10 } });
    await pass(runner, tenant.id);
    expect((await state()).filter((r) => r[3] === 'open')).toEqual([
      [t1, 'MirroringLag', 'info', 'open'],
      [`${db.id}/dbo.t2`, 'MirroringLag', 'info', 'open'],
    ]);
    expect(sim.violations).toEqual([]);
  });

  it('follows the pages of the tables answer; a paused database on a suspended capacity names it as cause; deleting the connection resolves all', async () => {
    const sim = await h.sim({ seed: 183, sizes: { capacities: 1, workspaces: 1, gateways: 0 }, fabricPageSize: 2 });
    sim.state.workspaces[0]!.capacityId = sim.state.capacities[0]!.id;
    const db = addDatabase(sim, 'c3c3c3c3-0000-4000-8000-000000000003', 5);
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim);
    const runner = h.scheduler({ collectors: [capacityCollector, mirroringCollector] });
    await pass(runner, tenant.id);
    const since = Date.now();
    sim.control.mirroringStatus({ itemId: db.id, table: 'T5', tableStatus: 'Failed', errorCode: 'TableSchemaChanged' });
    await pass(runner, tenant.id);
    expect(sim.countCalls({ operationId: 'Mirroring_GetTablesMirroringStatus', since })).toBe(3);
    expect(await mirroringAlerts(h, orgId, db.id)).toMatchObject([{ source_id: `${db.id}/dbo.t5`, status: 'open', message: expect.stringContaining('TableSchemaChanged') }]);

    // The capacity's incident opens first (the collectors of one pass may run in any order).
    sim.control.capacityState({ capacityId: sim.state.capacities[0]!.id, state: 'Suspended' });
    await pass(runner, tenant.id);
    sim.control.mirroringStatus({ itemId: db.id, status: 'Paused' });
    await pass(runner, tenant.id);
    expect((await mirroringAlerts(h, orgId, db.id)).find((r) => r.notification_kind === 'MirroringStopped')).toMatchObject({ status: 'open', correlated: true });

    await removeTenant(h.ctx, orgId, tenant.id);
    expect((await mirroringAlerts(h, orgId, db.id)).map((r) => r.status)).toEqual(['resolved', 'resolved']);
    expect(sim.violations).toEqual([]);
  });

  it('member mode with 300 workspaces: every Fabric call of a run is inside its run budget; all workspaces get listed, and the view shows what each run read', { timeout: 300_000 }, async () => {
    const sim = await h.sim({ seed: 186, sizes: { capacities: 1, workspaces: 300, gateways: 0, mirroredTables: 1 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    const databases = sim.state.workspaces.flatMap((w) => w.items.filter((i) => i.type === 'MirroredDatabase'));
    expect(databases.length).toBeGreaterThan(50);
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { mirroring: { intervalSeconds: 300 } } });
    const runner = h.scheduler({ collectors: [mirroringCollector] });
    const perRun = runBudget(HOURLY_CAPS.fabric, 0.2, 300);
    const calls: number[] = [];
    for (let run = 0; run < 14; run++) {
      const before = sim.countCalls({ family: 'fabric' });
      await pass(runner, tenant.id);
      calls.push(sim.countCalls({ family: 'fabric' }) - before);
    }
    expect(Math.max(...calls)).toBeLessThanOrEqual(perRun);
    // Within the budget every workspace was listed, and every database has been read.
    expect(new Set(sim.requests.filter((r) => r.operationId === 'Items_ListMirroredDatabases').map((r) => r.path)).size).toBe(300);
    const polled = new Set(sim.requests.filter((r) => r.operationId === 'Mirroring_GetMirroringStatus').map((r) => r.path));
    expect(polled.size).toBe(databases.length);
    const view = (await getTenant(h.ctx, orgId, tenant.id)).collectors.find((c) => c.name === 'mirroring')!;
    expect(view.lastPolled).toBeGreaterThan(0);
    expect(view.lastDeferred).toBe(0);
    expect(sim.violations).toEqual([]);
  });

  it('under a small run budget the databases take turns, and one with a problem is polled every run', async () => {
    const sim = await h.sim({ seed: 184, sizes: { capacities: 1, workspaces: 1, gateways: 0 } });
    const w = sim.state.workspaces[0]!;
    w.items = w.items.filter((i) => i.type !== 'MirroredDatabase');
    const ids = [1, 2, 3, 4].map((n) => `d${n}d${n}d${n}d${n}-0000-4000-8000-00000000000${n}`);
    for (const id of ids) addDatabase(sim, id, 1);
    const orgId = await h.org();
    // 10 s: 20 % of the Fabric ceiling is 4 calls a run, two databases.
    const tenant = await h.tenant(orgId, sim, { collectors: { mirroring: { intervalSeconds: 10 } } });
    const runner = h.scheduler({ collectors: [mirroringCollector] });
    const polledIn = async () => {
      const since = Date.now();
      h.clock.advance(10_000);
      await runner.pass();
      expect((await schedule(h, tenant.id, 'mirroring')).last_error).toBeNull();
      return sim.requests
        .filter((r) => r.at >= since && r.operationId === 'Mirroring_GetMirroringStatus')
        .map((r) => ids.find((id) => r.path.includes(id)))
        .sort();
    };
    expect(await polledIn()).toEqual([ids[0], ids[1]]);
    expect(await polledIn()).toEqual([ids[2], ids[3]]);
    sim.control.mirroringStatus({ itemId: ids[3]!, status: 'Stopped' });
    expect(await polledIn()).toEqual([ids[0], ids[1]]);
    expect(await mirroringAlerts(h, orgId, ids[3]!)).toEqual([]); // not its turn yet
    expect(await polledIn()).toEqual([ids[2], ids[3]]);
    expect(await mirroringAlerts(h, orgId, ids[3]!)).toMatchObject([{ notification_kind: 'MirroringStopped', status: 'open' }]);
    expect(await polledIn()).toEqual([ids[0], ids[3]]);
    expect(await polledIn()).toEqual([ids[1], ids[3]]);
    expect(sim.violations).toEqual([]);
  });
});

describe('mirroringLag thresholds in the admin API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('defaults, stores, returns and changes the thresholds; refuses bad ones with the 400 envelope', async () => {
    const orgId = await insertOrg(t.ctx);
    const created = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody());
    expect(created.statusCode).toBe(201);
    expect(created.json().mirroringLag).toEqual({ infoSeconds: 900, errorSeconds: 3600 });
    const id = created.json().id;

    const patched = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { mirroringLag: { infoSeconds: 300 } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().mirroringLag).toEqual({ infoSeconds: 300, errorSeconds: 3600 });
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${id}`)).json().mirroringLag).toEqual({ infoSeconds: 300, errorSeconds: 3600 });

    const bad: [string, 'POST' | 'PATCH', Record<string, unknown>, string][] = [
      ['info over error', 'POST', tenantBody({ mirroringLag: { infoSeconds: 3600, errorSeconds: 900 } }), 'must be less than'],
      ['equal', 'POST', tenantBody({ mirroringLag: { infoSeconds: 600, errorSeconds: 600 } }), 'must be less than'],
      ['zero', 'POST', tenantBody({ mirroringLag: { infoSeconds: 0 } }), 'infoSeconds'],
      ['not whole', 'PATCH', { mirroringLag: { errorSeconds: 90.5 } }, 'errorSeconds'],
      ['text', 'PATCH', { mirroringLag: { errorSeconds: '3600' } }, 'errorSeconds'],
      ['unknown field', 'PATCH', { mirroringLag: { warnSeconds: 10 } }, 'warnSeconds'],
      ['empty', 'PATCH', { mirroringLag: {} }, 'mirroringLag'],
      ['info past the stored error', 'PATCH', { mirroringLag: { infoSeconds: 3600 } }, 'must be less than mirroringLag.errorSeconds (3600)'],
      ['error under the stored info', 'PATCH', { mirroringLag: { errorSeconds: 200 } }, 'must be less than'],
    ];
    for (const [what, method, body, message] of bad) {
      const res = await t.admin(method, method === 'POST' ? `/orgs/${orgId}/tenants` : `/orgs/${orgId}/tenants/${id}`, body);
      expect(res.statusCode, what).toBe(400);
      expect(res.json().error.code, what).toBeTypeOf('string');
      expect(res.json().error.message, what).toContain(message);
    }
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${id}`)).json().mirroringLag).toEqual({ infoSeconds: 300, errorSeconds: 3600 });
    expect((await t.admin('GET', `/orgs/${orgId}/tenants`)).json().value).toHaveLength(1);
  });
});

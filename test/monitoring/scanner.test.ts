/**
 * The scanner collector (admin mode's metadata scanning) against the strict simulator: a first
 * full scan in slices of the run's budget, then only the workspaces modified; a forced full scan
 * after a week; workspaces the platform leaves out stay known and undescribed; a scan that fails,
 * or whose result expired after 24 hours, is asked again; a 429 on getInfo keeps the queue; the
 * scanned models' placement and data sources reach the lineage; member mode makes no call.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import { COLLECTOR_NAMES } from '../../src/monitoring/connection/collector-names.js';
import { registerMonitoringMetrics } from '../../src/monitoring/metrics.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { insertOrg } from './support.js';
import { freshnessCollector } from '../../src/monitoring/sources/freshness/freshness.js';
import { inventoryCollector } from '../../src/monitoring/sources/inventory/inventory.js';
import { listWorkspaces } from '../../src/orgs/inventory.js';
import { scannerCollector } from '../../src/monitoring/sources/scanner/scanner.js';
import { readState } from '../../src/monitoring/engine/output.js';
import { readLineage } from '../../src/monitoring/lineage/lineage.js';
import { CURSOR_KEY, readScannerState, readScanProgress, type ScanCursor, type ScannedWorkspace } from '../../src/monitoring/sources/scanner/scan-catalog.js';
import { getTenant } from '../../src/monitoring/tenants.js';
import { alerts, createHarness, type Harness, schedule } from './harness.js';

const GET_INFO = /\/admin\/workspaces\/getInfo$/;
const MODIFIED = /\/admin\/workspaces\/modified$/;

describe('collector: scanner', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  async function setUp(workspaces: number, intervalSeconds: number, mode: 'admin' | 'member' = 'admin') {
    const sim = await h.sim({ seed: 2701, sizes: { capacities: 2, workspaces, gateways: 2 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 60 * 86_400 });
    // The simulator's workspaces were last modified when it started: the scans begin later, past
    // the 30 minutes every modified listing looks back (so only later changes are listed).
    h.clock.advance(40 * 60_000);
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { mode, collectors: { scanner: { intervalSeconds } } });
    const runner = h.scheduler({ collectors: [scannerCollector] });
    return { sim, orgId, tenant, runner };
  }
  async function scanState(tenantRef: string) {
    const state = await readScannerState(h.ctx.db, tenantRef);
    const workspaces = [...state].filter(([k]) => k.startsWith('ws:')).map(([k, v]) => [k.slice(3), v as ScannedWorkspace] as const);
    return { cursor: state.get(CURSOR_KEY) as ScanCursor, workspaces: new Map(workspaces) };
  }
  const lastError = async (tenantRef: string) => (await schedule(h, tenantRef, 'scanner')).last_error as string | null;

  it('scans every workspace in slices within the run budget, then only those modified; a week on, all of them again', async () => {
    // At a 10-second interval a run may ask for one scan (500/h × 50 %): 100 workspaces a run.
    const { sim, orgId, tenant, runner } = await setUp(250, 10);
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    let s = await scanState(tenant.id);
    expect(s.cursor).toMatchObject({ known: 250, described: 100, queue: expect.any(Array), pending: [], lastFullAt: null });
    expect(s.cursor.queue).toHaveLength(150);
    expect(sim.countCalls({ path: GET_INFO })).toBe(1);
    const ask = sim.requests.find((r) => GET_INFO.test(r.path))!;
    expect(ask.query).toMatchObject({ lineage: 'true', datasourceDetails: 'true', datasetSchema: 'false', datasetExpressions: 'false', getArtifactUsers: 'false' });

    for (const described of [200, 250]) {
      h.clock.advance(10_000);
      await runner.pass();
      expect((await scanState(tenant.id)).cursor.described).toBe(described);
    }
    s = await scanState(tenant.id);
    expect(s.cursor).toMatchObject({ known: 250, described: 250, queue: [], pending: [], lastFullAt: expect.any(String), fullStartedAt: null });
    expect(sim.countCalls({ path: GET_INFO })).toBe(3);
    expect(sim.countCalls({ path: MODIFIED })).toBe(1);
    expect(sim.violations).toEqual([]);

    // What the scan describes: models with their schedule, their data sources and gateway (lineage).
    const w = sim.state.workspaces.find((x) => x.items.some((i) => i.type === 'SemanticModel' && i.gatewayDatasourceId && i.refreshSchedule?.enabled))!;
    const model = w.items.find((i) => i.type === 'SemanticModel')!;
    const scanned = s.workspaces.get(w.id.toLowerCase())!;
    expect(scanned).toMatchObject({ described: true, name: w.name, capacityId: w.capacityId?.toLowerCase() ?? null });
    expect(scanned.datasets).toEqual([
      expect.objectContaining({ id: model.id.toLowerCase(), name: model.displayName, schedule: expect.objectContaining({ times: model.refreshSchedule!.times }), datasourceIds: [model.gatewayDatasourceId!.toLowerCase()] }),
    ]);
    const gateway = sim.state.gateways.find((g) => g.datasources.some((d) => d.id === model.gatewayDatasourceId))!;
    expect((await readLineage(h.ctx.db, tenant.id)).get(model.id.toLowerCase())).toMatchObject({
      itemType: 'SemanticModel',
      workspaceId: w.id.toLowerCase(),
      gatewayIds: [gateway.id.toLowerCase()],
      datasourceIds: [model.gatewayDatasourceId!.toLowerCase()],
    });

    // A change: only the modified workspace is scanned again, and its new schedule is stored.
    const changed = sim.state.workspaces[7]!;
    const changedModel = changed.items.find((i) => i.type === 'SemanticModel')!;
    sim.control.refreshSchedule({ datasetId: changedModel.id, days: ['Monday'], times: ['03:30'], enabled: true, localTimeZoneId: 'UTC' });
    sim.control.workspaceModified({ workspaceId: changed.id });
    h.clock.advance(5 * 60_000);
    await runner.pass();
    expect(sim.countCalls({ path: GET_INFO })).toBe(4);
    const listing = sim.requests.filter((r) => MODIFIED.test(r.path)).at(-1)!;
    expect(listing.query.modifiedSince).toBeDefined();
    s = await scanState(tenant.id);
    expect(s.cursor.lastIncrementalAt).toBe(h.clock.now().toISOString());
    expect(s.workspaces.get(changed.id.toLowerCase())!.datasets[0]!.schedule).toEqual({ days: ['Monday'], times: ['03:30'], enabled: true, localTimeZoneId: 'UTC' });

    // Every listing looks back at least 30 minutes (the platform lists a change that late), so the
    // workspace changed 5 minutes before is named again and scanned again, once (not queued twice).
    h.clock.advance(5 * 60_000);
    await runner.pass();
    expect(sim.countCalls({ path: GET_INFO })).toBe(5);
    const again = sim.requests.filter((r) => MODIFIED.test(r.path)).at(-1)!;
    expect(h.clock.now().getTime() - Date.parse(again.query.modifiedSince!)).toBeGreaterThanOrEqual(30 * 60_000);
    // Nothing changed since: once the window has passed the change, a listing names nothing.
    h.clock.advance(40 * 60_000);
    await runner.pass();
    expect(sim.countCalls({ path: GET_INFO })).toBe(5);

    // A week after the full scan began: every workspace is listed and scanned again.
    h.clock.advance(7 * 86_400_000);
    await runner.pass();
    const full = sim.requests.filter((r) => MODIFIED.test(r.path)).at(-1)!;
    expect(full.query.modifiedSince).toBeUndefined();
    s = await scanState(tenant.id);
    expect(s.cursor.fullStartedAt).toBe(h.clock.now().toISOString());
    expect(s.cursor.queue).toHaveLength(150);

    // The tenant view shows the scan's progress.
    const view = await getTenant(h.ctx, orgId, tenant.id);
    expect(view.scan).toMatchObject({ known: 250, described: 250, queued: 150, lastIncrementalScanAt: expect.any(String), lastFullScanAt: expect.any(String), fullScanStartedAt: h.clock.now().toISOString() });
    expect(sim.violations).toEqual([]);
  });

  it('a new connection’s first pass lasts until the first full scan completes (sliced over several runs)', async () => {
    const sim = await h.sim({ seed: 2701, sizes: { capacities: 2, workspaces: 250, gateways: 2 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 60 * 86_400 });
    h.clock.advance(40 * 60_000);
    const orgId = await h.org();
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((n) => [n, n === 'scanner' ? { enabled: true, intervalSeconds: 10 } : { enabled: false }]));
    const tenant = await h.tenant(orgId, sim, { mode: 'admin', collectors }, { connecting: true });
    const runner = h.scheduler({ collectors: [scannerCollector] });
    const done: boolean[] = [];
    for (let run = 0; run < 4; run++) {
      await runner.pass();
      expect(await lastError(tenant.id)).toBeNull();
      done.push((await schedule(h, tenant.id, 'scanner')).first_pass_done);
      h.clock.advance(10_000);
    }
    // 100 workspaces a run: the full scan of 250 completes in the third run, and so does the first pass.
    expect(done).toEqual([false, false, true, true]);
    expect((await scanState(tenant.id)).cursor.lastFullAt).not.toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it('a workspace the platform leaves out stays known and undescribed; it is described again once the platform does', async () => {
    const { sim, tenant, runner } = await setUp(6, 300);
    const left = sim.state.workspaces[2]!;
    sim.control.scanOmits({ workspaceId: left.id });
    await runner.pass();
    let s = await scanState(tenant.id);
    expect(s.cursor).toMatchObject({ known: 6, described: 5, queue: [], pending: [] });
    expect(s.workspaces.get(left.id.toLowerCase())).toMatchObject({ described: false, omitted: true, datasets: [] });

    sim.control.scanOmits({ workspaceId: left.id, omitted: false });
    sim.control.workspaceModified({ workspaceId: left.id });
    h.clock.advance(5 * 60_000);
    await runner.pass();
    s = await scanState(tenant.id);
    expect(s.cursor).toMatchObject({ known: 6, described: 6 });
    expect(s.workspaces.get(left.id.toLowerCase())).toMatchObject({ described: true, name: left.name });
    expect(s.workspaces.get(left.id.toLowerCase())!.omitted).toBeUndefined();
  });

  it('a scan that fails is asked again; one whose result expired after 24 hours too', async () => {
    const { sim, tenant, runner } = await setUp(6, 300);
    sim.control.failScans({ count: 1 });
    await runner.pass();
    h.clock.advance(5 * 60_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect((await scanState(tenant.id)).cursor).toMatchObject({ known: 6, described: 6, queue: [], pending: [] });
    expect(sim.countCalls({ path: GET_INFO })).toBe(2);

    // A scan asked for, then its status unreadable until the result is gone (24 h): asked again.
    const w = sim.state.workspaces[4]!;
    sim.control.workspaceModified({ workspaceId: w.id });
    sim.control.garbageResponse({ path: '/v1.0/myorg/admin/workspaces/scanStatus', on: true });
    h.clock.advance(5 * 60_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toMatch(/not JSON/);
    let s = await scanState(tenant.id);
    expect(s.cursor.pending).toHaveLength(1);
    expect(s.cursor.pending[0]!.workspaceIds).toEqual([w.id.toLowerCase()]);
    expect(sim.countCalls({ path: GET_INFO })).toBe(3);

    sim.control.garbageResponse({ path: '/v1.0/myorg/admin/workspaces/scanStatus', on: false });
    h.clock.advance(25 * 3_600_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    s = await scanState(tenant.id);
    expect(s.cursor).toMatchObject({ described: 6, queue: [], pending: [] });
    expect(sim.countCalls({ path: GET_INFO })).toBe(4);
    expect(s.workspaces.get(w.id.toLowerCase())!.scannedAt).toBe(h.clock.now().toISOString());
    expect(sim.violations).toEqual([]);
  });

  it('a 429 on getInfo (the hour\'s cap spent by other tools) keeps the queue; the next run goes on', async () => {
    const { sim, tenant, runner } = await setUp(120, 10);
    await runner.pass();
    expect((await scanState(tenant.id)).cursor).toMatchObject({ known: 120, described: 100 });
    // The platform refuses the next getInfo as when its 500/h are spent: Retry-After of an hour.
    sim.control.throttle({ family: 'powerbi-admin', count: 1, retryAfterSeconds: 3_600 });
    h.clock.advance(10_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect((await schedule(h, tenant.id, 'scanner')).last_throttled_calls).toBe(1);
    expect(sim.countCalls({ path: GET_INFO, throttled: true })).toBe(1);
    let s = await scanState(tenant.id);
    expect(s.cursor).toMatchObject({ known: 120, described: 100, pending: [], lastFullAt: null });
    expect(s.cursor.queue).toHaveLength(20);

    // A 429 on an endpoint capped per tenant lowers Vigia's pace there for the hour (budget.ts):
    // the scans go on once it has passed.
    h.clock.advance(3_600_000 + 10_000);
    await runner.pass();
    s = await scanState(tenant.id);
    expect(s.cursor).toMatchObject({ known: 120, described: 120, queue: [], lastFullAt: expect.any(String) });
    expect(sim.violations).toEqual([]);
  });

  it('a 429 on the modified listing or on a scan status ends the run without error and keeps what it had', async () => {
    const { sim, tenant, runner } = await setUp(6, 60);
    sim.control.throttle({ family: 'powerbi-admin', count: 1, retryAfterSeconds: 3_600 });
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect((await scanState(tenant.id)).cursor).toMatchObject({ known: 0, listedAt: null });
    // The 429 lowered Vigia's pace on the listing for the hour: the next listing comes after it.
    h.clock.advance(61 * 60_000);
    // The listing and getInfo pass; the first status poll is refused: the scan stays pending.
    sim.control.throttle({ family: 'powerbi-admin', count: 0 });
    await runner.pass();
    expect((await scanState(tenant.id)).cursor).toMatchObject({ known: 6, described: 6 });
    // A scan left pending (its status unreadable), then its next status poll refused with a 429.
    const w = sim.state.workspaces[3]!;
    sim.control.workspaceModified({ workspaceId: w.id });
    sim.control.garbageResponse({ path: '/v1.0/myorg/admin/workspaces/scanStatus', on: true });
    h.clock.advance(5 * 60_000);
    await runner.pass();
    expect((await scanState(tenant.id)).cursor.pending).toHaveLength(1);
    sim.control.garbageResponse({ path: '/v1.0/myorg/admin/workspaces/scanStatus', on: false });
    sim.control.throttle({ family: 'powerbi-admin', count: 1, retryAfterSeconds: 3_600 });
    h.clock.advance(60_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect(sim.countCalls({ path: /\/scanStatus\//, throttled: true })).toBe(1);
    expect((await scanState(tenant.id)).cursor.pending).toHaveLength(1);
    // Polled again once the hour of the lowered pace on scanStatus has passed.
    h.clock.advance(61 * 60_000);
    await runner.pass();
    const s = await scanState(tenant.id);
    expect(s.cursor).toMatchObject({ described: 6, pending: [], queue: [] });
    expect(s.workspaces.get(w.id.toLowerCase())!.scannedAt).toBe(new Date(h.clock.now().getTime() - 61 * 60_000 - 60_000).toISOString());
    expect(sim.violations).toEqual([]);
  });

  it('freshness takes models and schedules from the scan and reads only the workspace it left out, model by model', async () => {
    const { sim, orgId, tenant, runner } = await setUp(6, 300);
    const freshness = h.scheduler({ collectors: [freshnessCollector] });
    const left = sim.state.workspaces[2]!;
    const leftModel = left.items.find((i) => i.type === 'SemanticModel')!;
    const w0 = sim.state.workspaces[0]!;
    const a = w0.items.find((i) => i.type === 'SemanticModel')!;
    sim.control.scanOmits({ workspaceId: left.id });
    sim.control.refreshSchedule({ datasetId: a.id, days: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'], times: ['13:00'], enabled: true, localTimeZoneId: 'UTC' });
    sim.control.refreshResult({ datasetId: a.id, status: 'Completed' });
    sim.control.skipScheduledRefresh({ datasetId: a.id });
    // Before the first scan, a new admin connection's freshness waits for it instead of listing every workspace.
    await freshness.pass();
    expect((await schedule(h, tenant.id, 'freshness')).last_error).toBeNull();
    expect(sim.countCalls({ path: /\/groups\/[^/]+\/datasets$/ })).toBe(0);
    await runner.pass();
    h.clock.advance(5 * 60_000);
    await freshness.pass();
    expect((await schedule(h, tenant.id, 'freshness')).last_error).toBeNull();

    // Per-workspace reads only for the workspace the scan left out; schedules only for its model.
    const datasetLists = sim.requests.filter((r) => /\/groups\/[^/]+\/datasets$/.test(r.path));
    expect(datasetLists.map((r) => r.path)).toEqual([`/v1.0/myorg/groups/${left.id}/datasets`]);
    const scheduleReads = sim.requests.filter((r) => /\/refreshSchedule$/.test(r.path));
    expect(scheduleReads.map((r) => r.path)).toEqual([`/v1.0/myorg/groups/${left.id}/datasets/${leftModel.id}/refreshSchedule`]);
    const state = await readState<{ scanned?: boolean; schedule: { times: string[] } | null }>(h.ctx.db, tenant.id, 'freshness');
    const models = [...state].filter(([k]) => k.startsWith('model:'));
    expect(models).toHaveLength(6);
    expect(state.get(`model:${a.id.toLowerCase()}`)).toMatchObject({ scanned: true, schedule: { times: ['13:00'] } });
    expect(state.get(`model:${leftModel.id.toLowerCase()}`)!.scanned).toBeUndefined();
    const missedOf = async () => (await alerts(h, orgId, 'DataFreshness')).filter((x) => x.source_id === a.id.toLowerCase() && x.status === 'open');
    expect(await missedOf()).toEqual([]);

    // The scanned schedule is judged like a read one: the skipped 13:00 slot is missed.
    sim.control.scheduledRefreshes({ on: true });
    h.clock.set('2026-06-15T13:31:00Z');
    await runner.pass();
    await freshness.pass();
    expect(await missedOf()).toMatchObject([{ notification_kind: 'RefreshMissed' }]);
    expect(sim.requests.filter((r) => /\/refreshSchedule$/.test(r.path))).toHaveLength(1);
    expect(sim.violations).toEqual([]);
  });

  it('freshness applies what the scanner changed since its last read: a new schedule and a removed model; the other models stay as they were', async () => {
    const { sim, tenant, runner } = await setUp(8, 300);
    const freshness = h.scheduler({ collectors: [freshnessCollector] });
    const modelOf = (i: number) => sim.state.workspaces[i]!.items.find((x) => x.type === 'SemanticModel')!;
    await runner.pass();
    h.clock.advance(5 * 60_000);
    await freshness.pass();
    expect((await schedule(h, tenant.id, 'freshness')).last_error).toBeNull();
    const freshnessModels = async () =>
      (await h.ctx.db.query<{ key: string; value: { schedule: { times: string[] } | null }; updated_at: Date }>(
        "SELECT key, value, updated_at FROM collector_state WHERE tenant_ref = $1 AND collector = 'freshness' AND key LIKE 'model:%' ORDER BY key",
        [tenant.id],
      )).rows;
    const before = await freshnessModels();
    expect(before).toHaveLength(8);

    // Workspace 1: a new schedule; later workspace 2: its model removed. Each is modified, so the
    // next incremental scan reads it, and freshness the workspaces the scanner wrote since.
    const rescheduled = modelOf(1);
    const removed = modelOf(2);
    sim.control.refreshSchedule({ datasetId: rescheduled.id, days: ['Monday'], times: ['04:15'], enabled: true, localTimeZoneId: 'UTC' });
    sim.control.workspaceModified({ workspaceId: sim.state.workspaces[1]!.id });
    for (let round = 0; round < 2; round++) {
      h.clock.advance(5 * 60_000);
      await runner.pass();
      h.clock.advance(5 * 60_000);
      await freshness.pass();
      expect((await schedule(h, tenant.id, 'freshness')).last_error).toBeNull();
      if (round === 0) {
        sim.state.workspaces[2]!.items = sim.state.workspaces[2]!.items.filter((x) => x.id !== removed.id);
        sim.control.workspaceModified({ workspaceId: sim.state.workspaces[2]!.id });
      }
    }

    const after = await freshnessModels();
    const key = (id: string) => `model:${id.toLowerCase()}`;
    expect(after.map((r) => r.key)).toEqual(before.map((r) => r.key).filter((k) => k !== key(removed.id)));
    expect(after.find((r) => r.key === key(rescheduled.id))!.value.schedule).toMatchObject({ days: ['Monday'], times: ['04:15'] });
    // The models of the workspaces the scan did not change are neither forgotten nor changed in their catalog part.
    const catalogPart = (v: Record<string, unknown>) => ({ name: v.name, workspaceId: v.workspaceId, capacityId: v.capacityId, schedule: v.schedule, scanned: v.scanned });
    for (const r of after.filter((x) => x.key !== key(rescheduled.id))) {
      expect(catalogPart(r.value as unknown as Record<string, unknown>)).toEqual(catalogPart(before.find((b) => b.key === r.key)!.value as unknown as Record<string, unknown>));
    }
    expect(sim.countCalls({ path: /\/refreshSchedule$/ })).toBe(0);
    expect(sim.violations).toEqual([]);
  });

  it('inventory takes workspaces from the scan; it lists them only when one the scan left out is new to it', async () => {
    const { sim, orgId, tenant, runner } = await setUp(6, 300);
    const inventory = h.scheduler({ collectors: [inventoryCollector] });
    const adminList = /^\/v1\/admin\/workspaces$/;
    sim.control.scanOmits({ workspaceId: sim.state.workspaces[1]!.id });
    // Before any scan: the listing, as before.
    await inventory.pass();
    expect(sim.countCalls({ path: adminList })).toBe(1);
    await runner.pass();
    sim.state.workspaces[0]!.name = 'Renamed by the scan';
    sim.control.workspaceModified({ workspaceId: sim.state.workspaces[0]!.id });
    h.clock.advance(15 * 60_000);
    await runner.pass();
    await inventory.pass();
    expect((await schedule(h, tenant.id, 'inventory')).last_error).toBeNull();
    expect(sim.countCalls({ path: adminList })).toBe(1);
    const names = (await listWorkspaces(h.ctx, orgId)).map((w) => w.name).sort();
    expect(names).toEqual(sim.state.workspaces.map((w) => w.name).sort());
    expect(names).toContain('Renamed by the scan');

    // A workspace new to the inventory that the scan leaves out: the listing is read again.
    await h.ctx.db.query('DELETE FROM workspaces WHERE org_id = $1 AND remote_id = $2', [orgId, sim.state.workspaces[1]!.id.toLowerCase()]);
    h.clock.advance(15 * 60_000);
    await inventory.pass();
    expect(sim.countCalls({ path: adminList })).toBe(2);
    expect(await listWorkspaces(h.ctx, orgId)).toHaveLength(6);
  });

  it('hostile names (NUL, a lone surrogate) are cleaned and a model the result names twice is one: the commit holds', async () => {
    const { sim, tenant, runner } = await setUp(4, 300);
    const w = sim.state.workspaces[0]!;
    w.name = 'Vendas\u0000 Norte';
    const model = w.items.find((i) => i.type === 'SemanticModel')!;
    model.displayName = 'Modelo \ud800 de vendas';
    w.items.push({ ...model });
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    const s = await scanState(tenant.id);
    expect(s.cursor).toMatchObject({ known: 4, described: 4, queue: [], pending: [] });
    const scanned = s.workspaces.get(w.id.toLowerCase())!;
    expect(scanned.name).toBe('Vendas Norte');
    expect(scanned.datasets.filter((d) => d.id === model.id.toLowerCase())).toEqual([expect.objectContaining({ name: 'Modelo \uFFFD de vendas' })]);
    expect((await readLineage(h.ctx.db, tenant.id)).get(model.id.toLowerCase())).toMatchObject({ itemName: 'Modelo \uFFFD de vendas' });
  });

  it('a 429 on getInfo with Retry-After 40 s holds the scans back 40 seconds, not an hour', async () => {
    const { sim, tenant, runner } = await setUp(120, 10);
    await runner.pass();
    sim.control.throttle({ family: 'powerbi-admin', count: 1, retryAfterSeconds: 40 });
    h.clock.advance(10_000);
    await runner.pass();
    expect(sim.countCalls({ path: GET_INFO, throttled: true })).toBe(1);
    expect((await scanState(tenant.id)).cursor.queue).toHaveLength(20);
    // Before the 40 seconds are over Vigia does not ask; after them the scans go on.
    h.clock.advance(20_000);
    await runner.pass();
    expect(sim.countCalls({ path: GET_INFO })).toBe(2);
    h.clock.advance(30_000);
    await runner.pass();
    expect((await scanState(tenant.id)).cursor).toMatchObject({ described: 120, queue: [], lastFullAt: expect.any(String) });
    expect(await lastError(tenant.id)).toBeNull();
  });

  it('a slice whose scan keeps failing is set aside after three attempts: the full scan finishes and the view names it', async () => {
    const { sim, tenant, runner } = await setUp(6, 300);
    sim.control.failScans({ count: 1_000 });
    for (let i = 0; i < 8 && !(await scanState(tenant.id)).cursor?.lastFullAt; i++) {
      await runner.pass();
      h.clock.advance(5 * 60_000);
    }
    const s = await scanState(tenant.id);
    expect(s.cursor).toMatchObject({ queue: [], pending: [], lastFullAt: expect.any(String), fullStartedAt: null });
    expect([...(s.cursor.failed ?? [])].sort()).toEqual(sim.state.workspaces.map((w) => w.id.toLowerCase()).sort());
    expect(sim.countCalls({ path: GET_INFO })).toBe(3);
    // What the tenant view shows (its `scan`).
    expect((await readScanProgress(h.ctx.db, [tenant.id])).get(tenant.id)!.failedWorkspaces).toHaveLength(6);
    // The next full scan tries them again.
    sim.control.failScans({ count: 0 });
    h.clock.advance(7 * 86_400_000);
    await runner.pass();
    h.clock.advance(5 * 60_000);
    await runner.pass();
    expect((await scanState(tenant.id)).cursor).toMatchObject({ described: 6, failed: [] });
  });

  it('a change that the platform lists late (30 minutes back) is still listed and scanned', async () => {
    const { sim, tenant, runner } = await setUp(6, 300);
    await runner.pass();
    h.clock.advance(5 * 60_000);
    await runner.pass();
    const before = sim.countCalls({ path: GET_INFO });
    // A change made 20 minutes ago that the listing shows only now.
    const w = sim.state.workspaces[2]!;
    w.items.find((i) => i.type === 'SemanticModel')!.displayName = 'Renomeado';
    sim.control.workspaceModified({ workspaceId: w.id, minutesAgo: 20 });
    h.clock.advance(5 * 60_000);
    await runner.pass();
    expect(sim.countCalls({ path: GET_INFO })).toBe(before + 1);
    expect((await scanState(tenant.id)).workspaces.get(w.id.toLowerCase())!.datasets[0]!.name).toBe('Renomeado');
    expect(sim.violations).toEqual([]);
  });

  it('a listing that is not a list is the run\'s error: a full listing answering an object forgets nothing', async () => {
    const { sim, tenant, runner } = await setUp(6, 300);
    await runner.pass();
    expect((await scanState(tenant.id)).cursor).toMatchObject({ known: 6, described: 6 });
    const models = (await readLineage(h.ctx.db, tenant.id)).size;
    expect(models).toBeGreaterThan(0);
    // A week on the full listing is due; the platform answers an object instead of the list.
    sim.control.oddResponse({ path: '/v1.0/myorg/admin/workspaces/modified', body: { value: [] } });
    h.clock.advance(7 * 86_400_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toMatch(/other than a list of workspaces/);
    expect((await scanState(tenant.id)).cursor).toMatchObject({ known: 6, described: 6 });
    expect((await readLineage(h.ctx.db, tenant.id)).size).toBe(models);
    // Answered as documented again, the full scan goes on.
    sim.control.oddResponse({ path: '/v1.0/myorg/admin/workspaces/modified', body: null });
    h.clock.advance(5 * 60_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect((await scanState(tenant.id)).cursor).toMatchObject({ known: 6, described: 6 });
  });

  it('in member mode the scanner makes no call', async () => {
    const { sim, tenant, runner } = await setUp(3, 300, 'member');
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect(sim.countCalls({ path: /\/admin\/workspaces\// })).toBe(0);
  });
});


describe('scan progress in the admin API and /metrics', () => {
  let t: TestApp;
  let sim: TenantSim;
  const clock = new ManualClock('2026-06-15T12:00:00Z');
  beforeAll(async () => {
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
    sim = await startSim({ seed: 2702, sizes: { capacities: 1, workspaces: 5, gateways: 0 }, now: () => clock.now().getTime() });
    registerMonitoringMetrics(t.ctx);
  });
  afterAll(async () => {
    await sim.stop();
    await t.close();
  });

  it('the tenant view and /metrics show workspaces described of those known and when the scans ran', async () => {
    clock.advance(10 * 60_000);
    const orgId = await insertOrg(t.ctx);
    sim.control.scanOmits({ workspaceId: sim.state.workspaces[0]!.id });
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Scanned',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
    });
    expect(res.statusCode).toBe(201);
    const tenant = res.json();
    expect(tenant.scan).toBeNull();
    const runner = new CollectorScheduler(t.ctx, { collectors: [scannerCollector], pollMs: 60_000 });
    try {
      expect(await runner.pass()).toBe(1);
    } finally {
      await runner.stop();
    }
    const view = (await t.admin('GET', `/orgs/${orgId}/tenants/${tenant.id}`)).json();
    const fullAt = clock.now().toISOString();
    expect(view.scan).toEqual({ known: 5, described: 4, queued: 0, pendingScans: 0, lastIncrementalScanAt: null, lastFullScanAt: fullAt, fullScanStartedAt: null, failedWorkspaces: [] });

    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const labels = `org="${orgId}",tenant="${tenant.id}"`;
    expect(metrics).toContain(`vigia_scan_workspaces{${labels},kind="known"} 5`);
    expect(metrics).toContain(`vigia_scan_workspaces{${labels},kind="described"} 4`);
    expect(metrics).toContain(`vigia_scan_last_full_timestamp_seconds{${labels}} ${Date.parse(fullAt) / 1000}`);
    expect(metrics).toContain(`vigia_scan_last_incremental_timestamp_seconds{${labels}} 0`);
    expect(metrics).toContain('vigia_tenant_api_hourly_cap{family="scanner-info"} 500');
  });
});

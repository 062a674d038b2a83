/**
 * Several instances and the schedule row's lease: a run that lost its lease (paused past it,
 * its renewal found the row gone) writes nothing, so the instance that holds the row now is the
 * only one whose facts count; deleting a tenant while a run is about to commit leaves no incident
 * behind; a deleted tenant's token client (its decrypted credentials) leaves the engine's memory.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Collector, CollectorRun } from '../../src/monitoring/engine/collector.js';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { holdLease } from '../../src/monitoring/engine/lease.js';
import { applySignalsIn, readState, writeState } from '../../src/monitoring/engine/output.js';
import { releaseStateQuery, removeTenant } from '../../src/monitoring/tenant-removal.js';
import { updateTenant } from '../../src/monitoring/tenants.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { ENGINE } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { alerts, createHarness, expireLeases, schedule, type Harness } from './harness.js';

/** A gate a test opens; `reached` resolves when the run arrives at it. */
function gate() {
  let open!: () => void;
  let arrived!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (arrived = r));
  const wait = () => {
    arrived();
    return opened;
  };
  return { open, reached, wait };
}

/** The capacity collector, paused (by the gate) just before its commit: an instance stalled past its lease. */
function pausedBeforeCommit(g: ReturnType<typeof gate>): Collector {
  return {
    name: 'capacity',
    async run(run: CollectorRun) {
      await capacityCollector.run({
        ...run,
        commit: async (signals, changes, lineage) => {
          await g.wait();
          await run.commit(signals, changes, lineage);
        },
      });
    },
  };
}

const setAll = (sim: TenantSim, state: 'Active' | 'Suspended') => {
  for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state });
};

describe('leases on the database clock, fenced commits', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  it('an instance paused past its lease commits nothing: one failure counted, the saved state is the platform\'s latest', async () => {
    const sim = await h.sim({ seed: 71, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 60 } } });
    const capacityId = sim.state.capacities[0]!.id.toLowerCase();
    setAll(sim, 'Suspended');
    // A reads "Suspended", then stalls before its commit, past its lease.
    const g = gate();
    const a = h.scheduler({ collectors: [pausedBeforeCommit(g)], workerId: 'paused-a' });
    const aPass = a.pass();
    await g.reached;
    await expireLeases(h);
    // B takes the row over: it sees the capacity suspended, then active again.
    const b = h.scheduler({ collectors: [capacityCollector], workerId: 'live-b' });
    expect(await b.pass()).toBe(1);
    setAll(sim, 'Active');
    h.clock.advance(60_000);
    expect(await b.pass()).toBe(1);
    // A wakes up and tries to commit what it read long ago.
    g.open();
    await aPass;
    const found = await alerts(h, orgId, 'Capacity');
    expect(found.map((r) => [r.source_id, r.status, r.failure_count])).toEqual([[capacityId, 'resolved', 1]]);
    const state = await readState<{ state: string; down: boolean }>(h.ctx.db, tenant.id, 'capacity');
    expect(state.get(capacityId)).toMatchObject({ state: 'Active', down: false });
    const row = await schedule(h, tenant.id, 'capacity');
    expect(row.locked_by).toBeNull();
    expect(row.last_error).toBeNull();
  });

  it('the same instance claiming a row again: the stalled claim\'s commit is refused, the fresh claim\'s kept (a fence per claim)', async () => {
    const sim = await h.sim({ seed: 72, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 60 } } });
    const capacityId = sim.state.capacities[0]!.id.toLowerCase();
    setAll(sim, 'Suspended');
    const g = gate();
    const stalled = h.scheduler({ collectors: [pausedBeforeCommit(g)], workerId: 'one-instance' });
    const stalledPass = stalled.pass();
    await g.reached;
    const first = (await schedule(h, tenant.id, 'capacity')).locked_by as string;
    await expireLeases(h);
    // The same instance (same worker id) claims the row again, reads the capacity active and is
    // about to commit when the stalled run wakes up and commits what it read long ago.
    setAll(sim, 'Active');
    const g2 = gate();
    const fresh = h.scheduler({ collectors: [pausedBeforeCommit(g2)], workerId: 'one-instance' });
    const freshPass = fresh.pass();
    await g2.reached;
    g.open();
    await stalledPass;
    g2.open();
    expect(await freshPass).toBe(1);
    // The stale "Suspended" never became an incident; the state is the fresh run's.
    expect(await alerts(h, orgId, 'Capacity')).toEqual([]);
    const state = await readState<{ state: string; down: boolean }>(h.ctx.db, tenant.id, 'capacity');
    expect(state.get(capacityId)).toMatchObject({ state: 'Active', down: false });
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toBeNull();
    // Each claim wrote its own token: the instance's id and a random part.
    expect(first).toMatch(/^one-instance:[0-9a-f]{32}$/);
  });

  it('a renewal that finds the row no longer held aborts the run: no more calls, nothing written', async () => {
    const sim = await h.sim({ seed: 72, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 60 } } });
    setAll(sim, 'Suspended');
    const g = gate();
    const stalled: Collector = {
      name: 'capacity',
      async run(run) {
        await g.wait(); // stalled before its first call
        await capacityCollector.run(run);
      },
    };
    const a = h.scheduler({ collectors: [stalled], workerId: 'renew-a' });
    const aPass = a.pass();
    await g.reached;
    const before = sim.countCalls();
    await expireLeases(h);
    await a.renewLeases(); // 0 rows: the lease is gone
    g.open();
    await aPass;
    expect(sim.countCalls()).toBe(before);
    expect(await alerts(h, orgId, 'Capacity')).toEqual([]);
    expect((await readState(h.ctx.db, tenant.id, 'capacity')).size).toBe(0);
    const row = await schedule(h, tenant.id, 'capacity');
    expect(row.last_run_at).toBeNull(); // not recorded as a run
    expect(row.locked_by).toBeNull(); // given back: due again at once
    // The next run (any instance) does the work once.
    expect(await h.scheduler({ collectors: [capacityCollector], workerId: 'renew-b' }).pass()).toBe(1);
    expect((await alerts(h, orgId, 'Capacity')).map((r) => [r.status, r.failure_count])).toEqual([['open', 1]]);
  });

  it('a renewal while the lease holds keeps the run going', async () => {
    const sim = await h.sim({ seed: 73, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 60 } } });
    setAll(sim, 'Suspended');
    const g = gate();
    const a = h.scheduler({ collectors: [pausedBeforeCommit(g)], workerId: 'renew-ok' });
    const aPass = a.pass();
    await g.reached;
    const held = new Date((await schedule(h, tenant.id, 'capacity')).locked_until).getTime();
    await a.renewLeases();
    expect(new Date((await schedule(h, tenant.id, 'capacity')).locked_until).getTime()).toBeGreaterThanOrEqual(held);
    g.open();
    await aPass;
    expect((await alerts(h, orgId, 'Capacity')).map((r) => [r.status, r.failure_count])).toEqual([['open', 1]]);
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toBeNull();
  });

  it('a tenant deleted while a run is about to commit: the run writes nothing and no incident is left open', async () => {
    const sim = await h.sim({ seed: 74, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 60 } } });
    setAll(sim, 'Suspended');
    const g = gate();
    const a = h.scheduler({ collectors: [pausedBeforeCommit(g)], workerId: 'removal-a' });
    const aPass = a.pass();
    await g.reached;
    await removeTenant(h.ctx, orgId, tenant.id);
    g.open();
    await aPass;
    expect((await alerts(h, orgId, 'Capacity')).filter((r) => r.status !== 'resolved')).toEqual([]);
  });

  it('a tenant deleted while a run commits: the removal waits for the commit and resolves what it opened', async () => {
    const sim = await h.sim({ seed: 75, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 60 } } });
    const capacityId = sim.state.capacities[0]!.id.toLowerCase();
    // Another instance's commit, held open after its writes (it holds the row, so it is fenced in).
    const lease = { tenantRef: tenant.id, collector: 'capacity', holder: 'removal-b' };
    await h.ctx.db.query("UPDATE collector_schedules SET locked_by = $3, locked_until = now() + interval '1 minute' WHERE tenant_ref = $1 AND collector = $2", [
      lease.tenantRef,
      lease.collector,
      lease.holder,
    ]);
    const g = gate();
    const now = h.clock.now();
    const committing = h.ctx.db.tx(async (q) => {
      await holdLease(q, lease);
      await applySignalsIn(q, h.ctx, orgId, [
        { sourceType: 'Capacity', sourceId: capacityId, sourceName: 'Cap', notificationKind: 'CapacityNotActive', severity: 'error', kind: 'failure', title: 'Capacity Cap is Suspended', message: 'Suspended.' },
      ], now);
      await writeState(q, tenant.id, 'capacity', [{ key: capacityId, value: { name: 'Cap', state: 'Suspended', down: true } }]);
      await g.wait();
    });
    await g.reached;
    const removal = removeTenant(h.ctx, orgId, tenant.id);
    if (ENGINE === 'pg') {
      // PostgreSQL: the removal is waiting for the commit's row lock (PGlite runs one transaction at a time anyway).
      await waitFor(async () => (await h.ctx.db.query("SELECT 1 FROM pg_locks WHERE NOT granted")).rows.length > 0, { what: 'the removal to wait for the commit' });
    }
    g.open();
    await committing;
    await removal;
    expect((await alerts(h, orgId, 'Capacity')).map((r) => r.status)).toEqual(['resolved']);
  });

  it('a tenant deleted with a large healthy memory: the removal reads only the releasing collectors\' rows that hold an open incident and resolves exactly those incidents', async () => {
    const sim = await h.sim({ seed: 76, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 60 } } });
    const now = h.clock.now();
    const capacity = (id: string, down: boolean) => ({ key: id, value: { name: `Cap ${id}`, state: down ? 'Suspended' : 'Active', down } });
    await h.ctx.db.tx(async (q) => {
      // The inventory's memory (no releaseAll, no incidents): the bulk of an enterprise tenant's rows.
      await writeState(q, tenant.id, 'inventory', Array.from({ length: 400 }, (_, i) => ({ key: `model:m${i}`, value: { name: `M${i}` } })));
      await writeState(q, tenant.id, 'capacity', [capacity('c-down-1', true), capacity('c-down-2', true), capacity('c-up', false)]);
      // The refreshes' memory of a member-mode tenant: 300 healthy models, one failing, and its listing.
      const model = (i: number, failing: boolean) => ({ key: `model:m${i}`, value: { name: `M${i}`, workspaceId: 'w1', capacityId: null, polled: true, failing, last: null, running: [], lastSeenAt: null, meta: null } });
      await writeState(q, tenant.id, 'refreshes', [...Array.from({ length: 300 }, (_, i) => model(i, i === 7)), { key: 'listing', value: { listedAt: now.toISOString(), groups: [['w1', 'W1', null]], capacities: [] } }]);
      await applySignalsIn(q, h.ctx, orgId, ['c-down-1', 'c-down-2'].map((id) => (
        { sourceType: 'Capacity', sourceId: id, sourceName: `Cap ${id}`, notificationKind: 'CapacityNotActive', severity: 'error' as const, kind: 'failure' as const, title: `Capacity ${id} is Suspended`, message: 'Suspended.' }
      )), now);
      await applySignalsIn(q, h.ctx, orgId, [{ sourceType: 'Dataset', sourceId: 'm7', sourceName: 'M7', notificationKind: 'RefreshFailed', severity: 'error', kind: 'failure', title: 'M7 failed', message: 'Failed.' }], now);
    });
    const read = releaseStateQuery(tenant.id);
    const { rows } = await h.ctx.db.query<{ collector: string; key: string }>(read.text, read.values);
    // Only the rows that hold an open incident: the capacities down and the failing model.
    expect(rows.map((r) => `${r.collector}/${r.key}`).sort()).toEqual(['capacity/c-down-1', 'capacity/c-down-2', 'refreshes/model:m7']);
    await removeTenant(h.ctx, orgId, tenant.id);
    expect((await alerts(h, orgId, 'Capacity')).map((r) => r.status)).toEqual(['resolved', 'resolved']);
    expect((await alerts(h, orgId, 'Dataset')).map((r) => r.status)).toEqual(['resolved']);
  });

  it('a token client (decrypted credentials) leaves the engine\'s memory when its tenant is deleted, changed, or idle for an hour', async () => {
    const sim = await h.sim({ seed: 76, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const every = { collectors: { capacity: { intervalSeconds: 60 } } };
    const deleted = await h.tenant(orgId, sim, every);
    const changed = await h.tenant(orgId, sim, { name: 'Fabrikam', ...every });
    const idle = await h.tenant(orgId, sim, { name: 'Northwind', ...every });
    const s = h.scheduler({ collectors: [capacityCollector], workerId: 'tokens-a' });
    expect(await s.pass()).toBe(3);
    expect([deleted, changed, idle].map((t) => s.holdsTokensOf(t.id))).toEqual([true, true, true]);
    await removeTenant(h.ctx, orgId, deleted.id);
    // No clock advance: the change is seen by the database's version, not by updated_at.
    await updateTenant(h.ctx, orgId, changed.id, { credentials: { clientSecret: `${sim.clientSecret}` } });
    await h.ctx.db.query('UPDATE collector_schedules SET enabled = false WHERE tenant_ref = $1', [changed.id]);
    h.clock.advance(60_000);
    await s.pass();
    expect([deleted, changed, idle].map((t) => s.holdsTokensOf(t.id))).toEqual([false, false, true]);
    // Not run here for an hour (disabled, or run by other instances): dropped too.
    await h.quiet();
    h.clock.advance(61 * 60_000);
    await s.pass();
    expect(s.holdsTokensOf(idle.id)).toBe(false);
  });
});

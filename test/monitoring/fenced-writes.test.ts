/**
 * A collector run writes only through its commit, fenced by its lease: the tables a source keeps
 * besides its state — capacity load history, gateway hot marks, the organization's inventory —
 * get nothing from a run that lost its lease, and the next run's rows are kept. A run reads
 * through a read-only handle: a statement that writes is refused, and a write staged after the
 * commit is never applied.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Collector, CollectorRun } from '../../src/monitoring/engine/collector.js';
import { datasourcesCollector } from '../../src/monitoring/sources/datasources/datasources.js';
import { gatewayCollector } from '../../src/monitoring/sources/gateway/gateway.js';
import { inventoryCollector } from '../../src/monitoring/sources/inventory/inventory.js';
import { hotMarks } from '../../src/monitoring/sources/refreshes/gateway-evidence.js';
import { utilizationCollector } from '../../src/monitoring/sources/utilization/utilization.js';
import { createHarness, expireLeases, schedule, type Harness } from './harness.js';

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

/** The collector, paused (by the gate) just before its commit: an instance stalled past its lease. */
function pausedBeforeCommit(collector: Collector, g: ReturnType<typeof gate>): Collector {
  return {
    ...collector,
    async run(run: CollectorRun) {
      await collector.run({
        ...run,
        commit: async (signals, changes, lineage) => {
          await g.wait();
          await run.commit(signals, changes, lineage);
        },
      });
    },
  };
}

describe('a collector run writes only through its fenced commit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.quiet());

  /** Runs the collector once, stalled before its commit until its lease ran out. */
  async function staleRun(collector: Collector, workerId: string): Promise<void> {
    const g = gate();
    const pass = h.scheduler({ collectors: [pausedBeforeCommit(collector, g)], workerId }).pass();
    await g.reached;
    await expireLeases(h);
    g.open();
    await pass;
  }

  const count = async (sql: string, params: unknown[]) => Number((await h.ctx.db.query<{ n: string }>(sql, params)).rows[0]!.n);

  it('capacity load history: a run that lost its lease stores no window and no hourly roll-up; the next run stores them', async () => {
    const sim = await h.sim({ seed: 26, sizes: { capacities: 2, workspaces: 6, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, {
      collectors: { utilization: { intervalSeconds: 30 } },
      utilization: { eventhouse: { queryUri: sim.origin, database: 'CapacityMonitoring', table: 'CapacityEvents' } },
    });
    const windows = () => count('SELECT count(*) AS n FROM capacity_utilization WHERE tenant_ref = $1', [tenant.id]);
    const hours = () => count('SELECT count(*) AS n FROM capacity_utilization_hourly WHERE tenant_ref = $1', [tenant.id]);

    await staleRun(utilizationCollector, 'stale-utilization');
    expect(await windows()).toBe(0);
    expect(await hours()).toBe(0);
    expect((await schedule(h, tenant.id, 'utilization')).locked_by).toBeNull(); // given back, due again

    expect(await h.scheduler({ collectors: [utilizationCollector], workerId: 'fresh-utilization' }).pass()).toBe(1);
    expect((await schedule(h, tenant.id, 'utilization')).last_error).toBeNull();
    expect(await windows()).toBeGreaterThan(0);
    expect(await hours()).toBeGreaterThan(0);
  });

  it('gateway hot marks: a run that lost its lease marks no gateway and asks no run of the gateway collector; the next run does both', async () => {
    const sim = await h.sim({ seed: 182, sizes: { capacities: 1, workspaces: 1, gateways: 2, membersPerGateway: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { datasources: { intervalSeconds: 300 }, gateway: { intervalSeconds: 300 } } });
    const g1 = sim.state.gateways[0]!;
    await h.scheduler({ collectors: [gatewayCollector] }).pass();
    await h.scheduler({ collectors: [datasourcesCollector] }).pass();
    // The gateway goes down: a data source check says it does not answer (evidence for the gateway collector).
    sim.control.gatewayOffline({ gatewayId: g1.id, offline: true });
    h.clock.advance(300_000);
    const gatewayDue = (await schedule(h, tenant.id, 'gateway')).next_run_at;

    await staleRun(datasourcesCollector, 'stale-datasources');
    expect((await hotMarks(h.ctx.db, tenant.id, h.clock.now())).size).toBe(0);
    expect((await schedule(h, tenant.id, 'gateway')).next_run_at).toEqual(gatewayDue);

    expect(await h.scheduler({ collectors: [datasourcesCollector], workerId: 'fresh-datasources' }).pass()).toBe(1);
    expect([...(await hotMarks(h.ctx.db, tenant.id, h.clock.now())).keys()]).toEqual([g1.id.toLowerCase()]);
    expect((await schedule(h, tenant.id, 'gateway')).next_run_at).toEqual(h.clock.now());
  });

  it('inventory: a run that lost its lease replaces no capacity or workspace of the organization; the next run does', async () => {
    const sim = await h.sim({ seed: 183, sizes: { capacities: 2, workspaces: 3 } });
    const orgId = await h.org();
    await h.tenant(orgId, sim);
    const rows = async () => [await count('SELECT count(*) AS n FROM capacities WHERE org_id = $1', [orgId]), await count('SELECT count(*) AS n FROM workspaces WHERE org_id = $1', [orgId])];

    await staleRun(inventoryCollector, 'stale-inventory');
    expect(await rows()).toEqual([0, 0]);

    expect(await h.scheduler({ collectors: [inventoryCollector], workerId: 'fresh-inventory' }).pass()).toBe(1);
    expect(await rows()).toEqual([2, 3]);
  });

  it('a run reads through a read-only handle: a statement that writes is refused, and a write staged after the commit is never applied', async () => {
    const sim = await h.sim({ seed: 184, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 60 } } });
    const writer: Collector = {
      name: 'capacity',
      async run(run) {
        await run.reader.query('WITH gone AS (DELETE FROM collector_schedules RETURNING 1) SELECT count(*) FROM gone');
      },
    };
    expect(await h.scheduler({ collectors: [writer] }).pass()).toBe(1);
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toMatch(/reads through its reader and writes through its commit; refused: WITH gone AS/);

    const late: Collector = {
      name: 'capacity',
      async run(run) {
        await run.commit([], [{ key: 'seen', value: true }]);
        run.write(async (q) => {
          await q.query("UPDATE orgs SET name = 'late' WHERE id = $1", [orgId]);
        });
      },
    };
    h.clock.advance(60_000);
    expect(await h.scheduler({ collectors: [late] }).pass()).toBe(1);
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toBe('a write after the commit is never applied');
    expect((await h.ctx.db.query('SELECT name FROM orgs WHERE id = $1', [orgId])).rows[0]!.name).not.toBe('late');
  });
});

/**
 * The scan catalog's versions come from the database's clock, not the instances': after a scan
 * written by an instance whose clock runs 3 minutes ahead, a change the next scan writes on an
 * instance with the right clock still makes a new catalog version, and freshness applies it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { askToRunNow } from '../../src/monitoring/engine/run-now.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import { freshnessCollector } from '../../src/monitoring/sources/freshness/freshness.js';
import { scannerCollector } from '../../src/monitoring/sources/scanner/scanner.js';
import { createHarness, type Harness, schedule } from './harness.js';

describe('scan catalog: versions across instances', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('a change scanned after a scan by an instance whose clock runs ahead is applied by freshness', async () => {
    const sim = await h.sim({ seed: 2702, sizes: { capacities: 2, workspaces: 6, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 60 * 86_400 });
    // Past the 30 minutes every modified listing looks back (only later changes are listed).
    h.clock.advance(40 * 60_000);
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { mode: 'admin', collectors: { scanner: { intervalSeconds: 300 } } });
    // Instance A: the same database, a clock 3 minutes ahead (more than the catalog's 2-minute overlap).
    const ahead = { now: () => new Date(h.clock.now().getTime() + 3 * 60_000) };
    const scannerA = new CollectorScheduler({ ...h.ctx, clock: ahead }, { pollMs: 60_000, stopTimeoutMs: 2_000, collectors: [scannerCollector], workerId: 'instance-a' });
    h.schedulers.push(scannerA);
    const scannerB = h.scheduler({ collectors: [scannerCollector], workerId: 'instance-b' });
    const freshness = h.scheduler({ collectors: [freshnessCollector], workerId: 'instance-b-freshness' });

    expect(await scannerA.pass()).toBe(1);
    h.clock.advance(30_000);
    expect(await freshness.pass()).toBe(1);
    expect((await schedule(h, tenant.id, 'freshness')).last_error).toBeNull();
    const model = sim.state.workspaces[1]!.items.find((x) => x.type === 'SemanticModel')!;
    const scheduleOf = async () => {
      const { rows } = await h.ctx.db.query("SELECT value FROM collector_state WHERE tenant_ref = $1 AND collector = 'freshness' AND key = $2", [tenant.id, `model:${model.id.toLowerCase()}`]);
      return rows[0]?.value?.schedule ?? null;
    };
    expect(await scheduleOf()).not.toMatchObject({ times: ['04:15'] });

    // The schedule changes; a scan asked for now runs on instance B (the right clock, behind A's).
    sim.control.refreshSchedule({ datasetId: model.id, days: ['Monday'], times: ['04:15'], enabled: true, localTimeZoneId: 'UTC' });
    sim.control.workspaceModified({ workspaceId: sim.state.workspaces[1]!.id });
    h.clock.advance(30_000);
    await askToRunNow(h.ctx.db, tenant.id, 'scanner', h.clock.now());
    expect(await scannerB.pass()).toBe(1);
    expect((await schedule(h, tenant.id, 'scanner')).last_error).toBeNull();
    const scanned = await h.ctx.db.query("SELECT value FROM collector_state WHERE tenant_ref = $1 AND collector = 'scanner' AND key = $2", [tenant.id, `ws:${sim.state.workspaces[1]!.id.toLowerCase()}`]);
    expect(JSON.stringify(scanned.rows[0]?.value)).toContain('04:15');

    h.clock.advance(6 * 60_000);
    expect(await freshness.pass()).toBe(1);
    expect((await schedule(h, tenant.id, 'freshness')).last_error).toBeNull();
    expect(await scheduleOf()).toMatchObject({ days: ['Monday'], times: ['04:15'] });
    expect(sim.violations).toEqual([]);
  });
});

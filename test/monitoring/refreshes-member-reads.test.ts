/**
 * Member mode at size: a run judges every model by its compact row (workspace, capacity,
 * failing, running, schedule, last seen, data-source age) and reads the whole remembered state
 * only of the models it polls, re-places or forgets. With 1,000 models and a run that picks
 * about ten, about ten states are read (the run's debug log line says how many), and a failure
 * of a hot model is still found in the next run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshesCollector } from '../../src/monitoring/sources/refreshes/refreshes.js';
import type { SimItem } from '../../src/tenant-sim/index.js';
import { createHarness, schedule, type Harness } from './harness.js';

/** The refreshes collector's run lines in the log (the last run last). */
function runLines(h: Harness, tenantRef: string): { read: number; statesRead: number }[] {
  return h.ctx.logs.lines
    .map((l) => JSON.parse(l) as { msg?: string; tenant?: string; read: number; statesRead: number })
    .filter((l) => l.msg === 'refreshes: run read' && l.tenant === tenantRef);
}

describe('collector: refreshes (member mode reads at size)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('1,000 models, a run that picks ten reads about ten whole states; a hot model\'s failure is still found', { timeout: 300_000 }, async () => {
    const sim = await h.sim({ seed: 236, sizes: { capacities: 1, workspaces: 10, modelsPerWorkspace: 100, gateways: 0 }, now: () => h.clock.now().getTime(), tokenLifetimeSeconds: 30 * 86_400 });
    const all: SimItem[] = sim.state.workspaces.flatMap((w) => w.items.filter((i) => i.type === 'SemanticModel'));
    expect(all.length).toBe(1000);
    // Every model refreshed two days ago and has no schedule (cold), but one that refreshed an hour ago (hot).
    for (const m of all) {
      m.refreshes = [{ requestId: `seed-${m.id}`, refreshType: 'Scheduled', startTime: '2026-06-13T06:00:00.000Z', endTime: '2026-06-13T06:05:00.000Z', status: 'Completed' }];
      m.refreshSchedule = { days: ['Monday'], times: ['06:00'], enabled: false, localTimeZoneId: 'UTC' };
    }
    const hot = all[421]!;
    hot.refreshes.unshift({ requestId: `recent-${hot.id}`, refreshType: 'Scheduled', startTime: '2026-06-15T11:00:00.000Z', endTime: '2026-06-15T11:05:00.000Z', status: 'Completed' });
    const orgId = await h.org();
    // An hour's interval: the first run lists every workspace and reads every model.
    const tenant = await h.tenant(orgId, sim, { mode: 'member', collectors: { refreshes: { intervalSeconds: 3600 } } });
    const runner = h.scheduler({ collectors: [refreshesCollector] });
    h.clock.advance(3_600_000);
    await runner.pass();
    expect((await schedule(h, tenant.id, 'refreshes')).last_error).toBeNull();
    const { rows } = await h.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM collector_state WHERE tenant_ref = $1 AND collector = 'refreshes' AND key LIKE 'model:%'", [tenant.id]);
    expect(rows[0]!.n).toBe(1000);

    // A 10-second interval: 10 Power BI calls a run, so about ten models are polled a run.
    await h.ctx.db.query("UPDATE collector_schedules SET interval_seconds = 10, next_run_at = $2 WHERE tenant_ref = $1 AND collector = 'refreshes'", [tenant.id, h.clock.now()]);
    sim.control.refreshResult({ datasetId: hot.id, status: 'Failed', errorCode: 'Timeout' });
    h.clock.advance(10_000);
    await runner.pass();
    expect((await schedule(h, tenant.id, 'refreshes')).last_error).toBeNull();
    expect(runLines(h, tenant.id)).toHaveLength(2);
    const last = runLines(h, tenant.id).at(-1)!;
    expect(last.read).toBeGreaterThan(0);
    expect(last.read).toBeLessThanOrEqual(10);
    // The whole state of the polled models only (before: all 1,000 every run).
    expect(last.statesRead).toBe(last.read);
    const { rows: found } = await h.ctx.db.query("SELECT source_id, status, message FROM alerts WHERE org_id = $1 AND source_type = 'Dataset'", [orgId]);
    expect(found).toMatchObject([{ source_id: hot.id.toLowerCase(), status: 'open', message: expect.stringContaining('Código do erro: Timeout') }]);

    // A workspace the principal lost: its 100 models are forgotten, and only they (and the polled ones) are read whole.
    const lost = sim.state.workspaces.find((w) => !w.items.includes(hot))!;
    sim.state.workspaces.splice(sim.state.workspaces.indexOf(lost), 1);
    await h.ctx.db.query("DELETE FROM collector_state WHERE tenant_ref = $1 AND collector = 'refreshes' AND key = 'listing'", [tenant.id]);
    h.clock.advance(10_000);
    await runner.pass();
    expect((await schedule(h, tenant.id, 'refreshes')).last_error).toBeNull();
    expect(runLines(h, tenant.id)).toHaveLength(3);
    const after = runLines(h, tenant.id).at(-1)!;
    expect(after.statesRead).toBeLessThanOrEqual(100 + 10);
    expect(after.statesRead).toBeGreaterThanOrEqual(100);
    const { rows: left } = await h.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM collector_state WHERE tenant_ref = $1 AND collector = 'refreshes' AND key LIKE 'model:%'", [tenant.id]);
    expect(left[0]!.n).toBe(900);
    expect(sim.violations).toEqual([]);
  });
});

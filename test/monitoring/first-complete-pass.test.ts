/**
 * First pass = first complete pass (docs/monitoring.md, "Turns, effective intervals and the first
 * pass"): a rotating collector of a new connection keeps the tenant's first pass open until every
 * resource was read once, so a problem it first reaches in a later run of that pass is still
 * "found at connection" (no page), and the one TenantConnected summary comes when the pass is
 * complete. A problem that starts after it pages as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTOR_NAMES } from '../../src/monitoring/connection/collector-names.js';
import type { Collector } from '../../src/monitoring/engine/collector.js';
import { pickForRun, ROTATION_KEY, type RotationState } from '../../src/monitoring/engine/rotation.js';
import { gatewayCollector } from '../../src/monitoring/sources/gateway/gateway.js';
import type { SimGateway, TenantSim } from '../../src/tenant-sim/index.js';
import { createHarness, schedule, type Harness } from './harness.js';

function allOnline(sim: TenantSim): SimGateway[] {
  for (const g of sim.state.gateways) {
    sim.control.gatewayOffline({ gatewayId: g.id, offline: false });
    sim.control.gatewayUpgradeRequired({ gatewayId: g.id, on: false });
    for (const m of g.members) sim.control.memberOffline({ gatewayId: g.id, memberId: m.id, offline: false });
  }
  return sim.state.gateways.filter((g) => g.principalIsAdmin);
}

/** Twelve pretend pipelines, three read a run, the first one failing (found in the first run, while the pass goes on): a collector that rotates with pickForRun like the real ones. */
const PIPELINES = Array.from({ length: 12 }, (_, i) => `pipe-${String(i).padStart(2, '0')}`);
const slicedCollector: Collector = {
  name: 'jobs',
  async run(run) {
    const now = run.ctx.clock.now();
    const pick = pickForRun(PIPELINES, { key: (p) => p, isHot: () => false, budget: 3, state: run.state.get(ROTATION_KEY) as RotationState | undefined, now });
    const signals = pick.poll
      .filter((p) => p === PIPELINES[0])
      .map((p) => ({ sourceType: 'Pipeline', sourceId: p, sourceName: p, kind: 'failure' as const, notificationKind: 'PipelineFailed', severity: 'error' as const, title: `${p} failed`, message: 'failed', occurredAt: now }));
    await run.commit(signals, [{ key: ROTATION_KEY, value: pick.next }]);
  },
};

describe('first pass = first complete pass', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const tenantAlerts = async (orgId: string) =>
    (
      await h.ctx.db.query<{ source_id: string; notification_kind: string; status: string; silence_reason: string | null; message: string }>(
        'SELECT source_id, notification_kind, status, silence_reason, message FROM alerts WHERE org_id = $1 ORDER BY created_at, id',
        [orgId],
      )
    ).rows;

  it('gateway: a member found offline in a later run of the first rotation is "found at connection", and TenantConnected comes when the rotation is complete', async () => {
    const INTERVAL = 60;
    const sim = await h.sim({ seed: 363, sizes: { capacities: 1, workspaces: 1, gateways: 40, membersPerGateway: 3 } });
    const orgId = await h.org();
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((n) => [n, n === 'gateway' ? { enabled: true, intervalSeconds: INTERVAL } : { enabled: false }]));
    const tenant = await h.tenant(orgId, sim, { collectors }, { connecting: true });
    const visible = allOnline(sim);
    // The last gateway by key, one member down: the gateway stays Live (another member answers), so it is not hot and waits for its turn.
    const last = [...visible].filter((g) => g.members.length > 1).sort((a, b) => (a.id.toLowerCase() < b.id.toLowerCase() ? -1 : 1)).at(-1)!;
    const down = last.members[0]!;
    sim.control.memberOffline({ gatewayId: last.id, memberId: down.id, offline: true });
    const runner = h.scheduler({ collectors: [gatewayCollector] });

    let foundAt = -1;
    let doneAt = -1;
    for (let run = 0; run < 80 && doneAt < 0; run++) {
      await runner.pass();
      const s = await schedule(h, tenant.id, 'gateway');
      expect(s.last_error).toBeNull();
      const found = await tenantAlerts(orgId);
      if (foundAt < 0 && found.some((a) => a.source_id === down.id.toLowerCase())) foundAt = run;
      if (s.first_pass_done) doneAt = run;
      // No summary while the first pass goes on.
      else expect(found.filter((a) => a.notification_kind === 'TenantConnected')).toEqual([]);
      h.clock.advance(INTERVAL * 1000);
    }
    // The member was first reached in a later run, and the pass took several runs.
    expect(foundAt).toBeGreaterThan(0);
    expect(doneAt).toBeGreaterThanOrEqual(foundAt);
    const found = await tenantAlerts(orgId);
    expect(found.find((a) => a.source_id === down.id.toLowerCase())).toMatchObject({ notification_kind: 'GatewayMemberOffline', status: 'open', silence_reason: 'found at connection' });
    const connected = found.filter((a) => a.notification_kind === 'TenantConnected');
    expect(connected).toHaveLength(1);
    expect(connected[0]).toMatchObject({ source_id: tenant.id, status: 'open', silence_reason: null });
    expect(connected[0]!.message).toContain('encontrou 1 problema');

    // After the first pass a new outage pages as usual, and no second summary comes.
    const other = visible.find((g) => g !== last)!;
    sim.control.gatewayOffline({ gatewayId: other.id, offline: true });
    await runner.pass();
    const after = await tenantAlerts(orgId);
    expect(after.find((a) => a.source_id === other.id.toLowerCase() && a.notification_kind === 'GatewayOffline')).toMatchObject({ status: 'open', silence_reason: null });
    expect(after.filter((a) => a.notification_kind === 'TenantConnected')).toHaveLength(1);
    expect(sim.violations).toEqual([]);
  });

  it('any collector rotating with pickForRun: the first pass lasts until its rotation completed, then one summary', async () => {
    const sim = await h.sim({ seed: 364, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((n) => [n, n === 'jobs' ? { enabled: true, intervalSeconds: 60 } : { enabled: false }]));
    const tenant = await h.tenant(orgId, sim, { collectors }, { connecting: true });
    const runner = h.scheduler({ collectors: [slicedCollector] });
    const done: boolean[] = [];
    for (let run = 0; run < 5; run++) {
      await runner.pass();
      done.push((await schedule(h, tenant.id, 'jobs')).first_pass_done);
      h.clock.advance(60_000);
    }
    // Twelve pipelines, three a run: the rotation completes in the fourth run.
    expect(done).toEqual([false, false, false, true, true]);
    const found = await tenantAlerts(orgId);
    expect(found.map((a) => [a.notification_kind, a.silence_reason])).toEqual([
      ['PipelineFailed', 'found at connection'],
      ['TenantConnected', null],
    ]);
  });
});

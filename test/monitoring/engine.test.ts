/**
 * The collector engine against the tenant simulator: a killed run's lease expires and the next
 * instance finishes the work once (nothing lost, nothing doubled); two instances run each
 * collector once per interval; 429 storms are waited out and the hourly budgets are never
 * exceeded; a tenant that refuses tokens or its APIs opens its own Tenant incident and recovers,
 * leaving other tenants alone; garbage and huge answers fail the run with a clear error.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HOURLY_CAPS } from '../../src/monitoring/platform/budget.js';
import type { Collector } from '../../src/monitoring/engine/collector.js';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { inventoryCollector } from '../../src/monitoring/sources/inventory/inventory.js';
import { alerts, createHarness, expireLeases, schedule, type Harness } from './harness.js';

const activeAll = (sim: { state: { capacities: { id: string }[] }; control: { capacityState(a: { capacityId: string; state: 'Active' }): void } }) => {
  for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
};

describe('collector engine', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());
  // Tests share one database: each starts with the earlier tests' collectors switched off.
  beforeEach(() => h.quiet());

  it('a run killed after its commit: the lease expires, another instance runs it, the incident is not doubled', async () => {
    const sim = await h.sim({ seed: 21, sizes: { capacities: 2, workspaces: 2 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 60 } } });
    activeAll(sim);
    sim.control.capacityState({ capacityId: sim.state.capacities[0]!.id, state: 'Suspended' });
    // Instance A commits the run's signals and state, then dies before recording the run.
    let committed!: () => void;
    const didCommit = new Promise<void>((r) => {
      committed = r;
    });
    const dying: Collector = {
      name: 'capacity',
      async run(run) {
        await capacityCollector.run({ ...run, commit: async (s, c) => { await run.commit(s, c); committed(); } });
        await new Promise(() => {}); // never returns: the process is gone
      },
    };
    const a = h.scheduler({ collectors: [dying], leaseMs: 30_000, workerId: 'instance-a' });
    void a.pass();
    await didCommit;
    expect(await alerts(h, orgId, 'Capacity')).toHaveLength(1);
    const b = h.scheduler({ collectors: [capacityCollector], leaseMs: 30_000, workerId: 'instance-b' });
    expect(await b.pass()).toBe(0); // A's lease holds
    await expireLeases(h);
    expect(await b.pass()).toBe(1); // expired: B takes the row over
    const found = await alerts(h, orgId, 'Capacity');
    expect(found).toHaveLength(1);
    expect(found[0].failure_count).toBe(1);
    const row = await schedule(h, tenant.id, 'capacity');
    expect(row.locked_by).toBeNull();
    expect(row.last_error).toBeNull();
    expect(sim.violations).toEqual([]);
  });

  it('a run killed before its commit loses nothing: the next instance signals the transition', async () => {
    const sim = await h.sim({ seed: 22, sizes: { capacities: 2, workspaces: 2 } });
    const orgId = await h.org();
    await h.tenant(orgId, sim);
    activeAll(sim);
    sim.control.capacityState({ capacityId: sim.state.capacities[1]!.id, state: 'Suspended' });
    let reached!: () => void;
    const reachedCommit = new Promise<void>((r) => {
      reached = r;
    });
    const dying: Collector = {
      name: 'capacity',
      async run(run) {
        await capacityCollector.run({ ...run, commit: async () => { reached(); await new Promise(() => {}); } });
      },
    };
    void h.scheduler({ collectors: [dying], workerId: 'instance-c', leaseMs: 10_000 }).pass();
    await reachedCommit;
    expect(await alerts(h, orgId, 'Capacity')).toHaveLength(0);
    await expireLeases(h);
    expect(await h.scheduler({ collectors: [capacityCollector], workerId: 'instance-d' }).pass()).toBe(1);
    expect((await alerts(h, orgId, 'Capacity')).map((r) => [r.source_id, r.status, r.failure_count])).toEqual([
      [sim.state.capacities[1]!.id.toLowerCase(), 'open', 1],
    ]);
  });

  it('per-entity state is read on demand: a run finds its plain keys in state and the entity keys only through entities, in pages past one read', async () => {
    const sim = await h.sim({ seed: 26, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 10 } } });
    // More entity keys than one page of a state read (5,000), so the paging is crossed.
    const many = Array.from({ length: 12_003 }, (_, i) => `e:${String(i).padStart(5, '0')}`);
    const seen: Array<{ state: string[]; read: [string, unknown][]; keys: number; count: number; all: number; lastKey: string | undefined }> = [];
    const collector: Collector = {
      name: 'capacity',
      entityPrefixes: ['e:'],
      async run(run) {
        if (seen.length === 0 && run.state.size === 0) {
          await run.commit([], [{ key: 'plain', value: { n: 1 } }, ...many.map((key, i) => ({ key, value: { i } }))]);
          seen.push({ state: [], read: [], keys: 0, count: 0, all: 0, lastKey: undefined });
          return;
        }
        const all = await run.entities.all<{ i: number }>('e:');
        seen.push({
          state: [...run.state.keys()],
          read: [...(await run.entities.read(['e:00007', 'e:12002', 'e:missing', 'plain']))],
          keys: (await run.entities.keys('e:')).length,
          count: await run.entities.count('e:'),
          all: all.size,
          lastKey: [...all.keys()].at(-1),
        });
        await run.commit([], []);
      },
    };
    const runner = h.scheduler({ collectors: [collector] });
    await runner.pass();
    h.clock.advance(10_000);
    await runner.pass();
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toBeNull();
    expect(seen[1]).toEqual({
      state: ['plain'],
      // read() takes exact keys; a key outside the prefixes is found too (it is just a key).
      read: [['e:00007', { i: 7 }], ['e:12002', { i: 12_002 }], ['plain', { n: 1 }]],
      keys: 12_003,
      count: 12_003,
      all: 12_003,
      lastKey: 'e:12002',
    });
  });

  it('two instances run each collector once per interval (counted at the simulator)', async () => {
    const sim = await h.sim({ seed: 23, sizes: { capacities: 2, workspaces: 3 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 10 }, inventory: { intervalSeconds: 20 } } });
    const a = h.scheduler({ collectors: [capacityCollector, inventoryCollector], workerId: 'two-a' });
    const b = h.scheduler({ collectors: [capacityCollector, inventoryCollector], workerId: 'two-b' });
    for (let i = 0; i < 6; i++) {
      await Promise.all([a.pass(), b.pass(), a.pass(), b.pass()]);
      h.clock.advance(10_000);
    }
    // capacity: t = 0, 10, …, 50 → 6 runs; inventory: t = 0, 20, 40 → 3 runs. Each run reads
    // /v1/capacities once (capacities fit one page); only inventory reads /v1/admin/workspaces.
    expect(sim.countCalls({ path: '/v1/admin/workspaces' })).toBe(3);
    expect(sim.countCalls({ path: '/v1/capacities' })).toBe(6 + 3);
    expect(sim.countCalls({ path: '/v1.0/myorg/admin/capacities' })).toBe(6 + 3);
    const row = await schedule(h, tenant.id, 'capacity');
    // The last run was due at t = 50 s; the next is one interval after that slot (the clock's now).
    expect(new Date(row.next_run_at)).toEqual(h.clock.now());
    expect(sim.violations).toEqual([]);
  });

  it('a 429 storm is waited out (Retry-After) and counted as throttled calls', async () => {
    const sim = await h.sim({ seed: 24, sizes: { capacities: 2, workspaces: 2 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim);
    const runner = h.scheduler({ collectors: [capacityCollector] });
    sim.control.throttle({ family: 'fabric', count: 2, retryAfterSeconds: 1 });
    await runner.pass();
    const row = await schedule(h, tenant.id, 'capacity');
    expect(row.last_error).toBeNull();
    expect(row.last_throttled_calls).toBe(2);
    expect(sim.countCalls({ throttled: true })).toBe(2);
    expect(sim.countCalls({ path: '/v1/capacities', status: 200 })).toBe(1);
  });

  it('the hourly budget is shared and never exceeded; a tenant kept throttled opens TenantThrottled after two intervals', async () => {
    const sim = await h.sim({ seed: 25, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 5 } } });
    const caps = { ...HOURLY_CAPS, 'powerbi-admin': 2 };
    const a = h.scheduler({ collectors: [capacityCollector], caps, workerId: 'cap-a' });
    const b = h.scheduler({ collectors: [capacityCollector], caps, workerId: 'cap-b' });
    for (let i = 0; i < 6; i++) {
      await Promise.all([a.pass(), b.pass()]);
      h.clock.advance(5_000);
    }
    expect(sim.countCalls({ path: '/v1.0/myorg/admin/capacities' })).toBe(2);
    expect(sim.countCalls({ throttled: true })).toBe(0);
    const row = await schedule(h, tenant.id, 'capacity');
    expect(row.last_error).toMatch(/hourly budget of 2 powerbi-admin calls/);
    expect((await alerts(h, orgId, 'Tenant')).map((r) => [r.notification_kind, r.status])).toEqual([['TenantThrottled', 'open']]);
    // An hour later the budget is back: the run succeeds and the incident recovers by itself.
    h.clock.advance(3_600_000);
    await a.pass();
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toBeNull();
    expect((await alerts(h, orgId, 'Tenant')).map((r) => r.status)).toEqual(['resolved']);
  });

  it('a refused token opens that tenant\'s TenantAuthFailed at once, leaves another tenant alone, and recovers', async () => {
    const bad = await h.sim({ seed: 26, sizes: { capacities: 1, workspaces: 1 } });
    const good = await h.sim({ seed: 27, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const badTenant = await h.tenant(orgId, bad, { name: 'Bad tenant', collectors: { capacity: { intervalSeconds: 5 } } });
    const goodTenant = await h.tenant(orgId, good, { name: 'Good tenant', collectors: { capacity: { intervalSeconds: 5 } } });
    bad.control.refuseTokens({ on: true, kind: 'invalid_client' });
    const runner = h.scheduler({ collectors: [capacityCollector] });
    await runner.pass();
    expect((await schedule(h, badTenant.id, 'capacity')).last_error).toMatch(/token endpoint refused the credentials: the client secret has expired \(AADSTS7000222\)/);
    // At once: the endpoint's word on the credentials is evidence enough.
    expect((await alerts(h, orgId, 'Tenant')).map((r) => [r.notification_kind, r.status])).toEqual([['TenantAuthFailed', 'open']]);
    for (let i = 0; i < 3; i++) {
      h.clock.advance(5_000);
      await runner.pass();
    }
    const tenantAlerts = await alerts(h, orgId, 'Tenant');
    expect(tenantAlerts.map((r) => [r.source_id, r.notification_kind, r.status, r.failure_count])).toEqual([[badTenant.id, 'TenantAuthFailed', 'open', 1]]);
    expect((await schedule(h, goodTenant.id, 'capacity')).last_error).toBeNull();
    expect((await schedule(h, goodTenant.id, 'capacity')).problem_kind).toBeNull();

    bad.control.refuseTokens({ on: false });
    h.clock.advance(5_000);
    await runner.pass();
    expect((await alerts(h, orgId, 'Tenant')).map((r) => r.status)).toEqual(['resolved']);
    expect(h.ctx.logs.text).not.toContain(bad.clientSecret);
    expect(h.ctx.logs.text).not.toContain(good.clientSecret);
    expect(bad.violations).toEqual([]);
  });

  it('admin APIs forbidden (403) opens TenantAccessDenied', async () => {
    const sim = await h.sim({ seed: 28, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 5 } } });
    sim.control.adminApisForbidden({ on: true });
    const runner = h.scheduler({ collectors: [capacityCollector] });
    for (let i = 0; i < 4; i++) {
      await runner.pass();
      h.clock.advance(5_000);
    }
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toMatch(/GET \/v1\.0\/myorg\/admin\/capacities answered 40[13]/);
    expect((await alerts(h, orgId, 'Tenant')).map((r) => [r.notification_kind, r.status])).toEqual([['TenantAccessDenied', 'open']]);
  });

  it('a garbage or a 50 MB answer fails that run with a clear error; the next run works', async () => {
    const sim = await h.sim({ seed: 29, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 5 } } });
    const other = await h.sim({ seed: 30, sizes: { capacities: 1, workspaces: 1 } });
    const otherTenant = await h.tenant(orgId, other, { collectors: { capacity: { intervalSeconds: 5 } } });
    const runner = h.scheduler({ collectors: [capacityCollector] });

    sim.control.garbageResponse({ path: '/v1/capacities', on: true });
    await runner.pass();
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toBe('GET /v1/capacities answered 200 with a body that is not JSON');
    sim.control.garbageResponse({ path: '/v1/capacities', on: false });

    sim.control.hugeResponse({ target: '/v1/capacities', bytes: 50 * 1024 * 1024 });
    const before = process.memoryUsage();
    h.clock.advance(5_000);
    await runner.pass();
    const after = process.memoryUsage();
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toBe('the answer was larger than 8388608 bytes');
    // Read up to the limit and dropped: far from the answer's 50 MB.
    expect(after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers)).toBeLessThan(40 * 1024 * 1024);
    sim.control.hugeResponse({ target: '/v1/capacities', bytes: null });

    h.clock.advance(5_000);
    await runner.pass();
    expect((await schedule(h, tenant.id, 'capacity')).last_error).toBeNull();
    expect((await schedule(h, otherTenant.id, 'capacity')).last_error).toBeNull();
    expect(await alerts(h, orgId, 'Tenant')).toEqual([]);
  });

  it('one cached token per audience; with a short lifetime msal asks for a new one before it expires', async () => {
    const sim = await h.sim({ seed: 31, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    await h.tenant(orgId, sim, { collectors: { capacity: { intervalSeconds: 5 } } });
    const runner = h.scheduler({ collectors: [capacityCollector] });
    for (let i = 0; i < 3; i++) {
      await runner.pass();
      h.clock.advance(5_000);
    }
    // Fabric and Power BI audiences: one token each for three runs.
    expect(sim.countCalls({ family: 'token' })).toBe(2);

    const shortLived = await h.sim({ seed: 32, sizes: { capacities: 1, workspaces: 1 }, tokenLifetimeSeconds: 120 });
    await h.tenant(orgId, shortLived, { collectors: { capacity: { intervalSeconds: 5 } } });
    for (let i = 0; i < 3; i++) {
      await runner.pass();
      h.clock.advance(5_000);
    }
    // 120 s is inside msal's renewal margin: a fresh token for each audience on each run.
    expect(shortLived.countCalls({ family: 'token' })).toBe(6);
  });

  it('start() claims due collectors by itself; stop() ends it', async () => {
    const sim = await h.sim({ seed: 33, sizes: { capacities: 1, workspaces: 1 } });
    const orgId = await h.org();
    const tenant = await h.tenant(orgId, sim);
    const runner = h.scheduler({ collectors: [capacityCollector], pollMs: 50 }).start();
    const deadline = Date.now() + 20_000;
    let row = await schedule(h, tenant.id, 'capacity');
    while (!row.last_run_at && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      row = await schedule(h, tenant.id, 'capacity');
    }
    expect(row.last_run_at).not.toBeNull();
    expect(row.last_error).toBeNull();
    await runner.stop();
    expect(await runner.pass()).toBe(0); // stopped: claims nothing more
  });
});

/**
 * The monitoring tests' setup: a tenant simulator (strict: every request checked against the
 * vendors' contracts), a test context whose allowlist lets the guarded client reach it on
 * loopback, an organization and a tenant connection pointing all four origins at it, and
 * schedulers that run on a ManualClock (a run is due when the test moves the clock).
 */
import { ManualClock } from '../../src/clock.js';
import { CollectorScheduler, type SchedulerOptions } from '../../src/monitoring/scheduler.js';
import { createTenant, type TenantView } from '../../src/monitoring/tenants.js';
import type { TenantInput } from '../../src/monitoring/connection/tenant-input.js';
import type { TenantSim, TenantSimOptions } from '../../src/tenant-sim/index.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { insertOrg } from './support.js';

export interface Harness {
  ctx: TestContext;
  clock: ManualClock;
  schedulers: CollectorScheduler[];
  sims: TenantSim[];
  sim(opts?: Partial<TenantSimOptions>): Promise<TenantSim>;
  org(name?: string): Promise<string>;
  /**
   * A tenant connection whose collectors have done their first pass (their findings page as
   * usual), unless `connecting`: then it is a new connection, whose first passes open what
   * they find silenced "found at connection" (src/monitoring/engine/first-pass.ts).
   */
  tenant(orgId: string, sim: TenantSim, over?: Partial<TenantInput>, opts?: { connecting?: boolean }): Promise<TenantView>;
  scheduler(opts?: SchedulerOptions): CollectorScheduler;
  /** Switches off every collector created so far. */
  quiet(): Promise<void>;
  close(): Promise<void>;
}

export async function createHarness(): Promise<Harness> {
  const clock = new ManualClock('2026-06-15T12:00:00Z');
  const ctx = await createTestContext({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
  const h: Harness = {
    ctx,
    clock,
    schedulers: [],
    sims: [],
    async sim(opts = {}) {
      const s = await startSim(opts);
      h.sims.push(s);
      return s;
    },
    org: (name) => insertOrg(ctx, name),
    async tenant(orgId, sim, over = {}, opts = {}) {
      const t = await createTenant(ctx, orgId, {
        name: 'Contoso BI',
        tenantId: sim.tenantId,
        clientId: sim.clientId,
        credentials: { clientSecret: sim.clientSecret },
        mode: 'admin',
        endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
        ...over,
      });
      if (!opts.connecting) await ctx.db.query('UPDATE collector_schedules SET first_pass_done = true WHERE tenant_ref = $1', [t.id]);
      return t;
    },
    scheduler(opts = {}) {
      const s = new CollectorScheduler(ctx, { pollMs: 60_000, stopTimeoutMs: 2_000, ...opts });
      h.schedulers.push(s);
      return s;
    },
    async quiet() {
      await ctx.db.query('UPDATE collector_schedules SET enabled = false');
    },
    async close() {
      await Promise.all(h.schedulers.map((s) => s.stop()));
      await Promise.all(h.sims.map((s) => s.stop()));
      await ctx.close();
    },
  };
  return h;
}

export async function schedule(h: Harness, tenantRef: string, collector: string) {
  const { rows } = await h.ctx.db.query('SELECT * FROM collector_schedules WHERE tenant_ref = $1 AND collector = $2', [tenantRef, collector]);
  return rows[0];
}

export async function alerts(h: Harness, orgId: string, sourceType?: string) {
  const { rows } = await h.ctx.db.query(
    `SELECT source_type, source_id, source_name, notification_kind, severity, status, failure_count, capacity_name, message
       FROM alerts WHERE org_id = $1 ${sourceType ? 'AND source_type = $2' : ''} ORDER BY created_at, id`,
    sourceType ? [orgId, sourceType] : [orgId],
  );
  return rows;
}

/**
 * The database's clock passing every lease held now. Leases are kept on the database's clock
 * (the engine's injected clock only decides what is due), which a test cannot move.
 */
export async function expireLeases(h: Harness): Promise<void> {
  await h.ctx.db.query("UPDATE collector_schedules SET locked_until = now() - interval '1 millisecond' WHERE locked_until IS NOT NULL");
}

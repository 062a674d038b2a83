/**
 * The collector engine: one schedule row per (tenant, collector), leased by one instance at a
 * time with FOR UPDATE SKIP LOCKED and a `locked_until` on the database's clock that the runner
 * renews while it works (lease.ts), so several instances share the work and a killed instance's
 * lease simply expires. A run reads the collector's remembered state, calls the platform through
 * the PlatformClient, and commits its signals, state and lineage together, fenced by its lease;
 * a renewal that fails aborts the run (no more calls, no commit). The schedule row then records
 * the run (duration, calls, throttled calls, error) and the self-watch problem, and moves to the
 * next interval.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { ApiFamily } from './platform/budget.js';
import type { Collector } from './engine/collector.js';
import { cleanProgress, type RunProgress } from './engine/collector-behind.js';
import { DEFAULT_COLLECTORS } from './registry.js';
import { claimDue, LeaseLostError, releaseLease, renewLease, type ClaimedRow, type Lease } from './engine/lease.js';
import { commitRun, EntityState, readState, RunAccess } from './engine/output.js';
import { recordRun } from './engine/run-record.js';
import { runSleeper, runTokens, runTransport, StoppingError } from './engine/run-guards.js';
import { TokenCache } from './engine/token-cache.js';
import { PlatformClient, type RunStats } from './platform/platform-client.js';
import { TENANT_COLUMNS, endpointsOf, type TenantRow } from './connection/tenant-row.js';
import { createTransport, type Transport, type TransportOptions } from './platform/transport.js';

export interface SchedulerOptions {
  workerId?: string;
  /** How often due rows are looked for. */
  pollMs?: number;
  /** Lease of a claimed row; renewed every third of it while the run goes on. */
  leaseMs?: number;
  maxConcurrent?: number;
  /** No wait (429, long-running operation) starts after this much of a run. */
  runTimeLimitMs?: number;
  transport?: Partial<TransportOptions>;
  collectors?: Collector[];
  caps?: Record<ApiFamily, number>;
  /** How long stop() waits for runs to end before it gives up on them (their leases then expire). */
  stopTimeoutMs?: number;
}

/** A run in progress: its lease and the switch that stops it when the lease is lost. */
interface ActiveRun {
  lease: Lease;
  abort: AbortController;
}

export class CollectorScheduler {
  readonly workerId: string;
  private readonly opts: Required<Omit<SchedulerOptions, 'workerId' | 'transport' | 'caps'>> & Pick<SchedulerOptions, 'caps'>;
  private readonly collectors: Map<string, Collector>;
  private readonly transport: Transport;
  private readonly tokens: TokenCache;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly active = new Set<ActiveRun>();
  private readonly stopSignal = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private ticking = false;

  constructor(
    private readonly ctx: AppContext,
    opts: SchedulerOptions = {},
  ) {
    this.workerId = opts.workerId ?? `mon-${randomUUID()}`;
    this.opts = {
      pollMs: opts.pollMs ?? 1_000,
      leaseMs: opts.leaseMs ?? 30_000,
      maxConcurrent: opts.maxConcurrent ?? 4,
      runTimeLimitMs: opts.runTimeLimitMs ?? 5 * 60_000,
      collectors: opts.collectors ?? DEFAULT_COLLECTORS,
      stopTimeoutMs: opts.stopTimeoutMs ?? 15_000,
      caps: opts.caps,
    };
    this.collectors = new Map(this.opts.collectors.map((c) => [c.name, c]));
    this.transport = createTransport(ctx, opts.transport);
    this.tokens = new TokenCache(ctx, this.transport, opts.caps);
    // Every lease this instance holds is renewed every third of the lease.
    this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(1_000, Math.floor(this.opts.leaseMs / 3)));
    this.renewTimer.unref?.();
  }

  /** Claims what is due (up to the free slots), runs it, and resolves when those runs ended. */
  async pass(): Promise<number> {
    await this.sweepTokens();
    const rows = await this.claim();
    await Promise.all(rows.map((row) => this.track(this.runClaimed(row))));
    return rows.length;
  }

  /** Leases due rows, as many as this instance has free slots. */
  private async claim(): Promise<ClaimedRow[]> {
    const free = this.opts.maxConcurrent - this.inFlight.size;
    if (free <= 0 || this.stopSignal.signal.aborted) return [];
    return claimDue(this.ctx.db, this.workerId, [...this.collectors.keys()], this.ctx.clock.now(), this.opts.leaseMs, free);
  }

  /**
   * Renews the lease of every run in progress. A renewal that fails or finds the row no longer
   * this instance's aborts that run: it makes no more calls and commits nothing.
   */
  async renewLeases(): Promise<void> {
    await Promise.all(
      [...this.active].map(async (run) => {
        if (run.abort.signal.aborted) return;
        try {
          await renewLease(this.ctx.db, run.lease, this.opts.leaseMs);
        } catch (err) {
          const lost = err instanceof LeaseLostError ? err : new LeaseLostError(run.lease, `the renewal failed: ${(err as Error).message}`);
          this.ctx.log.warn({ tenant: run.lease.tenantRef, collector: run.lease.collector, err: lost.message }, 'collector run aborted');
          run.abort.abort(lost);
        }
      }),
    );
  }

  /**
   * Drops cached token clients (each holds a tenant's decrypted credentials) whose connection
   * was deleted or changed, or that were not used for an hour. Checked at most once a minute.
   */
  sweepTokens(force = false): Promise<void> {
    return this.tokens.sweep(force);
  }

  /** Whether a token client (and so decrypted credentials) of this tenant connection is in memory. */
  holdsTokensOf(tenantRef: string): boolean {
    return this.tokens.has(tenantRef);
  }

  /** Forgets a tenant connection's token client at once (it was deleted or its credentials changed). */
  forgetTokens(tenantRef: string): void {
    this.tokens.forget(tenantRef);
  }

  start(): this {
    const tick = async () => {
      if (this.ticking || this.stopSignal.signal.aborted) return;
      this.ticking = true;
      try {
        await this.sweepTokens();
        // Claim without waiting for the runs, so a long run does not hold the others back.
        for (const row of await this.claim()) void this.track(this.runClaimed(row));
      } catch (err) {
        this.ctx.log.warn({ err: (err as Error).message }, 'collector scheduler: claim failed; retrying');
      } finally {
        this.ticking = false;
      }
    };
    this.timer = setInterval(() => void tick(), this.opts.pollMs);
    this.timer.unref?.();
    void tick();
    return this;
  }

  /** Stops claiming, interrupts waits, lets running calls end and gives unfinished leases back. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.renewTimer);
    this.stopSignal.abort();
    const deadline = Date.now() + this.opts.stopTimeoutMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => (timer = setTimeout(r, Math.max(0, deadline - Date.now()))))]);
      clearTimeout(timer);
    }
    if (this.inFlight.size > 0) this.ctx.log.warn({ runs: this.inFlight.size }, 'collector scheduler stopped with runs still going; their leases will expire');
    await this.transport.destroy();
    this.tokens.clear();
  }

  private track(p: Promise<void>): Promise<void> {
    const tracked = p.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    return tracked;
  }

  /** The platform client of one run: its calls and waits stop when the run loses its lease or the instance stops. */
  private clientFor(tenant: TenantRow, signal: AbortSignal, stats: RunStats, startedMs: number): PlatformClient {
    return new PlatformClient({
      db: this.ctx.db,
      now: () => this.ctx.clock.now(),
      transport: runTransport(this.transport, signal),
      tokens: runTokens(this.tokens.for(tenant), signal),
      directoryId: tenant.tenant_id,
      endpoints: endpointsOf(tenant),
      stats,
      deadline: startedMs + this.opts.runTimeLimitMs,
      caps: this.opts.caps,
      capSharePercent: tenant.cap_share_percent,
      sleep: runSleeper(this.stopSignal.signal, signal),
    });
  }

  /** Runs the claimed collector against the tenant; it commits once through the run's lease. A failure throws. */
  private async runCollector(
    row: ClaimedRow,
    tenant: TenantRow,
    lease: Lease,
    signal: AbortSignal,
    stats: RunStats,
    startedMs: number,
    onProgress: (p: RunProgress) => void,
  ): Promise<void> {
    const collector = this.collectors.get(row.collector)!;
    // A refused sign-in stays open until the endpoint itself gives a token again: a cached one proves nothing.
    if (row.problem_kind === 'TenantAuthFailed') this.tokens.for(tenant).renewNext();
    const client = this.clientFor(tenant, signal, stats, startedMs);
    const state = await readState<unknown>(this.ctx.db, tenant.id, collector.name, collector.entityPrefixes);
    const access = new RunAccess(this.ctx.db);
    let firstPassGoesOn = false;
    const orgId = tenant.org_id;
    await collector.run({
      ctx: { clock: this.ctx.clock, log: this.ctx.log },
      tenant,
      client,
      intervalSeconds: row.interval_seconds,
      state,
      entities: new EntityState(this.ctx.db, tenant.id, collector.name),
      reader: access.reader,
      write: access.write,
      signal,
      reportProgress: (p) => onProgress(cleanProgress(p)),
      commit: async (signals, changes, lineage) => {
        signal.throwIfAborted();
        await commitRun(this.ctx, orgId, lease, { signals, changes, lineage, firstPassGoesOn, writes: access.commit() });
      },
      firstPassGoesOn: () => {
        firstPassGoesOn = true;
      },
    });
    // A run that succeeded with nothing to commit (no source configured) ends its first pass too; staged writes are committed.
    if (!access.committed && (!row.first_pass_done || access.staged)) {
      signal.throwIfAborted();
      await commitRun(this.ctx, orgId, lease, { signals: [], changes: [], writes: access.commit() });
    }
  }

  private async runClaimed(row: ClaimedRow): Promise<void> {
    const startedAt = this.ctx.clock.now();
    const startedMs = Date.now();
    const stats: RunStats = { calls: 0, throttledCalls: 0 };
    const lease: Lease = { tenantRef: row.tenant_ref, collector: row.collector, holder: row.locked_by };
    const active: ActiveRun = { lease, abort: new AbortController() };
    const signal = active.abort.signal;
    this.active.add(active);
    let error: unknown = null;
    let tenant: TenantRow | null = null;
    let progress: RunProgress | null = null;
    try {
      const { rows } = await this.ctx.db.query<TenantRow>(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE id = $1`, [row.tenant_ref]);
      tenant = rows[0] ?? null;
      if (!tenant) {
        this.forgetTokens(row.tenant_ref);
        return;
      }
      await this.runCollector(row, tenant, lease, signal, stats, startedMs, (p) => (progress = p));
    } catch (err) {
      error = err;
    } finally {
      this.active.delete(active);
    }
    if (error instanceof StoppingError || error instanceof LeaseLostError || (error && (this.stopSignal.signal.aborted || signal.aborted))) {
      // Interrupted by shutdown, or fenced out: nothing was written. The row goes back untouched
      // if this instance still has it (another instance runs it); if another has it, nothing changes.
      if (error instanceof LeaseLostError || signal.aborted) this.ctx.log.warn({ tenant: row.tenant_ref, collector: row.collector, err: (error as Error).message }, 'collector run lost its lease');
      await releaseLease(this.ctx.db, lease).catch(() => {});
      return;
    }
    if (!tenant) return;
    if (error) {
      this.ctx.log.warn({ tenant: tenant.id, collector: row.collector, err: (error as Error).message }, 'collector run failed');
    }
    try {
      await recordRun(this.ctx, { row, tenant, startedAt, durationMs: Date.now() - startedMs, stats, error, progress });
    } catch (err) {
      this.ctx.log.error({ tenant: tenant.id, collector: row.collector, err: (err as Error).message }, 'collector run could not be recorded');
    }
  }
}

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
import { txWithRetry } from '../db/retry.js';
import type { SignalInput } from '../alerts/signals.js';
import type { ApiFamily } from './platform/budget.js';
import { takeCall } from './platform/budget.js';
import type { Collector } from './engine/collector.js';
import { behindStep, cleanProgress, collectorBehindSignal, type RunProgress } from './engine/collector-behind.js';
import { collectorBehindDetail, collectorCaughtUp } from './messages/titles.js';
import { DEFAULT_COLLECTORS } from './registry.js';
import { claimDue, LeaseLostError, releaseLease, renewLease, type ClaimedRow, type Lease } from './engine/lease.js';
import { commitRun, applySignalsIn, EntityState, readState, RunAccess } from './engine/output.js';
import { PlatformClient, type RunStats } from './platform/platform-client.js';
import { opensAtOnce, problemDetail, problemOf, tenantSignal } from './engine/self-watch.js';
import { TENANT_COLUMNS, endpointsOf, openCredentials, type TenantRow } from './connection/tenant-row.js';
import { TenantTokens } from './platform/tokens.js';
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

class StoppingError extends Error {}

/** A cached token client: the tenant's decrypted credentials live in it, so it is dropped when not needed. */
interface CachedTokens {
  version: number;
  tokens: TenantTokens;
  lastUsedMs: number;
}

/** A token client not used for this long is dropped (the tenant was removed, disabled, or moved to another instance). */
const TOKENS_IDLE_MS = 60 * 60_000;
/** How often the cache is checked against the tenants table (deleted or changed connections). */
const TOKENS_SWEEP_MS = 60_000;

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
  private readonly tokens = new Map<string, CachedTokens>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly active = new Set<ActiveRun>();
  private readonly stopSignal = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private ticking = false;
  private lastSweepMs = 0;

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
  async sweepTokens(force = false): Promise<void> {
    const nowMs = this.ctx.clock.now().getTime();
    if (this.tokens.size === 0 || (!force && nowMs - this.lastSweepMs < TOKENS_SWEEP_MS)) return;
    this.lastSweepMs = nowMs;
    const { rows } = await this.ctx.db.query<{ id: string; version: number }>('SELECT id, version FROM tenants WHERE id = ANY($1::text[])', [[...this.tokens.keys()]]);
    const current = new Map(rows.map((r) => [r.id, Number(r.version)]));
    for (const [id, cached] of this.tokens) {
      if (current.get(id) !== cached.version || nowMs - cached.lastUsedMs > TOKENS_IDLE_MS) this.tokens.delete(id);
    }
  }

  /** Whether a token client (and so decrypted credentials) of this tenant connection is in memory. */
  holdsTokensOf(tenantRef: string): boolean {
    return this.tokens.has(tenantRef);
  }

  /** Forgets a tenant connection's token client at once (it was deleted or its credentials changed). */
  forgetTokens(tenantRef: string): void {
    this.tokens.delete(tenantRef);
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

  private tokensFor(tenant: TenantRow): TenantTokens {
    const version = Number(tenant.version); // counted by the database, not a clock (migration 391)
    const lastUsedMs = this.ctx.clock.now().getTime();
    const cached = this.tokens.get(tenant.id);
    if (cached && cached.version === version) {
      cached.lastUsedMs = lastUsedMs;
      return cached.tokens;
    }
    const endpoints = endpointsOf(tenant);
    const tokens = new TenantTokens(
      { tenantId: tenant.tenant_id, clientId: tenant.client_id, authorityHost: endpoints.authorityHost, credentials: openCredentials(this.ctx, tenant) },
      this.transport,
      () => takeCall(this.ctx.db, tenant.tenant_id, 'token', this.ctx.clock.now(), this.opts.caps),
      () => this.ctx.clock.now().getTime(),
    );
    this.tokens.set(tenant.id, { version, tokens, lastUsedMs });
    return tokens;
  }

  /** A wait that ends early, failing, when the instance stops or the run loses its lease. */
  private sleeper(run: AbortSignal) {
    return (ms: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const stop = this.stopSignal.signal;
        const failure = () => (run.aborted ? (run.reason as Error) : new StoppingError('stopping'));
        if (stop.aborted || run.aborted) return reject(failure());
        const t = setTimeout(() => {
          stop.removeEventListener('abort', onAbort);
          run.removeEventListener('abort', onAbort);
          resolve();
        }, ms);
        const onAbort = () => {
          clearTimeout(t);
          stop.removeEventListener('abort', onAbort);
          run.removeEventListener('abort', onAbort);
          reject(failure());
        };
        stop.addEventListener('abort', onAbort, { once: true });
        run.addEventListener('abort', onAbort, { once: true });
      });
  }

  /** The token client as one run sees it: once the run lost its lease, no token is asked for. */
  private tokensOfRun(tenant: TenantRow, run: AbortSignal): Pick<TenantTokens, 'get'> {
    const tokens = this.tokensFor(tenant);
    return {
      get: async (audience) => {
        run.throwIfAborted();
        return tokens.get(audience);
      },
    };
  }

  /** The transport as one run sees it: once the run lost its lease, no call leaves. */
  private transportFor(run: AbortSignal): Transport {
    const base = this.transport;
    const guarded = (req: Parameters<Transport>[0]) => {
      if (run.aborted) return Promise.reject(run.reason as Error);
      return base(req);
    };
    return Object.assign(guarded, { options: base.options, close: () => base.close(), destroy: () => base.destroy() });
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
      const collector = this.collectors.get(row.collector)!;
      const tokens = this.tokensFor(tenant);
      // A refused sign-in stays open until the endpoint itself gives a token again: a cached one proves nothing.
      if (row.problem_kind === 'TenantAuthFailed') tokens.renewNext();
      const client = new PlatformClient({
        db: this.ctx.db,
        now: () => this.ctx.clock.now(),
        transport: this.transportFor(signal),
        tokens: this.tokensOfRun(tenant, signal),
        directoryId: tenant.tenant_id,
        endpoints: endpointsOf(tenant),
        stats,
        deadline: startedMs + this.opts.runTimeLimitMs,
        caps: this.opts.caps,
        capSharePercent: tenant.cap_share_percent,
        sleep: this.sleeper(signal),
      });
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
        reportProgress: (p) => {
          progress = cleanProgress(p);
        },
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
      await this.finish(row, tenant, startedAt, Date.now() - startedMs, stats, error, progress);
    } catch (err) {
      this.ctx.log.error({ tenant: tenant.id, collector: row.collector, err: (err as Error).message }, 'collector run could not be recorded');
    }
  }

  /** Records the run on its schedule row and signals the self-watch transitions, in one transaction. */
  private async finish(row: ClaimedRow, tenant: TenantRow, startedAt: Date, durationMs: number, stats: RunStats, error: unknown, progress: RunProgress | null): Promise<void> {
    const end = this.ctx.clock.now();
    const problem = error ? problemOf(error) : null;
    const same = problem !== null && row.problem_kind === problem;
    const since = problem ? (same ? row.problem_since! : startedAt) : null;
    let reported = same ? row.problem_reported : false;
    const message = error ? errorText(error) : null;
    const runSignals: SignalInput[] = [];
    if (problem && !reported && (opensAtOnce(problem) || end.getTime() - new Date(since!).getTime() > 2 * row.interval_seconds * 1000)) {
      runSignals.push(tenantSignal('failure', problem, tenant, problemDetail(error, `${row.collector}: ${message}`), end));
      reported = true;
    }
    const intervalSeconds = Math.max(row.interval_seconds, progress?.effectiveIntervalSeconds ?? 0); // the one its budget honours (collector-behind.ts)
    const behindBefore = { since: row.behind_since, runs: row.behind_runs, reported: row.behind_reported };
    const behind = behindStep(behindBefore, progress, error !== null, startedAt, end, intervalSeconds);
    if (behind.raise) {
      const detail = collectorBehindDetail(row.collector, progress!.deferred, progress!.polled, behind.next.runs, new Date(behind.next.since!).toISOString());
      runSignals.push(collectorBehindSignal('failure', row.collector, tenant, detail, end));
    }
    const intervalMs = intervalSeconds * 1000;
    // Once per interval from the slot it was due at; after a pause, from this run (missed runs are not caught up).
    let nextMs = new Date(row.next_run_at).getTime() + intervalMs;
    if (nextMs < startedAt.getTime()) nextMs = startedAt.getTime() + intervalMs;
    const next = new Date(nextMs);
    await txWithRetry(this.ctx.db, async (q) => {
      const { rows } = await q.query(
        `UPDATE collector_schedules SET locked_until = NULL, locked_by = NULL, last_run_at = $4,
           last_success_at = CASE WHEN $5::boolean THEN $6 ELSE last_success_at END,
           last_duration_ms = $7, last_calls = $8, last_throttled_calls = $9, last_error = $10,
           next_run_at = CASE WHEN next_run_at <> $11 THEN next_run_at ELSE $12 END,
           problem_kind = $13, problem_since = $14, problem_reported = $15,
           last_polled = CASE WHEN $16::boolean THEN $17 ELSE last_polled END,
           last_deferred = CASE WHEN $16::boolean THEN $18 ELSE last_deferred END,
           behind_since = $19, behind_runs = $20, behind_reported = $21, last_rejected = $22, last_rejected_note = $23
         WHERE tenant_ref = $1 AND collector = $2 AND locked_by = $3 AND locked_until > clock_timestamp() RETURNING tenant_ref`,
        [
          row.tenant_ref, row.collector, row.locked_by, startedAt, !error, end, durationMs, stats.calls, stats.throttledCalls,
          message, row.next_run_at, next, problem, since, reported,
          progress !== null, progress?.polled ?? null, progress?.deferred ?? null, behind.next.since, behind.next.runs, behind.next.reported, progress?.rejected ?? null, progress?.rejectedNote ?? null,
        ],
      );
      if (rows.length === 0) return; // the lease was lost (or the tenant deleted): the row is not this run's to record
      const signals = [...runSignals]; // afresh on each attempt: a rolled-back attempt's recoveries would apply twice
      if (row.problem_kind && row.problem_reported && row.problem_kind !== problem) {
        const others = await q.query('SELECT 1 FROM collector_schedules WHERE tenant_ref = $1 AND problem_kind = $2 AND problem_reported AND enabled LIMIT 1', [
          row.tenant_ref,
          row.problem_kind,
        ]);
        if (others.rows.length === 0) signals.push(tenantSignal('recovery', row.problem_kind, tenant, `${row.collector} works again`, end));
      }
      if (behind.caughtUp) {
        const others = await q.query('SELECT 1 FROM collector_schedules WHERE tenant_ref = $1 AND behind_reported AND enabled LIMIT 1', [row.tenant_ref]);
        if (others.rows.length === 0) signals.push(collectorBehindSignal('recovery', row.collector, tenant, collectorCaughtUp(row.collector), end));
      }
      await applySignalsIn(q, this.ctx, tenant.org_id, signals, end);
    });
  }
}

/** The text kept as `lastError` and in Tenant incidents: our own messages, never a credential. */
function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.slice(0, 1000);
}

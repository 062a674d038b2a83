import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/**
 * Fixed-window counters (one window per minute) behind one small interface, kept in process by
 * default and in Redis when REDIS_URL is set so that several instances share one budget.
 * Fixed windows are cheap (one INCR) and exact within a window; a client may burst up to twice
 * the limit across a window boundary, which is acceptable for a read-only API.
 */
export interface CounterStore {
  /** Adds one to `name` in the window `windowIndex` and returns the new count. */
  increment(name: string, windowIndex: number, ttlMs: number): Promise<number>;
  /** The count of `name` in the window, without changing it. */
  get(name: string, windowIndex: number): Promise<number>;
  close(): Promise<void>;
}

export class MemoryCounterStore implements CounterStore {
  private counts = new Map<string, { window: number; count: number }>();
  private lastSweep = -1;

  async increment(name: string, windowIndex: number): Promise<number> {
    this.sweep(windowIndex);
    const cur = this.counts.get(name);
    if (!cur || cur.window !== windowIndex) {
      this.counts.set(name, { window: windowIndex, count: 1 });
      return 1;
    }
    cur.count += 1;
    return cur.count;
  }

  async get(name: string, windowIndex: number): Promise<number> {
    const cur = this.counts.get(name);
    return cur && cur.window === windowIndex ? cur.count : 0;
  }

  /** Drops counters of past windows once per window so memory stays bounded. */
  private sweep(windowIndex: number): void {
    if (windowIndex === this.lastSweep) return;
    this.lastSweep = windowIndex;
    for (const [k, v] of this.counts) if (v.window < windowIndex) this.counts.delete(k);
  }

  async close(): Promise<void> {
    this.counts.clear();
  }
}

// INCR and set the expiry on first use in one round trip, atomically.
const INCR_SCRIPT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return c`;

export class RedisCounterStore implements CounterStore {
  private readonly redis: Redis;
  /** Set while Redis is known to be unreachable: calls fail at once instead of waiting. */
  private down = false;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly log?: Logger,
  ) {
    // Bounded waits: a request must never hang on Redis (the limiter then fails open).
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 500, connectTimeout: 2000 });
    this.redis.on('error', (err: Error) => {
      if (!this.down) this.log?.warn({ err: err.message }, 'rate-limit redis error');
      this.down = true;
    });
    this.redis.on('ready', () => {
      this.down = false;
    });
  }

  private key(name: string, windowIndex: number): string {
    return `${this.prefix}:${name}:${windowIndex}`;
  }

  private check(): void {
    if (this.down && this.redis.status !== 'ready') throw new Error('redis unavailable');
  }

  async increment(name: string, windowIndex: number, ttlMs: number): Promise<number> {
    this.check();
    const n = await this.redis.eval(INCR_SCRIPT, 1, this.key(name, windowIndex), String(ttlMs));
    return Number(n);
  }

  async get(name: string, windowIndex: number): Promise<number> {
    this.check();
    const v = await this.redis.get(this.key(name, windowIndex));
    return v === null ? 0 : Number(v);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export interface LimitDecision {
  limit: number;
  remaining: number;
  /** Seconds until the current window ends (≥ 1). */
  resetSeconds: number;
  exceeded: boolean;
}

export interface RateLimiterOptions {
  perKeyPerMinute: number;
  invalidKeyPerAddressPerMinute: number;
}

const WINDOW_MS = 60_000;

interface Window {
  index: number;
  /** Seconds until the window ends (≥ 1). */
  resetSeconds: number;
  ttlMs: number;
}

function windowAt(nowMs: number): Window {
  const index = Math.floor(nowMs / WINDOW_MS);
  const endMs = (index + 1) * WINDOW_MS;
  return { index, resetSeconds: Math.max(1, Math.ceil((endMs - nowMs) / 1000)), ttlMs: endMs - nowMs + 5_000 };
}

function storeDown(log: Logger | undefined, err: unknown): number {
  log?.warn({ err: (err as Error).message }, 'rate-limit store unavailable; not limiting');
  return 0;
}

/**
 * Failed authentications per client address per minute (invalid API keys, wrong admin tokens):
 * "more than N per minute gets 429" — attempts 1..N are answered 401, the rest of the minute 429.
 * `name` keeps the counters of different credentials apart in one store.
 */
export class FailedAttemptLimiter {
  constructor(
    private readonly store: CounterStore,
    private readonly name: string,
    readonly perMinute: number,
    private readonly log?: Logger,
  ) {}

  /**
   * Whether the address already used up its attempts this minute: a cheap read that spares the
   * credential check; the exact decision is record's.
   */
  async blocked(address: string, nowMs: number): Promise<{ blocked: boolean; retryAfter: number }> {
    const w = windowAt(nowMs);
    const count = await this.store.get(`${this.name}:${address}`, w.index).catch((err) => storeDown(this.log, err));
    return { blocked: count >= this.perMinute, retryAfter: w.resetSeconds };
  }

  /**
   * Counts one failed attempt of the address and says whether it is over the limit.
   * Increment first, then compare: the store's increment is atomic (one Lua script on Redis,
   * synchronous in process), so with any number of attempts in flight exactly N are allowed.
   */
  async record(address: string, nowMs: number): Promise<{ blocked: boolean; retryAfter: number }> {
    const w = windowAt(nowMs);
    const count = await this.store.increment(`${this.name}:${address}`, w.index, w.ttlMs).catch((err) => storeDown(this.log, err));
    return { blocked: count > this.perMinute, retryAfter: w.resetSeconds };
  }
}

/**
 * The two public-API limits: requests per key, and invalid-key attempts per address.
 * A store failure (Redis down) fails open with a warning: availability of a read-only API is
 * worth more than exact limits, and keys are far too long to guess in the meantime.
 */
export class PublicApiRateLimiter {
  private readonly invalidKeys: FailedAttemptLimiter;

  constructor(
    private readonly store: CounterStore,
    readonly options: RateLimiterOptions,
    private readonly log?: Logger,
  ) {
    this.invalidKeys = new FailedAttemptLimiter(store, 'a', options.invalidKeyPerAddressPerMinute, log);
  }

  /** Counts one request of the key and says whether it is over the limit. */
  async hitKey(keyId: string, nowMs: number): Promise<LimitDecision> {
    const w = windowAt(nowMs);
    const limit = this.options.perKeyPerMinute;
    const count = await this.store.increment(`k:${keyId}`, w.index, w.ttlMs).catch((err) => storeDown(this.log, err));
    return { limit, remaining: Math.max(0, limit - count), resetSeconds: w.resetSeconds, exceeded: count > limit };
  }

  /** Whether the address already used up its invalid-key attempts this minute. */
  addressBlocked(address: string, nowMs: number): Promise<{ blocked: boolean; retryAfter: number }> {
    return this.invalidKeys.blocked(address, nowMs);
  }

  /** Counts one invalid-key attempt of the address and says whether it is over the limit. */
  recordInvalid(address: string, nowMs: number): Promise<{ blocked: boolean; retryAfter: number }> {
    return this.invalidKeys.record(address, nowMs);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/**
 * Remembers which deliveries a receiver has already processed, by Idempotency-Key (equal to the
 * delivery id, stable across retries and redeliveries).
 *
 * Bounded in both directions: an entry lives `ttlSeconds` (default 7 days, longer than the whole
 * retry schedule) and at most `maxEntries` keys are kept (the oldest go first). It lives in
 * memory, so it covers one process; a receiver with several instances keeps the keys in its own
 * shared store (a unique index on the key is enough) and can use this class as a front cache.
 */
export interface IdempotencyDeduplicatorOptions {
  ttlSeconds?: number;
  maxEntries?: number;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

export class IdempotencyDeduplicator {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  /** key → expiry (ms). A Map iterates in insertion order, so the first entry is the oldest. */
  readonly #seen = new Map<string, number>();

  constructor(opts: IdempotencyDeduplicatorOptions = {}) {
    const ttlSeconds = opts.ttlSeconds ?? 7 * 24 * 3600;
    const maxEntries = opts.maxEntries ?? 100_000;
    if (!(ttlSeconds > 0)) throw new RangeError('ttlSeconds must be positive');
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
    this.#ttlMs = ttlSeconds * 1000;
    this.#maxEntries = maxEntries;
    this.#now = opts.now ?? Date.now;
  }

  /**
   * Records `key` and returns true the first time it is seen (process the delivery), false for
   * a repeat within the TTL (answer 2xx again without processing it twice).
   */
  firstSeen(key: string): boolean {
    const now = this.#now();
    this.#evict(now);
    const expiry = this.#seen.get(key);
    if (expiry !== undefined && expiry > now) return false;
    this.#seen.delete(key);
    this.#seen.set(key, now + this.#ttlMs);
    while (this.#seen.size > this.#maxEntries) this.#seen.delete(this.#seen.keys().next().value as string);
    return true;
  }

  /** Forgets a key, e.g. when processing failed after firstSeen() and the retry must be processed. */
  forget(key: string): void {
    this.#seen.delete(key);
  }

  get size(): number {
    return this.#seen.size;
  }

  #evict(now: number): void {
    // Entries share one TTL, so expiries grow in insertion order: stop at the first live one.
    for (const [key, expiry] of this.#seen) {
      if (expiry > now) break;
      this.#seen.delete(key);
    }
  }
}

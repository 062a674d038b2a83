import type { Database } from '../db/index.js';

/** The NOTIFY channel migration 080's triggers write to when a key or an organization changes. */
export const API_KEY_CHANNEL = 'vigia_api_keys';

/** What the public API needs of a key that was valid when it was looked up. */
export interface CachedKey {
  id: string;
  orgId: string;
  scopes: readonly string[];
  expiresAtMs: number | null;
  lastUsedAtMs: number | null;
  /** When the entry was filled (process time), for the age bound. */
  cachedAtMs: number;
}

const DEFAULT_MAX_ENTRIES = 10_000;
/** Even an entry nobody invalidated is looked up again after this long. */
const MAX_AGE_MS = 5 * 60_000;

/**
 * Keys that were valid at their last database lookup, by the hash of the key, so a list request
 * after a key's first use needs no lookup round trip of its own.
 *
 * The cache never decides alone that a key is still valid: a route may use it only when its one
 * statement re-checks the key (revoked, expired, organization suspended) in the same snapshot as
 * the page (see page-statement.ts), so a revocation counts for the very next request on every
 * instance. The triggers of migration 080 NOTIFY every instance when a key or an organization's
 * suspension changes, and each instance drops the entries concerned at once, so stale entries do
 * not linger; a lost listener connection (payload '') empties the whole cache.
 *
 * The map is keyed by a SHA-256 hash of the key, never the key itself, so a timing difference of
 * the map lookup says nothing about any valid key.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, CachedKey>();
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  /** Subscribes to the invalidation channel of `db` (the primary). */
  async start(db: Database): Promise<void> {
    this.unsubscribe = await db.listen(API_KEY_CHANNEL, (payload) => this.onNotify(payload));
  }

  async stop(): Promise<void> {
    const stop = this.unsubscribe;
    this.unsubscribe = undefined;
    this.entries.clear();
    await stop?.();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry for `hash`, unless it is missing, too old or the key has expired at `clockMs`. */
  get(hash: string, clockMs: number): CachedKey | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (this.nowMs() - entry.cachedAtMs > MAX_AGE_MS || (entry.expiresAtMs !== null && entry.expiresAtMs <= clockMs)) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry;
  }

  set(hash: string, key: Omit<CachedKey, 'cachedAtMs'>): void {
    this.entries.delete(hash);
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first entry is the oldest.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { ...key, cachedAtMs: this.nowMs() });
  }

  dropKey(keyId: string): void {
    for (const [hash, entry] of this.entries) if (entry.id === keyId) this.entries.delete(hash);
  }

  dropOrg(orgId: string): void {
    for (const [hash, entry] of this.entries) if (entry.orgId === orgId) this.entries.delete(hash);
  }

  /** Payloads: `key:<id>`, `org:<id>`; anything else (a reconnect's '') empties the cache. */
  private onNotify(payload: string): void {
    if (payload.startsWith('key:')) this.dropKey(payload.slice(4));
    else if (payload.startsWith('org:')) this.dropOrg(payload.slice(4));
    else this.entries.clear();
  }
}

import type { AppContext } from '../context.js';
import { type CounterStore, FailedAttemptLimiter, MemoryCounterStore, PublicApiRateLimiter, RedisCounterStore } from './limiters.js';

/** Documented defaults (docs/public-api.md, "Rate limits"); config (VIGIA_API_RATE_LIMIT, VIGIA_API_INVALID_KEY_LIMIT) may change them. */
export const DEFAULT_PER_KEY_PER_MINUTE = 60;
export const DEFAULT_INVALID_PER_ADDRESS_PER_MINUTE = 10;

/** In-process counters by default; Redis when REDIS_URL is set, shared by every instance. */
export function createCounterStore(ctx: AppContext): CounterStore {
  const c = ctx.config;
  return c.redisUrl ? new RedisCounterStore(c.redisUrl, c.rateLimitPrefix ?? 'vigia:rl', ctx.log) : new MemoryCounterStore();
}

export function createRateLimiter(ctx: AppContext): PublicApiRateLimiter {
  const c = ctx.config;
  return new PublicApiRateLimiter(
    createCounterStore(ctx),
    {
      perKeyPerMinute: c.apiRateLimitPerMinute ?? DEFAULT_PER_KEY_PER_MINUTE,
      invalidKeyPerAddressPerMinute: c.apiInvalidKeyLimitPerMinute ?? DEFAULT_INVALID_PER_ADDRESS_PER_MINUTE,
    },
    ctx.log,
  );
}

/** Failed admin-token attempts per address (VIGIA_ADMIN_AUTH_FAILURE_LIMIT), in the same kind of store. */
export function createAdminAuthLimiter(ctx: AppContext): { limiter: FailedAttemptLimiter; close(): Promise<void> } {
  const store = createCounterStore(ctx);
  const limit = ctx.config.adminAuthFailureLimitPerMinute ?? DEFAULT_INVALID_PER_ADDRESS_PER_MINUTE;
  return { limiter: new FailedAttemptLimiter(store, 'admin', limit, ctx.log), close: () => store.close() };
}

/**
 * Failed authentications at the inbound address per source address
 * (src/inbound-api, docs/connectors.md "Limits"), in a store of its own: with Redis its keys live
 * under `{prefix}:inbound:` and never share a counter with the public or admin API's.
 */
export function createInboundAuthLimiter(ctx: AppContext, perMinute: number): { limiter: FailedAttemptLimiter; close(): Promise<void> } {
  const c = ctx.config;
  const prefix = `${c.rateLimitPrefix ?? 'vigia:rl'}:inbound`;
  const store = c.redisUrl ? new RedisCounterStore(c.redisUrl, prefix, ctx.log) : new MemoryCounterStore();
  return { limiter: new FailedAttemptLimiter(store, 'auth', perMinute, ctx.log), close: () => store.close() };
}

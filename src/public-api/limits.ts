import type { AppContext } from '../context.js';
import { MemoryCounterStore, PublicApiRateLimiter, RedisCounterStore } from './rate-limit.js';

/** SPEC §8 defaults; config (VIGIA_API_RATE_LIMIT, VIGIA_API_INVALID_KEY_LIMIT) may change them. */
export const DEFAULT_PER_KEY_PER_MINUTE = 60;
export const DEFAULT_INVALID_PER_ADDRESS_PER_MINUTE = 10;

/** In-process counters by default; Redis when REDIS_URL is set, shared by every instance. */
export function createRateLimiter(ctx: AppContext): PublicApiRateLimiter {
  const c = ctx.config;
  const store = c.redisUrl
    ? new RedisCounterStore(c.redisUrl, c.rateLimitPrefix ?? 'vigia:rl', ctx.log)
    : new MemoryCounterStore();
  return new PublicApiRateLimiter(
    store,
    {
      perKeyPerMinute: c.apiRateLimitPerMinute ?? DEFAULT_PER_KEY_PER_MINUTE,
      invalidKeyPerAddressPerMinute: c.apiInvalidKeyLimitPerMinute ?? DEFAULT_INVALID_PER_ADDRESS_PER_MINUTE,
    },
    ctx.log,
  );
}

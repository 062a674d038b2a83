import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import { randomBase62 } from '../../src/ids.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { countStatuses, errorOf, get, inParallel, insertKey, insertOrg } from './helpers.js';

const REDIS_URL = process.env.VIGIA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('rate limits shared through Redis by two instances', () => {
  // A namespace of its own, so parallel test files (pg and pglite) never share counters.
  const prefix = `vigia-test:${randomBase62(10)}`;
  const clock = new ManualClock('2026-06-15T12:00:10Z');
  let t: TestApp;
  let second: FastifyInstance;
  let redis: Redis;
  beforeAll(async () => {
    t = await createTestApp({ clock, config: { redisUrl: REDIS_URL, rateLimitPrefix: prefix } });
    second = await buildApp({ ...t.ctx });
    await second.ready();
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await second.close();
    await t.close();
  });

  it('counts one key across both instances', async () => {
    const org = await insertOrg(t.ctx.db);
    const { key } = await insertKey(t.ctx.db, org);
    for (let i = 1; i <= 60; i++) {
      const res = await get(i % 2 ? t.app : second, '/capacities', key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(60 - i));
    }
    for (const app of [t.app, second]) {
      const res = await get(app, '/capacities', key);
      expect(res.statusCode).toBe(429);
      expect(errorOf(res).code).toBe('rate_limited');
      expect(res.headers['retry-after']).toBe('50');
    }
    const stored = await redis.keys(`${prefix}:*`);
    expect(stored.length).toBeGreaterThan(0);
    const ttl = await redis.pttl(stored[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(65_000);
    // The next minute starts a fresh budget on both.
    clock.advance(50_000);
    expect((await get(second, '/capacities', key)).statusCode).toBe(200);
  });

  it('blocks an address on both instances after 10 invalid attempts spread over them', async () => {
    clock.set('2026-06-15T12:05:00Z');
    const org = await insertOrg(t.ctx.db);
    const { key } = await insertKey(t.ctx.db, org);
    const ip = '192.0.2.44';
    for (let i = 0; i < 10; i++) {
      const res = await get(i % 2 ? t.app : second, '/alerts', `vgk_ZZZZZZZZ_${'q'.repeat(40)}`, {}, ip);
      expect(res.statusCode).toBe(401);
    }
    for (const app of [t.app, second]) {
      const res = await get(app, '/alerts', key, {}, ip);
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBe('60');
    }
    expect((await get(second, '/alerts', key, {}, '192.0.2.45')).statusCode).toBe(200);
  });

  it('answers exactly 10 invalid-key attempts with 401 when 30 arrive 8 at a time over both instances', async () => {
    clock.set('2026-06-15T12:07:00Z');
    const ip = '192.0.2.77';
    const attempts = Array.from({ length: 30 }, (_, i) => () => get(i % 2 ? t.app : second, '/alerts', `vgk_ZZZZZZZZ_${String(i).padStart(40, 'q')}`, {}, ip));
    const answers = await inParallel(attempts, 8);
    expect(countStatuses(answers)).toEqual({ 401: 10, 429: 20 });
  });
});

describe('rate limits when Redis is unreachable', () => {
  it('fails open: requests are served and a warning is logged', async () => {
    const t = await createTestApp({ config: { redisUrl: 'redis://127.0.0.1:1', rateLimitPrefix: `vigia-test:${randomBase62(8)}` } });
    try {
      const org = await insertOrg(t.ctx.db);
      const { key } = await insertKey(t.ctx.db, org);
      const res = await get(t.app, '/capacities', key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('60');
      expect(t.ctx.logs.text).toContain('rate-limit store unavailable');
    } finally {
      await t.close();
    }
  });
});

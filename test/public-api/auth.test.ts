import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { UNAUTHORIZED_MESSAGE } from '../../src/public-api/auth.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { ALL_SCOPES, countStatuses, errorOf, get, inParallel, insertKey, insertOrg } from './helpers.js';

const ENDPOINTS: Array<[string, string]> = [
  ['/alerts', 'ReadAlerts'],
  ['/alerts/metrics', 'ReadMetrics'],
  ['/capacities', 'ReadCapacities'],
  ['/workspaces', 'ReadWorkspaces'],
  ['/costs/daily', 'ReadCosts'],
  ['/sla', 'ReadSla'],
];

let address = 0;
/** A fresh client address per test, so the invalid-key counter of one test never bleeds into another. */
const nextAddress = () => `198.51.100.${++address}`;

describe('public API authentication, scopes and limits', () => {
  let t: TestApp;
  let clock: ManualClock;
  let orgId: string;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:30Z');
    t = await createTestApp({ clock });
    orgId = await insertOrg(t.ctx.db);
  });
  afterAll(() => t.close());

  it('accepts X-Api-Key and Authorization: ApiKey on every endpoint', async () => {
    const { key } = await insertKey(t.ctx.db, orgId);
    for (const [path] of ENDPOINTS) {
      const a = await get(t.app, path, key, {}, nextAddress());
      expect(a.statusCode, path).toBe(200);
      expect(a.headers['cache-control']).toBe('no-store');
      const b = await get(t.app, path, undefined, { authorization: `ApiKey ${key}` }, nextAddress());
      expect(b.statusCode, path).toBe(200);
    }
  });

  it('answers 401 with one identical message for missing, malformed, unknown, wrong-secret, expired and revoked keys', async () => {
    const valid = await insertKey(t.ctx.db, orgId);
    const expired = await insertKey(t.ctx.db, orgId, ALL_SCOPES, { expiresAt: new Date('2026-06-15T12:00:00Z') });
    const revoked = await insertKey(t.ctx.db, orgId, ALL_SCOPES, { revokedAt: new Date('2026-06-01T00:00:00Z') });
    const wrongSecret = `vgk_${valid.prefix}_${'A'.repeat(40)}`;
    const attempts: Array<Record<string, string>> = [
      {},
      { 'x-api-key': 'nonsense' },
      { 'x-api-key': `vgk_ABCDEFGH_${'x'.repeat(40)}` },
      { 'x-api-key': wrongSecret },
      { 'x-api-key': expired.key },
      { 'x-api-key': revoked.key },
      { authorization: `Bearer ${valid.key}` },
      { authorization: 'ApiKey ' },
    ];
    for (const headers of attempts) {
      const res = await get(t.app, '/alerts', undefined, headers, nextAddress());
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(errorOf(res)).toEqual({ code: 'unauthorized', message: UNAUTHORIZED_MESSAGE });
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    expect(t.ctx.logs.text).not.toContain(valid.key);
    expect(t.ctx.logs.text).not.toContain(wrongSecret);
  });

  it('answers 403 forbidden for each missing scope', async () => {
    for (const [path, scope] of ENDPOINTS) {
      const { key } = await insertKey(t.ctx.db, orgId, ALL_SCOPES.filter((s) => s !== scope));
      const res = await get(t.app, path, key, {}, nextAddress());
      expect(res.statusCode, path).toBe(403);
      const err = errorOf(res);
      expect(err.code).toBe('forbidden');
      expect(err.message).toContain(scope);
      const only = await insertKey(t.ctx.db, orgId, [scope]);
      expect((await get(t.app, path, only.key, {}, nextAddress())).statusCode).toBe(200);
    }
  });

  it('answers 403 for a suspended organization', async () => {
    const suspended = await insertOrg(t.ctx.db, { suspended: true });
    const { key } = await insertKey(t.ctx.db, suspended);
    const res = await get(t.app, '/capacities', key, {}, nextAddress());
    expect(res.statusCode).toBe(403);
    expect(errorOf(res)).toEqual({ code: 'forbidden', message: 'the organization is suspended' });
  });

  it('records last_used_at at most once a minute', async () => {
    const { key, id } = await insertKey(t.ctx.db, orgId);
    const lastUsed = async () =>
      (await t.ctx.db.query<{ t: Date | null }>('SELECT last_used_at AS t FROM api_keys WHERE id = $1', [id])).rows[0]!.t;
    expect(await lastUsed()).toBeNull();
    await get(t.app, '/capacities', key, {}, nextAddress());
    expect((await lastUsed())?.toISOString()).toBe(clock.now().toISOString());
    const first = clock.now().toISOString();
    clock.advance(10_000);
    await get(t.app, '/capacities', key, {}, nextAddress());
    expect((await lastUsed())?.toISOString()).toBe(first);
    clock.advance(60_000);
    await get(t.app, '/capacities', key, {}, nextAddress());
    expect((await lastUsed())?.toISOString()).toBe(clock.now().toISOString());
  });

  it('limits a key to 60 requests per minute with RateLimit headers and Retry-After', async () => {
    clock.set('2026-06-15T12:10:00Z');
    const { key } = await insertKey(t.ctx.db, orgId);
    for (let i = 1; i <= 60; i++) {
      const res = await get(t.app, '/capacities', key, {}, nextAddress());
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('60');
      expect(res.headers['ratelimit-remaining']).toBe(String(60 - i));
      expect(res.headers['ratelimit-reset']).toBe('60');
    }
    clock.advance(15_000);
    const over = await get(t.app, '/capacities', key, {}, nextAddress());
    expect(over.statusCode).toBe(429);
    expect(errorOf(over).code).toBe('rate_limited');
    expect(over.headers['retry-after']).toBe('45');
    expect(over.headers['ratelimit-remaining']).toBe('0');
    // Errors of an authenticated request carry the headers too.
    const bad = await get(t.app, '/capacities?page=0', key, {}, nextAddress());
    expect(bad.statusCode).toBe(429);
    clock.advance(45_000);
    const again = await get(t.app, '/capacities?page=0', key, {}, nextAddress());
    expect(again.statusCode).toBe(400);
    expect(again.headers['ratelimit-remaining']).toBe('59');
    // Another key has its own budget.
    const other = await insertKey(t.ctx.db, orgId);
    expect((await get(t.app, '/capacities', other.key, {}, nextAddress())).statusCode).toBe(200);
  });

  it('blocks an address after 10 invalid-key attempts in a minute, before looking at any key', async () => {
    clock.set('2026-06-15T12:20:05Z');
    const ip = '203.0.113.7';
    const { key } = await insertKey(t.ctx.db, orgId);
    for (let i = 0; i < 10; i++) {
      const res = await get(t.app, '/alerts', `vgk_ABCDEFGH_${'y'.repeat(40)}`, {}, ip);
      expect(res.statusCode).toBe(401);
    }
    for (const k of ['nonsense', key]) {
      const res = await get(t.app, '/alerts', k, {}, ip);
      expect(res.statusCode).toBe(429);
      expect(errorOf(res).code).toBe('rate_limited');
      expect(res.headers['retry-after']).toBe('55');
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    // Other addresses are unaffected; the block ends with the minute.
    expect((await get(t.app, '/alerts', key, {}, '203.0.113.8')).statusCode).toBe(200);
    clock.advance(55_000);
    expect((await get(t.app, '/alerts', key, {}, ip)).statusCode).toBe(200);
  });

  it('answers exactly 10 invalid-key attempts with 401 when 30 arrive 8 at a time, then 429', async () => {
    clock.set('2026-06-15T12:30:05Z');
    const ip = '203.0.113.99';
    const attempts = Array.from({ length: 30 }, (_, i) => () => get(t.app, '/alerts', `vgk_ABCDEFGH_${String(i).padStart(40, 'z')}`, {}, ip));
    const answers = await inParallel(attempts, 8);
    expect(countStatuses(answers)).toEqual({ 401: 10, 429: 20 });
    for (const res of answers) expect(['unauthorized', 'rate_limited']).toContain(errorOf(res).code);
  });

  it('answers 405 with the envelope for other methods, 404 for unknown paths, and HEAD like GET', async () => {
    const { key } = await insertKey(t.ctx.db, orgId);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      for (const [path] of ENDPOINTS) {
        const res = await t.app.inject({ method, url: `/api/public/v1${path}`, headers: { 'x-api-key': key } });
        expect(res.statusCode, `${method} ${path}`).toBe(405);
        expect(errorOf(res).code).toBe('method_not_allowed');
        expect(res.headers.allow).toBe('GET, HEAD');
      }
    }
    const missing = await get(t.app, '/nope', key);
    expect(missing.statusCode).toBe(404);
    expect(errorOf(missing).code).toBe('not_found');
    const head = await t.app.inject({ method: 'HEAD', url: '/api/public/v1/capacities', headers: { 'x-api-key': key }, remoteAddress: nextAddress() });
    expect(head.statusCode).toBe(200);
    expect(head.headers['cache-control']).toBe('no-store');
    expect(head.body).toBe('');
  });
});

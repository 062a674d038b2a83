import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { insertAlert, insertCapacity, insertCost, insertKey, insertOrg, insertWorkspace } from './helpers.js';

const PATHS = ['/alerts', '/alerts/metrics', '/capacities', '/workspaces', '/costs/daily', '/sla'];
const NAMES = ['from', 'to', 'status', 'sourceType', 'page', 'pageSize', 'format', 'currency', 'month', 'x', '', 'PAGE', '__proto__', 'constructor', 'from[]'];

const tricky = fc.constantFrom(
  '',
  '0',
  '-1',
  '1e3',
  '0x10',
  ' 1',
  '1000',
  '1001',
  '500',
  '501',
  '99999999999999999999999999',
  'NaN',
  'Infinity',
  'null',
  'csv',
  'json',
  'open',
  'resolved',
  'USD',
  'usd',
  'XXX',
  '2026-06-01',
  '2026-02-30',
  '2026-06',
  '2026-13',
  '0000-01',
  '2026-06-01T00:00:00Z',
  '2026-06-01T00:00:00.123456789Z',
  '2026-06-01T00:00:00+00:00',
  '2026-06-01T24:00:00Z',
  '1969-12-31T23:59:59Z',
  '9999-12-31T23:59:59Z',
  '\u0000',
  '%00',
  '💥',
  'a'.repeat(5000),
  "'; DROP TABLE alerts; --",
  '=cmd()',
);
const value = fc.oneof(tricky, fc.string({ maxLength: 40 }), fc.integer().map(String), fc.double().map(String));
const name = fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 12 }));
const queryString = fc
  .array(fc.tuple(name, value, fc.boolean()), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v, raw]) => (raw ? `${k}=${v}`.replace(/[^\x21-\x7e]/g, '') : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)).join('&'));

function assertClean(res: { statusCode: number; headers: Record<string, unknown>; body: string }, ctx: string): void {
  expect(res.statusCode, ctx).toBeLessThan(500);
  expect(res.headers['cache-control'], ctx).toBe('no-store');
  if (res.statusCode >= 400) {
    const body = JSON.parse(res.body);
    expect(Object.keys(body), ctx).toEqual(['error']);
    expect(typeof body.error.code, ctx).toBe('string');
    expect(typeof body.error.message, ctx).toBe('string');
  } else if (String(res.headers['content-type']).startsWith('text/csv')) {
    expect(res.body.startsWith('\ufeff'), ctx).toBe(true);
  } else {
    expect(typeof JSON.parse(res.body), ctx).toBe('object');
  }
}

describe('fuzzing query strings and headers (never 5xx, always the envelope and no-store)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({
      clock: new ManualClock('2026-06-15T12:00:00Z'),
      config: { apiRateLimitPerMinute: 1_000_000, apiInvalidKeyLimitPerMinute: 1_000_000 },
    });
    const org = await insertOrg(t.ctx.db);
    key = (await insertKey(t.ctx.db, org)).key;
    await insertAlert(t.ctx.db, org, { createdAt: '2026-06-14T00:00:00Z', message: '=1+1' });
    await insertCapacity(t.ctx.db, org, 'cap');
    await insertWorkspace(t.ctx.db, org, 'ws', 'r1');
    await insertCost(t.ctx.db, org, { date: '2026-06-01', capacityName: 'cap', currency: 'USD', cost: 1 });
  });
  afterAll(() => t.close());

  it('query strings on every endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), queryString, async (path, qs) => {
        const res = await t.app.inject({ method: 'GET', url: `/api/public/v1${path}?${qs}`, headers: { 'x-api-key': key } });
        assertClean(res, `${path}?${qs}`);
      }),
      { numRuns: 300 },
    );
  });

  it('authentication headers on every endpoint', async () => {
    const keyLike = fc.oneof(
      fc.constant(key),
      fc.constant(`${key}x`),
      fc.constant(key.slice(0, -1)),
      fc.constant(key.toUpperCase()),
      fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      fc.stringMatching(/^vgk_[0-9A-Za-z]{8}_[0-9A-Za-z]{32,48}$/),
      fc.constant('a'.repeat(10_000)),
    );
    const headers = fc.record(
      {
        'x-api-key': keyLike,
        authorization: fc.oneof(keyLike.map((k) => `ApiKey ${k}`), keyLike.map((k) => `Bearer ${k}`), keyLike),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), headers, async (path, h) => {
        const res = await t.app.inject({ method: 'GET', url: `/api/public/v1${path}`, headers: h as Record<string, string> });
        assertClean(res, `${path} ${JSON.stringify(h).slice(0, 200)}`);
      }),
      { numRuns: 200 },
    );
  });

  it('methods and paths under the prefix', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
        fc.oneof(fc.constantFrom(...PATHS, '/openapi.json'), fc.string({ maxLength: 20 }).map((s) => `/${encodeURIComponent(s)}`)),
        async (method, path) => {
          const res = await t.app.inject({ method: method as 'GET', url: `/api/public/v1${path}`, headers: { 'x-api-key': key } });
          expect(res.statusCode).toBeLessThan(500);
          expect(res.headers['cache-control']).toBe('no-store');
          if (res.statusCode >= 400 && method !== 'HEAD') expect(Object.keys(JSON.parse(res.body))).toEqual(['error']);
        },
      ),
      { numRuns: 100 },
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { errorOf, get, insertKey, insertOrg } from '../public-api/helpers.js';

/**
 * Behind a reverse proxy every connection comes from the proxy's address. With VIGIA_TRUST_PROXY
 * naming the proxy, the client's address is taken from X-Forwarded-For, so one client's invalid
 * keys do not lock everyone else out; without it, the header is ignored and cannot be forged.
 */
const PROXY = '10.0.0.5';
const BAD_KEY = `vgk_ABCDEFGH_${'x'.repeat(40)}`;

async function exhaustInvalidKeys(t: TestApp, headers: Record<string, string>, from: string): Promise<void> {
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await get(t.app, '/alerts', BAD_KEY, headers, from)).statusCode);
  expect(statuses).toEqual([...Array(10).fill(401), 429]);
}

describe('VIGIA_TRUST_PROXY set to the proxy address', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:30Z'), env: { VIGIA_TRUST_PROXY: PROXY } });
    key = (await insertKey(t.ctx.db, await insertOrg(t.ctx.db))).key;
  });
  afterAll(() => t.close());

  it('counts invalid keys per forwarded client: 11 bad keys of one client do not refuse another client', async () => {
    await exhaustInvalidKeys(t, { 'x-forwarded-for': '203.0.113.7' }, PROXY);
    // The same client is refused even with its valid key…
    const same = await get(t.app, '/alerts', key, { 'x-forwarded-for': '203.0.113.7' }, PROXY);
    expect(same.statusCode).toBe(429);
    expect(errorOf(same).code).toBe('rate_limited');
    // …another client behind the same proxy is not.
    expect((await get(t.app, '/alerts', key, { 'x-forwarded-for': '203.0.113.8' }, PROXY)).statusCode).toBe(200);
    expect((await get(t.app, '/alerts', BAD_KEY, { 'x-forwarded-for': '203.0.113.9' }, PROXY)).statusCode).toBe(401);
  });

  it('takes the address the proxy appended, not what the client put before it', async () => {
    // The client sends its own X-Forwarded-For; the proxy appends the address it saw.
    await exhaustInvalidKeys(t, { 'x-forwarded-for': '1.1.1.1, 203.0.113.20' }, PROXY);
    expect((await get(t.app, '/alerts', key, { 'x-forwarded-for': '2.2.2.2, 203.0.113.20' }, PROXY)).statusCode).toBe(429);
    expect((await get(t.app, '/alerts', key, { 'x-forwarded-for': '1.1.1.1, 203.0.113.21' }, PROXY)).statusCode).toBe(200);
  });

  it('ignores X-Forwarded-For from a peer that is not the proxy', async () => {
    await exhaustInvalidKeys(t, { 'x-forwarded-for': '203.0.113.30' }, '198.51.100.40');
    // The counter was the peer's: a forged header from it changes nothing.
    expect((await get(t.app, '/alerts', key, { 'x-forwarded-for': '203.0.113.31' }, '198.51.100.40')).statusCode).toBe(429);
    // …and the client it named was never charged.
    expect((await get(t.app, '/alerts', key, { 'x-forwarded-for': '203.0.113.30' }, PROXY)).statusCode).toBe(200);
  });
});

describe('VIGIA_TRUST_PROXY as a hop count', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:30Z'), env: { VIGIA_TRUST_PROXY: '1' } });
    key = (await insertKey(t.ctx.db, await insertOrg(t.ctx.db))).key;
  });
  afterAll(() => t.close());

  it('takes the client from the nearest hop: clients behind one proxy have separate counters', async () => {
    await exhaustInvalidKeys(t, { 'x-forwarded-for': '203.0.113.50' }, PROXY);
    expect((await get(t.app, '/alerts', key, { 'x-forwarded-for': '203.0.113.51' }, PROXY)).statusCode).toBe(200);
    expect((await get(t.app, '/alerts', key, { 'x-forwarded-for': '203.0.113.50' }, PROXY)).statusCode).toBe(429);
  });
});

describe('without VIGIA_TRUST_PROXY (the default)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:30Z') });
    key = (await insertKey(t.ctx.db, await insertOrg(t.ctx.db))).key;
  });
  afterAll(() => t.close());

  it('a forged X-Forwarded-For changes nothing: the counter is the connection peer', async () => {
    await exhaustInvalidKeys(t, { 'x-forwarded-for': '203.0.113.60' }, PROXY);
    const forged = await get(t.app, '/alerts', key, { 'x-forwarded-for': '203.0.113.61' }, PROXY);
    expect(forged.statusCode).toBe(429);
    expect(forged.headers['retry-after']).toMatch(/^\d+$/);
  });
});

describe('VIGIA_TRUST_PROXY values', () => {
  it('is off by default; takes a hop count or addresses/CIDRs; refuses anything else with a clear error', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ VIGIA_TRUST_PROXY: 'off' }).trustProxy).toBe(false);
    expect(loadConfig({ VIGIA_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ VIGIA_TRUST_PROXY: ' 10.0.0.5, 10.1.0.0/16 ,fd00::/8, loopback' }).trustProxy).toEqual([
      '10.0.0.5',
      '10.1.0.0/16',
      'fd00::/8',
      'loopback',
    ]);
    for (const bad of ['true', 'proxy.example.com', '10.0.0.0/33', '300.1.1.1', '0', '10.0.0.5,,nope', '::1/129']) {
      expect(() => loadConfig({ VIGIA_TRUST_PROXY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ VIGIA_TRUST_PROXY: bad }), bad).toThrow(/VIGIA_TRUST_PROXY/);
    }
  });
});

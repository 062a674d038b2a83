import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { TEST_ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/context.js';
import { vigia } from '../cli/processes.js';

const WRONG = `Bearer ${'w'.repeat(40)}`;

describe('failed admin-token attempts are limited per address', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-06-15T12:00:30Z');
  beforeAll(async () => {
    t = await createTestApp({ clock });
  });
  afterAll(() => t.close());

  const orgs = (authorization: string | undefined, remoteAddress: string) =>
    t.app.inject({ method: 'GET', url: '/api/admin/v1/orgs', headers: authorization ? { authorization } : {}, remoteAddress });

  it('answers 401 to ten wrong tokens, then 429 with Retry-After in the envelope, even for the right token', async () => {
    const from = '203.0.113.1';
    for (let i = 0; i < 10; i++) expect((await orgs(WRONG, from)).statusCode).toBe(401);
    const refused = await orgs(WRONG, from);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.json()).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/admin token/) } });
    // The blocked address cannot try the right token either (no oracle), other addresses can.
    expect((await orgs(`Bearer ${TEST_ADMIN_TOKEN}`, from)).statusCode).toBe(429);
    expect((await orgs(`Bearer ${TEST_ADMIN_TOKEN}`, '203.0.113.2')).statusCode).toBe(200);
    expect((await orgs(WRONG, '203.0.113.2')).statusCode).toBe(401);
    // The next minute the address may try again.
    clock.advance(60_000);
    expect((await orgs(`Bearer ${TEST_ADMIN_TOKEN}`, from)).statusCode).toBe(200);
  });

  it('counts malformed Authorization headers, not requests without one', async () => {
    const from = '203.0.113.3';
    for (let i = 0; i < 12; i++) expect((await orgs(undefined, from)).statusCode).toBe(401);
    for (let i = 0; i < 10; i++) expect((await orgs('Basic abc', from)).statusCode).toBe(401);
    expect((await orgs('Basic abc', from)).statusCode).toBe(429);
  });

  it('the right token is never counted', async () => {
    const from = '203.0.113.4';
    for (let i = 0; i < 15; i++) expect((await orgs(`Bearer ${TEST_ADMIN_TOKEN}`, from)).statusCode).toBe(200);
    expect((await orgs(WRONG, from)).statusCode).toBe(401);
  });
});

describe('VIGIA_ADMIN_TOKEN minimum length', () => {
  it('refuses a configured token under 32 characters with a clear message', () => {
    expect(() => loadConfig({ VIGIA_ADMIN_TOKEN: 'x'.repeat(31) })).toThrow(ConfigError);
    expect(() => loadConfig({ VIGIA_ADMIN_TOKEN: 'short' })).toThrow(/VIGIA_ADMIN_TOKEN must be at least 32 characters/);
    expect(loadConfig({ VIGIA_ADMIN_TOKEN: 'x'.repeat(32) }).adminToken).toBe('x'.repeat(32));
  });

  it('vigia serve exits non-zero at start, naming the variable and not echoing the token', async () => {
    const s = vigia(['serve'], { VIGIA_ADMIN_TOKEN: 'hunter2-hunter2', PORT: '0' });
    expect(await s.exited).toBe(2);
    expect(s.stderr()).toMatch(/VIGIA_ADMIN_TOKEN must be at least 32 characters/);
    expect(s.stderr() + s.stdout()).not.toContain('hunter2');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';

describe('health and admin auth', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers /healthz and /readyz', async () => {
    const h = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(h.statusCode).toBe(200);
    const r = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status: 'ready' });
  });

  it('refuses the admin API without the token, with the envelope and no-store', async () => {
    for (const authorization of [undefined, 'Bearer wrong', 'Basic abc', 'Bearer ']) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/admin/v1/orgs',
        headers: authorization ? { authorization } : {},
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toEqual({ error: { code: 'unauthorized', message: 'missing or invalid admin token' } });
    }
  });

  it('answers unknown routes with the envelope', async () => {
    const res = await t.admin('GET', '/no-such-thing');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
  });
});

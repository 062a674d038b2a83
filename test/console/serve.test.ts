// @engine-neutral: the console's routes, static files and generated types, not the database
/**
 * How the process serves the console: index.html at `/` and at the console's browser routes
 * (the alert link of every delivery among them), hashed assets cached for good, the other paths
 * untouched, and a clear page — not a blank one or a 500 — when the console is not built.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_BUILD_DIR, consoleRoutes } from '../../src/console/serve.js';
import { installErrorHandling } from '../../src/http/errors.js';
import { createTestApp, type TestApp } from '../helpers/context.js';

describe('console serving', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers the console page at / and at its browser routes, never cached, with a same-origin policy', async () => {
    for (const url of ['/', '/alerts/alr_0123', '/destinations/dst_1', '/api-keys', '/silences', '/orgs', '/alerts', '/destinations', '/overview', '/capacities', '/workspaces', '/tenants']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.body).toContain('<div id="app"></div>');
    }
  });

  it('serves the built assets it references, cached as immutable; nothing from another origin', async () => {
    const html = (await t.app.inject({ method: 'GET', url: '/' })).body;
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.filter((r) => /^(https?:)?\/\//.test(r))).toEqual([]);
    const assets = refs.filter((r) => r.startsWith('/assets/'));
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const res = await t.app.inject({ method: 'GET', url: asset });
      expect(res.statusCode, asset).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    expect(readdirSync(path.join(CONSOLE_BUILD_DIR, 'assets')).length).toBeGreaterThanOrEqual(2);
    const missing = await t.app.inject({ method: 'GET', url: '/assets/nope.js' });
    expect(missing.statusCode).toBe(404);
  });

  it('leaves the APIs, docs, metrics and health as they were', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const admin = await t.app.inject({ method: 'GET', url: '/api/admin/v1/orgs' });
    expect(admin.statusCode).toBe(401);
    expect(admin.json().error.code).toBe('unauthorized');
    const publicApi = await t.app.inject({ method: 'GET', url: '/api/public/v1/alerts' });
    expect(publicApi.statusCode).toBe(401);
    const unknownApi = await t.app.inject({ method: 'GET', url: '/api/admin/v1/nothing-here' });
    // An unknown API path keeps the JSON envelope: the console never answers under /api.
    expect(unknownApi.statusCode).toBe(404);
    expect(unknownApi.json().error.code).toBe('not_found');
    const unknown = await t.app.inject({ method: 'GET', url: '/no/such/page' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: { code: 'not_found', message: 'no such route' } });
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    const docs = await t.app.inject({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(docs.statusCode);
  });

  it('says how to build the console when the build is missing', async () => {
    const app = Fastify();
    installErrorHandling(app);
    await app.register(consoleRoutes, { dir: mkdtempSync(path.join(tmpdir(), 'vigia-no-console-')) });
    const res = await app.inject({ method: 'GET', url: '/alerts/alr_1' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('npm run build:web');
    expect(res.body).toContain('O console do Vigia não foi compilado');
    expect((await app.inject({ method: 'GET', url: '/assets/index.js' })).statusCode).toBe(404);
    await app.close();
  });
});

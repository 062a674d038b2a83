import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { get, insertKey, insertOrg } from '../public-api/helpers.js';

/**
 * One set of security headers on every answer of the server: nosniff, no framing, no referrer,
 * and a Content-Security-Policy fitting what is sent (HTML pages: this origin only; everything
 * else: nothing at all).
 */
function expectCommon(res: LightMyRequestResponse, what: string): void {
  expect(res.headers['x-content-type-options'], what).toBe('nosniff');
  expect(res.headers['x-frame-options'], what).toBe('DENY');
  expect(res.headers['referrer-policy'], what).toBe('no-referrer');
  expect(String(res.headers['content-security-policy']), what).toContain("frame-ancestors 'none'");
}

const directives = (csp: unknown): Map<string, string[]> =>
  new Map(
    String(csp)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map((d) => [d[0]!, d.slice(1)]),
  );

describe('security headers', () => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp();
    orgId = await insertOrg(t.ctx.db);
    key = (await insertKey(t.ctx.db, orgId)).key;
  });
  afterAll(() => t.close());

  it('on JSON and CSV answers of both APIs, their errors and 404s: nosniff and a policy that allows nothing', async () => {
    const answers: Array<[string, LightMyRequestResponse]> = [
      ['public JSON', await get(t.app, '/alerts', key)],
      ['public CSV', await get(t.app, '/workspaces?format=csv', key)],
      ['public 401', await get(t.app, '/alerts')],
      ['public 400', await get(t.app, '/alerts?nope=1', key)],
      ['public 404', await get(t.app, '/no-such-route', key)],
      ['admin JSON', await t.admin('GET', '/orgs')],
      ['admin 401', await t.app.inject({ method: 'GET', url: '/api/admin/v1/orgs' })],
      ['admin 404', await t.admin('GET', '/no-such-thing')],
      ['root 404', await t.app.inject({ method: 'GET', url: '/no/such/page' })],
      ['healthz', await t.app.inject({ method: 'GET', url: '/healthz' })],
      ['metrics', await t.app.inject({ method: 'GET', url: '/metrics' })],
      ['openapi', await t.app.inject({ method: 'GET', url: '/api/public/v1/openapi.json' })],
    ];
    expect(answers.map(([what, r]) => [what, r.statusCode])).toEqual([
      ['public JSON', 200],
      ['public CSV', 200],
      ['public 401', 401],
      ['public 400', 400],
      ['public 404', 404],
      ['admin JSON', 200],
      ['admin 401', 401],
      ['admin 404', 404],
      ['root 404', 404],
      ['healthz', 200],
      ['metrics', 200],
      ['openapi', 200],
    ]);
    expect(answers[1]![1].headers['content-type']).toMatch(/^text\/csv/);
    for (const [what, res] of answers) {
      expectCommon(res, what);
      expect(directives(res.headers['content-security-policy']).get('default-src'), what).toEqual(["'none'"]);
    }
  });

  it('on the console and its assets', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/alerts' });
    expect(page.statusCode).toBe(200);
    expectCommon(page, 'console page');
    const csp = directives(page.headers['content-security-policy']);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('default-src')).toEqual(["'self'"]);
    const assets = [...page.body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const res = await t.app.inject({ method: 'GET', url: asset });
      expect(res.statusCode, asset).toBe(200);
      expectCommon(res, asset);
    }
    const missing = await t.app.inject({ method: 'GET', url: '/assets/nope.js' });
    expect(missing.statusCode).toBe(404);
    expectCommon(missing, 'missing asset');
  });

  it('on /docs: frame protection, and a policy Swagger UI runs under (its scripts and styles are files of this origin)', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expectCommon(page, '/docs');
    const csp = directives(page.headers['content-security-policy']);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    // "Try it out" calls the API at the document's server URL (VIGIA_BASE_URL).
    expect(csp.get('connect-src')).toEqual(["'self'", 'https://vigia.example.test']);
    // Nothing inline for the policy to block: every script is a file, and each file loads.
    const scripts = [...page.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThanOrEqual(3);
    for (const [, attrs, inline] of scripts) {
      expect(attrs).toMatch(/\bsrc="/);
      expect(inline!.trim()).toBe('');
    }
    expect(page.body).not.toMatch(/<style\b|\son[a-z]+=/i);
    const files = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(files.filter((f) => /^(https?:)?\/\//.test(f))).toEqual([]);
    for (const file of files) {
      const url = file.startsWith('/') ? file : `/docs/${file.replace(/^\.\//, '')}`;
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expectCommon(res, url);
    }
    const doc = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(doc.statusCode).toBe(200);
    expectCommon(doc, '/docs/json');
  });
});

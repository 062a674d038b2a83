// @engine-neutral: the console's routes, static files and generated types, not the database
/**
 * The admin API's OpenAPI document is generated from the route schemas, and the web console's
 * types (web/src/admin-api.gen.ts) are generated from it: this fails when the committed file is
 * stale (run `npm run gen:console-types`).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_TYPES_FILE, renderConsoleTypes } from '../../scripts/gen-console-types.mjs';
import { createTestApp, type TestApp } from '../helpers/context.js';

describe('admin OpenAPI document and the console types', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('is served at /api/admin/v1/openapi.json behind the admin token', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/admin/v1/openapi.json' });
    expect(anonymous.statusCode).toBe(401);
    const res = await t.admin('GET', '/openapi.json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.title).toBe('Vigia admin API');
    // Both ways in are declared: a bearer token, or the console's session cookie.
    expect(doc.security).toEqual([{ adminToken: [] }, { session: [] }]);
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'vigia_session' });
    // The console's read views document their answers, errors included.
    for (const p of ['/orgs/{orgId}/metrics', '/orgs/{orgId}/metrics/series', '/orgs/{orgId}/sla/history', '/orgs/{orgId}/capacities', '/orgs/{orgId}/workspaces']) {
      const get = doc.paths[p].get;
      expect(get.responses['200'].content['application/json'].schema, p).toBeTruthy();
      expect(get.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    }
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['AlertMetrics', 'SlaReport', 'CapacityView', 'WorkspaceView']));
  });

  it('every route answering JSON documents its answer (one contract: no hand-written console types)', async () => {
    const doc = (await t.admin('GET', '/openapi.json')).json();
    const undocumented: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, { content?: object }> }>>)) {
      for (const [method, op] of Object.entries(operations)) {
        // 204 answers carry no body; the OpenID Connect routes answer redirects.
        if (method === 'delete' || path.startsWith('/session/oidc/')) continue;
        const ok = Object.entries(op.responses).find(([status, r]) => status.startsWith('2') && r.content);
        if (!ok) undocumented.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(undocumented).toEqual([]);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Destination', 'Delivery', 'DeliveryPage', 'Alert', 'AlertPage', 'Silence', 'ApiKey', 'Tenant', 'Member', 'AuditPage', 'Session', 'GatewayView', 'SemanticModelView']),
    );
  });

  it('web/src/admin-api.gen.ts is what the current document generates', async () => {
    const doc = (await t.admin('GET', '/openapi.json')).json();
    const expected = await renderConsoleTypes(doc);
    const committed = await readFile(CONSOLE_TYPES_FILE, 'utf8');
    expect(committed === expected, 'web/src/admin-api.gen.ts is stale: run `npm run gen:console-types` and commit it').toBe(true);
  });
});

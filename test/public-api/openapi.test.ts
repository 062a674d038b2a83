import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// ajv 8 ships with fastify; its 2020-12 dialect is the JSON Schema dialect of OpenAPI 3.1.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createTestApp, type TestApp } from '../helpers/context.js';

const EXPECTED: Record<string, string[]> = {
  '/api/public/v1/alerts': ['from', 'to', 'status', 'sourceType', 'page', 'pageSize', 'format'],
  '/api/public/v1/alerts/metrics': ['from', 'to'],
  '/api/public/v1/capacities': ['page', 'pageSize', 'format'],
  '/api/public/v1/workspaces': ['page', 'pageSize', 'format'],
  '/api/public/v1/costs/daily': ['from', 'to', 'currency', 'page', 'pageSize', 'format'],
  '/api/public/v1/sla': ['month'],
};

/** Every JSON Schema object inside the document (parameters, responses). */
function schemasOf(doc: any): object[] {
  const out: object[] = [];
  for (const item of Object.values<any>(doc.paths)) {
    for (const op of Object.values<any>(item)) {
      for (const p of op.parameters ?? []) out.push(p.schema);
      for (const r of Object.values<any>(op.responses)) {
        for (const c of Object.values<any>(r.content ?? {})) out.push(c.schema);
        for (const h of Object.values<any>(r.headers ?? {})) out.push(h.schema);
      }
    }
  }
  return out;
}

describe('OpenAPI document and /docs', () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is served without a key, as JSON, no-store', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/public/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    doc = JSON.parse(res.body);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBeTruthy();
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKeyAuthorization', 'apiKeyHeader']);
  });

  it('describes exactly the six GET endpoints with their parameters and responses', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const [path, params] of Object.entries(EXPECTED)) {
      const item = doc.paths[path];
      expect(Object.keys(item), path).toEqual(['get']);
      const op = item.get;
      expect(op.parameters.map((p: any) => p.name).sort(), path).toEqual([...params].sort());
      for (const p of op.parameters) {
        expect(p.in).toBe('query');
        expect(p.required).toBe(false);
      }
      expect(Object.keys(op.responses).sort(), path).toEqual(['200', '400', '401', '403', '429']);
      for (const r of Object.values<any>(op.responses)) expect(typeof r.description).toBe('string');
      expect(op.responses['400'].content['application/json'].schema.required).toEqual(['error']);
      expect(op.security).toEqual([{ apiKeyHeader: [] }, { apiKeyAuthorization: [] }]);
    }
    expect(doc.paths['/api/public/v1/alerts'].get.responses['200'].content['text/csv']).toBeTruthy();
    const page = doc.paths['/api/public/v1/alerts'].get.parameters.find((p: any) => p.name === 'pageSize');
    expect(page.schema).toEqual({ type: 'integer', minimum: 1, maximum: 500, default: 100 });
  });

  it('contains only valid JSON Schema 2020-12 and no dangling $ref', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const s of schemasOf(doc)) {
      expect(() => ajv.compile(s)).not.toThrow();
    }
    expect(JSON.stringify(doc)).not.toContain('"$ref"');
  });

  it('renders Swagger UI at /docs from bundled assets, over the same document', async () => {
    const html = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(html.statusCode).toBe(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.body).not.toMatch(/https?:\/\/(?!localhost)[a-z0-9.-]+\/[^"']*\.(js|css)/i);
    const bundle = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    const json = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.json()).toEqual(doc);
  });
});

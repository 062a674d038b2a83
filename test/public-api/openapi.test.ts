import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
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
  '/api/public/v1/capacities/utilization': ['capacityName', 'from', 'to', 'granularity', 'page', 'pageSize', 'format'],
};

const OPERATION_IDS: Record<string, string> = {
  '/api/public/v1/alerts': 'listAlerts',
  '/api/public/v1/alerts/metrics': 'getAlertMetrics',
  '/api/public/v1/capacities': 'listCapacities',
  '/api/public/v1/workspaces': 'listWorkspaces',
  '/api/public/v1/costs/daily': 'listDailyCosts',
  '/api/public/v1/sla': 'getSlaReport',
  '/api/public/v1/capacities/utilization': 'listCapacityUtilization',
};

/** The schema with every `#/components/schemas/X` reference replaced by X itself. */
function deref(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => deref(s, components));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (ref !== undefined) {
    const name = ref.replace('#/components/schemas/', '');
    if (!(name in components)) throw new Error(`dangling $ref ${ref}`);
    return deref(components[name], components);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, deref(v, components)]));
}

/** Type-checks `files` (name → source) in a fresh directory with strict settings; returns the errors. */
async function typeCheck(files: Record<string, string>): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'vigia-openapi-'));
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
    const program = ts.createProgram(
      Object.keys(files).map((f) => path.join(dir, f)),
      {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        types: [],
        skipLibCheck: true,
      },
    );
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A small client written against the generated types, as a user of the API would. */
const CLIENT = `
import type { components, operations, paths } from './api';

type Alert = components['schemas']['Alert'];
type ApiError = components['schemas']['Error'];
type AlertPage = paths['/api/public/v1/alerts']['get']['responses'][200]['content']['application/json'];
type AlertsQuery = NonNullable<operations['listAlerts']['parameters']['query']>;
type Metrics = operations['getAlertMetrics']['responses'][200]['content']['application/json'];
type Sla = components['schemas']['SlaReport'];

export async function listAlerts(baseUrl: string, key: string, query: AlertsQuery): Promise<Alert[]> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await fetch(baseUrl + '/api/public/v1/alerts?' + qs.toString(), { headers: { 'X-Api-Key': key } });
  if (res.status === 429) {
    const retry: operations['listAlerts']['responses'][429]['headers']['Retry-After'] = Number(res.headers.get('retry-after'));
    const left: operations['listAlerts']['responses'][429]['headers']['RateLimit-Remaining'] = 0;
    throw new Error('retry in ' + String(retry) + ' s, ' + String(left) + ' left');
  }
  if (!res.ok) {
    const body = (await res.json()) as ApiError;
    throw new Error(body.error.code + ': ' + body.error.message);
  }
  const page = (await res.json()) as AlertPage;
  const severity: 'error' | 'info' | undefined = page.value[0]?.severity;
  const resolvedAt: string | null | undefined = page.value[0]?.resolvedAt;
  void severity;
  void resolvedAt;
  return page.value;
}

export function median(m: Metrics): number | null {
  return m.mtta.medianSeconds;
}

export function breaches(s: Sla): string[] {
  return s.availability.filter((a) => !a.meetsTarget).map((a) => a.capacityName);
}

export const firstOpen: AlertsQuery = { status: 'open', pageSize: 50, page: 2, format: 'csv', sourceType: 'Gateway' };
const notFound: operations['listAlerts']['responses'][404]['content']['application/json'] = { error: { code: 'not_found', message: 'no such route' } };
void notFound;
`;

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
      expect(Object.keys(op.responses).sort(), path).toEqual(['200', '400', '401', '403', '404', '405', '429']);
      for (const r of Object.values<any>(op.responses)) expect(typeof r.description).toBe('string');
      for (const code of ['400', '401', '403', '404', '405', '429']) {
        expect(op.responses[code].content['application/json'].schema, `${path} ${code}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
      expect(Object.keys(op.responses['429'].headers).sort(), path).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']);
      expect(op.responses['429'].headers['Retry-After'].schema).toEqual({ type: 'integer' });
      expect(Object.keys(op.responses['405'].headers), path).toEqual(['Allow']);
      expect(op.responses['200'].headers['RateLimit-Remaining'].schema, path).toEqual({ type: 'integer' });
      expect(op.security).toEqual([{ apiKeyHeader: [] }, { apiKeyAuthorization: [] }]);
    }
    expect(doc.paths['/api/public/v1/alerts'].get.responses['200'].content['text/csv']).toBeTruthy();
    const page = doc.paths['/api/public/v1/alerts'].get.parameters.find((p: any) => p.name === 'pageSize');
    expect(page.schema).toEqual({ type: 'integer', minimum: 1, maximum: 500, default: 100 });
    expect(doc.paths['/api/public/v1/alerts'].get.responses['200'].headers['Content-Disposition']).toBeTruthy();
  });

  it('names every operation and the shared schemas, and describes itself without repository paths', () => {
    for (const [path, id] of Object.entries(OPERATION_IDS)) expect(doc.paths[path].get.operationId, path).toBe(id);
    expect(Object.keys(doc.components.schemas).sort()).toEqual([
      'Alert',
      'AlertMetrics',
      'AlertPage',
      'Capacity',
      'CapacityAvailability',
      'CapacityPage',
      'CapacityUtilization',
      'CapacityUtilizationPage',
      'DailyCost',
      'DailyCostPage',
      'DurationStats',
      'Error',
      'NoisySource',
      'SlaReport',
      'SourceTypeCount',
      'Workspace',
      'WorkspacePage',
    ]);
    expect(doc.components.schemas.Error.required).toEqual(['error']);
    expect(doc.components.schemas.AlertPage.properties.value.items).toEqual({ $ref: '#/components/schemas/Alert' });
    expect(doc.paths['/api/public/v1/alerts'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/AlertPage',
    });
    expect(doc.info.description.length).toBeGreaterThan(40);
    expect(doc.info.description).not.toMatch(/\b(docs|src|test|bench)\/|\.(md|ts|js)\b|SPEC|CONTRACT/);
  });

  it('generates TypeScript types (openapi-typescript) that a small client type-checks against', async () => {
    const types = astToString(await openapiTS(doc));
    expect(types).toContain('listAlerts');
    expect(await typeCheck({ 'api.ts': types, 'client.ts': CLIENT })).toEqual([]);
    // The check has teeth: a value the document forbids is a type error.
    const wrong = await typeCheck({ 'api.ts': types, 'client.ts': `${CLIENT}\nexport const bad: AlertsQuery = { status: 'closed' };\n` });
    expect(wrong.join('\n')).toMatch(/closed/);
  });

  it('contains only valid JSON Schema 2020-12, and every $ref names a component schema', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const s of schemasOf(doc)) {
      expect(() => ajv.compile(deref(s, doc.components.schemas) as object)).not.toThrow();
    }
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(Object.keys(doc.components.schemas)).toContain(ref.replace('#/components/schemas/', ''));
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

/**
 * Loads the vendors' published API descriptions from ../shared/vendor-specs and checks requests
 * against them: operation (method + path template), required path/query parameters and their
 * enums, and the JSON body against the operation's schema (type, required, properties, enum,
 * items, allOf, $ref, maxLength). The vendors' documented limits that the files do not encode
 * are checked by each fake on top of this.
 *
 * Deliberately small: it covers the JSON-Schema subset these three files use.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
export const VENDOR_SPECS_DIR = process.env.VIGIA_VENDOR_SPECS ?? path.resolve(here, '../../../shared/vendor-specs');

type Schema = Record<string, any>;
export interface ApiDoc {
  /** Swagger 2 `definitions`/`parameters` or OpenAPI 3 `components`; $refs resolve against it. */
  root: Schema;
  /** Path templates relative to the fake's root ('/v2/enqueue', '/v2/alerts/{identifier}/close', …). */
  paths: Record<string, Record<string, Schema>>;
  /**
   * Azure DevOps' generator writes C# `object` (any value) as a bare `type: object` — e.g.
   * JsonPatchOperation.value, which is a string for most fields. When set, a bare object schema
   * (no properties, no allOf) accepts any value.
   */
  bareObjectIsAny?: boolean;
}

function readText(rel: string): string {
  // Azure DevOps' file starts with a UTF-8 byte-order mark.
  return readFileSync(path.join(VENDOR_SPECS_DIR, rel), 'utf8').replace(/^\uFEFF/, '');
}

export function loadPagerDuty(): ApiDoc {
  const doc = JSON.parse(readText('pagerduty/events-v2-openapiv3.json'));
  // servers[0] is https://events.pagerduty.com/v2: prefix the paths with /v2.
  const prefix = new URL(doc.servers[0].url).pathname.replace(/\/$/, '');
  const paths = Object.fromEntries(Object.entries(doc.paths).map(([p, v]) => [`${prefix}${p}`, v as Record<string, Schema>]));
  return { root: doc, paths };
}

export function loadOpsgenie(): ApiDoc {
  const definitions = parseYaml(readText('opsgenie/definitions-alert.yaml'));
  const parameters = parseYaml(readText('opsgenie/parameters-alert.yaml'));
  const paths = parseYaml(readText('opsgenie/paths-alert.yaml'));
  return { root: { definitions, parameters }, paths };
}

export function loadAzureDevOps(): ApiDoc {
  const doc = JSON.parse(readText('azure-devops/workItemTracking-7.1.json'));
  return { root: doc, paths: doc.paths, bareObjectIsAny: true };
}

export function resolveRef(root: Schema, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string' && i < 20; i++) {
    const parts = s.$ref.replace(/^#\//, '').split('/');
    s = parts.reduce((node: any, key: string) => node?.[key], root);
    if (!s) throw new Error(`unresolved $ref ${schema.$ref}`);
  }
  return s;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Errors of `value` against `schema` (empty when valid). */
export function validateSchema(root: Schema, schema: Schema | undefined, value: unknown, at = 'body', bareObjectIsAny = false): string[] {
  if (!schema) return [];
  const s = resolveRef(root, schema);
  if (bareObjectIsAny && s.type === 'object' && !s.properties && !s.allOf && !s.additionalProperties) return [];
  const errors: string[] = [];
  const allOf: Schema[] = Array.isArray(s.allOf) ? s.allOf : [];
  // Azure DevOps' JsonPatchDocument says `type: object` with `allOf: [array of operations]`:
  // the body is really an array, so a type in allOf overrides the outer one.
  const allOfTypes = allOf.map((x) => resolveRef(root, x).type).filter(Boolean);
  const type = allOfTypes.length > 0 ? undefined : s.type;
  const actual = typeOf(value);
  if (type) {
    const ok = type === actual || (type === 'number' && actual === 'integer');
    if (!ok) return [`${at}: expected ${type}, got ${actual}`];
  }
  if (Array.isArray(s.enum) && !s.enum.includes(value)) errors.push(`${at}: ${JSON.stringify(value)} is not one of ${s.enum.join(', ')}`);
  if (typeof value === 'string') {
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) errors.push(`${at}: longer than ${s.maxLength}`);
    if (typeof s.minLength === 'number' && value.length < s.minLength) errors.push(`${at}: shorter than ${s.minLength}`);
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) errors.push(`${at}: below ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) errors.push(`${at}: above ${s.maximum}`);
  }
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    for (const req of (s.required as string[] | undefined) ?? []) {
      if (obj[req.trim()] === undefined) errors.push(`${at}.${req.trim()}: required`);
    }
    // Keys are trimmed: Opsgenie's file spells one property "priority " (with a space).
    const props: Record<string, Schema> = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k.trim(), v as Schema]));
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) errors.push(...validateSchema(root, props[k], v, `${at}.${k}`, bareObjectIsAny));
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') errors.push(...validateSchema(root, s.additionalProperties, v, `${at}.${k}`, bareObjectIsAny));
    }
  }
  if (actual === 'array' && s.items) {
    (value as unknown[]).forEach((item, i) => {
      errors.push(...validateSchema(root, s.items, item, `${at}[${i}]`, bareObjectIsAny));
    });
  }
  for (const sub of allOf) errors.push(...validateSchema(root, sub, value, at, bareObjectIsAny));
  return errors;
}

export interface MatchedOperation {
  template: string;
  operation: Schema;
  pathParams: Record<string, string>;
}

/** Finds the operation for a method and a path (relative to the fake's root). */
export function matchOperation(doc: ApiDoc, method: string, pathname: string): MatchedOperation | null {
  const segs = pathname.split('/');
  let best: MatchedOperation | null = null;
  let bestLiterals = -1;
  for (const [template, item] of Object.entries(doc.paths)) {
    const op = item[method.toLowerCase()];
    if (!op) continue;
    const tsegs = template.split('/');
    if (tsegs.length !== segs.length) continue;
    const params: Record<string, string> = {};
    let literals = 0;
    let ok = true;
    for (let i = 0; i < tsegs.length && ok; i++) {
      const t = tsegs[i]!;
      const m = /^(.*)\{([^}]+)\}(.*)$/.exec(t);
      const seg = decodeURIComponent(segs[i]!);
      if (m) {
        const [, pre, name, post] = m;
        if (seg.startsWith(pre!) && seg.endsWith(post!) && seg.length > pre!.length + post!.length) params[name!] = seg.slice(pre!.length, seg.length - post!.length);
        else ok = false;
      } else if (t.toLowerCase() === seg.toLowerCase()) literals++;
      else ok = false;
    }
    // The most literal template wins (/v2/alerts/requests/{id} over /v2/alerts/{identifier}/…).
    if (ok && literals > bestLiterals) {
      best = { template, operation: op, pathParams: params };
      bestLiterals = literals;
    }
  }
  return best;
}

/**
 * Checks the parameters and JSON body of a matched operation; returns the violations.
 * `body` is the parsed JSON (undefined when there was none).
 */
export function validateOperation(doc: ApiDoc, m: MatchedOperation, query: URLSearchParams, body: unknown): string[] {
  const errors: string[] = [];
  for (const raw of (m.operation.parameters ?? []) as Schema[]) {
    const p = resolveRef(doc.root, raw);
    if (p.in === 'path' && p.required && !m.pathParams[p.name]) errors.push(`path parameter ${p.name}: required`);
    if (p.in === 'query') {
      const v = query.get(p.name);
      if (v === null) {
        if (p.required) errors.push(`query parameter ${p.name}: required`);
      } else if (Array.isArray(p.enum) && !p.enum.includes(v)) errors.push(`query parameter ${p.name}: ${v} is not one of ${p.enum.join(', ')}`);
    }
    if (p.in === 'body') {
      if (body === undefined) {
        if (p.required) errors.push('body: required');
      } else errors.push(...validateSchema(doc.root, p.schema, body, 'body', doc.bareObjectIsAny));
    }
  }
  const rb = m.operation.requestBody;
  if (rb) {
    const schema = rb.content?.['application/json']?.schema;
    if (body === undefined) {
      if (rb.required) errors.push('body: required');
    } else errors.push(...validateSchema(doc.root, schema, body, 'body', doc.bareObjectIsAny));
  }
  return errors;
}

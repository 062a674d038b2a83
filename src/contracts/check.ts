/**
 * Checks requests against a contract. Deliberately small: it covers the JSON-Schema subset the
 * contracts keep (type, required, properties, enum, items, allOf, anyOf, $ref, pattern, lengths,
 * bounds, item counts, additionalProperties). The vendors' documented limits that the descriptions do not encode are
 * checked by each caller on top of this.
 */

// Vendor schemas are open-ended JSON; the checker walks them without a static shape.
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Schema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'body';
  required?: boolean;
  enum?: string[];
  /** A path parameter that spans several segments (Azure's `{scope}`). */
  multiSegment?: boolean;
  schema?: Schema;
}

export interface Operation {
  operationId: string;
  parameters: Parameter[];
  /** The `api-version` query value the operation needs. */
  apiVersion?: string;
  consumes?: string[];
  responses?: Record<string, { schema?: Schema; headers?: string[] }>;
  longRunning?: boolean;
  nextLinkName?: string | null;
}

export interface ApiDoc {
  /** Object holding `definitions`; `$ref`s (`#/definitions/…`) resolve against it. */
  root: Schema;
  /** Path template → method (lower case) → operation. */
  paths: Record<string, Record<string, Operation>>;
  /**
   * Azure DevOps' generator writes C# `object` (any value) as a bare `type: object` — e.g.
   * JsonPatchOperation.value, which is a string for most fields. When set, a bare object schema
   * (no properties, no allOf) accepts any value.
   */
  bareObjectIsAny?: boolean;
}

export function resolveRef(root: Schema, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string' && i < 20; i++) {
    const parts = s.$ref.replace(/^#\//, '').split('/');
    // biome-ignore lint/suspicious/noExplicitAny: walking a JSON document
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
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) errors.push(`${at}: does not match ${s.pattern}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) errors.push(`${at}: more than ${s.maxItems} items`);
    if (typeof s.minItems === 'number' && value.length < s.minItems) errors.push(`${at}: fewer than ${s.minItems} items`);
  }
  if (Array.isArray(s.anyOf)) errors.push(...anyOfErrors(root, s.anyOf as Schema[], value, at, bareObjectIsAny));
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
      else if (s.additionalProperties === false) errors.push(`${at}.${k}: not allowed`);
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

/** `anyOf`: valid when one alternative is; otherwise the closest alternative's errors (fewest). */
function anyOfErrors(root: Schema, alternatives: Schema[], value: unknown, at: string, bareObjectIsAny: boolean): string[] {
  let best: string[] | null = null;
  for (const alt of alternatives) {
    const errs = validateSchema(root, alt, value, at, bareObjectIsAny);
    if (errs.length === 0) return [];
    if (!best || errs.length < best.length) best = errs;
  }
  return best ? [`${at}: matches none of ${alternatives.length} alternatives`, ...best] : [];
}

export interface MatchedOperation {
  template: string;
  operation: Operation;
  pathParams: Record<string, string>;
}

interface CompiledTemplate {
  template: string;
  regex: RegExp;
  names: string[];
  literals: number;
}

const compiled = new WeakMap<ApiDoc, Map<string, CompiledTemplate[]>>();

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One regular expression per (template, method); multi-segment parameters match across '/'. */
function templatesFor(doc: ApiDoc, method: string): CompiledTemplate[] {
  let byMethod = compiled.get(doc);
  if (!byMethod) {
    byMethod = new Map();
    compiled.set(doc, byMethod);
  }
  const cached = byMethod.get(method);
  if (cached) return cached;
  const list: CompiledTemplate[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const op = item[method];
    if (!op) continue;
    const multi = new Set(op.parameters.filter((p) => p.in === 'path' && p.multiSegment).map((p) => p.name));
    const names: string[] = [];
    let literals = 0;
    const source = template
      .split('/')
      .map((seg) => {
        let out = '';
        let rest = seg;
        let sawLiteral = false;
        for (let m = /\{([^}]+)\}/.exec(rest); m; m = /\{([^}]+)\}/.exec(rest)) {
          if (m.index > 0) sawLiteral = true;
          out += escapeRegex(rest.slice(0, m.index));
          names.push(m[1]!);
          out += multi.has(m[1]!) ? '(.+?)' : '([^/]+)';
          rest = rest.slice(m.index + m[0].length);
        }
        if (rest) sawLiteral = true;
        out += escapeRegex(rest);
        if (sawLiteral || seg === '') literals++;
        return out;
      })
      .join('/');
    list.push({ template, regex: new RegExp(`^${source}$`, 'i'), names, literals });
  }
  // The most literal template wins (/v2/alerts/requests/{id} over /v2/alerts/{identifier}/…).
  list.sort((a, b) => b.literals - a.literals);
  byMethod.set(method, list);
  return list;
}

/** Finds the operation for a method and a path (relative to the contract's root). */
export function matchOperation(doc: ApiDoc, method: string, pathname: string): MatchedOperation | null {
  const m = method.toLowerCase();
  for (const t of templatesFor(doc, m)) {
    const hit = t.regex.exec(pathname);
    if (!hit) continue;
    const pathParams: Record<string, string> = {};
    let ok = true;
    t.names.forEach((name, i) => {
      let v = hit[i + 1]!;
      try {
        v = decodeURIComponent(v);
      } catch {
        ok = false;
      }
      pathParams[name] = v;
    });
    if (ok) return { template: t.template, operation: doc.paths[t.template]![m]!, pathParams };
  }
  return null;
}

/**
 * Checks the parameters and JSON body of a matched operation; returns the violations.
 * `body` is the parsed JSON (undefined when there was none); `headers` are lower-cased names.
 */
export function validateOperation(doc: ApiDoc, m: MatchedOperation, query: URLSearchParams, body: unknown, headers: Record<string, unknown> = {}): string[] {
  const errors: string[] = [];
  for (const p of m.operation.parameters) {
    if (p.in === 'path' && p.required && !m.pathParams[p.name]) errors.push(`path parameter ${p.name}: required`);
    if (p.in === 'path' && p.enum && m.pathParams[p.name] !== undefined && !p.enum.includes(m.pathParams[p.name]!)) {
      errors.push(`path parameter ${p.name}: ${m.pathParams[p.name]} is not one of ${p.enum.join(', ')}`);
    }
    if (p.in === 'query') {
      const v = query.get(p.name);
      if (v === null) {
        if (p.required) errors.push(`query parameter ${p.name}: required`);
      } else if (Array.isArray(p.enum) && !p.enum.includes(v)) errors.push(`query parameter ${p.name}: ${v} is not one of ${p.enum.join(', ')}`);
    }
    if (p.in === 'header' && p.required && headers[p.name.toLowerCase()] === undefined) errors.push(`header ${p.name}: required`);
    if (p.in === 'body') {
      if (body === undefined) {
        if (p.required) errors.push('body: required');
      } else errors.push(...validateSchema(doc.root, p.schema, body, 'body', doc.bareObjectIsAny));
    }
  }
  const version = m.operation.apiVersion;
  if (version && query.get('api-version') !== null && query.get('api-version') !== version) {
    errors.push(`api-version must be ${version}, got ${query.get('api-version')}`);
  }
  return errors;
}

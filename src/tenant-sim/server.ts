/**
 * The simulator's request pipeline: record → (control | token | API). An API request is matched
 * to its vendor operation in the committed contracts (strict mode: checked against them, a
 * violation recorded and answered 400), then the bearer token's audience, the tenant settings,
 * the caps and storms, the programmed faults, and finally the operation's handler. Strict mode
 * also holds the simulator's own 2xx answers to the contract's response schema.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiDoc, loadContract, matchOperation, validateOperation, validateSchema } from '../contracts/index.js';
import { AZURE_HANDLERS } from './azure.js';
import { controlRequest } from './control-http.js';
import { audienceOf } from './entra.js';
import { FABRIC_HANDLERS } from './fabric.js';
import { FABRIC_ITEM_HANDLERS } from './fabric-items.js';
import { POWERBI_HANDLERS } from './powerbi.js';
import { SCANNER_HANDLERS } from './scanner.js';
import { errorFor, kindOf, throttled, unauthorized, type ApiKind } from './refusals.js';
import { fabricError, type Handler, powerBiError, type Reply, type RequestContext } from './reply.js';
import type { SimRuntime } from './runtime.js';
import { tokenRequest } from './token-http.js';
import { kustoError, kustoQuery } from './kusto.js';
import type { Faults } from './control-kit.js';
import type { ApiFamily, RecordedRequest } from './types.js';

const MAX_REQUEST_BYTES = 1 << 20;

const CONTRACTS: Record<ApiKind, ApiDoc> = {
  powerbi: loadContract('powerbi'),
  fabric: loadContract('fabric'),
  azure: loadContract('azure-resource-manager'),
};

const HANDLERS: Record<ApiKind, Record<string, Handler>> = {
  powerbi: { ...POWERBI_HANDLERS, ...SCANNER_HANDLERS },
  fabric: { ...FABRIC_HANDLERS, ...FABRIC_ITEM_HANDLERS },
  azure: AZURE_HANDLERS,
};

/** Which API family a path belongs to. */
export function familyOf(path: string): RecordedRequest['family'] {
  const p = path.toLowerCase();
  if (p.startsWith('/_sim/') || p === '/_sim') return 'control';
  if (p.startsWith('/v1.0/myorg/admin/')) return 'powerbi-admin';
  if (p.startsWith('/v1.0/myorg/')) return 'powerbi';
  // Kusto's management endpoint shares Fabric's /v1 prefix: it is told apart first.
  if (p.startsWith('/v1/rest/') || p.startsWith('/v2/rest/')) return 'kusto';
  if (p.startsWith('/v1/admin/')) return 'fabric-admin';
  if (p.startsWith('/v1/')) return 'fabric';
  if (p.includes('/providers/microsoft.costmanagement/')) return 'cost';
  if (p.startsWith('/subscriptions/')) return 'arm';
  if (/^\/[^/]+\/(oauth2\/v2\.0\/token|v2\.0\/\.well-known\/openid-configuration|discovery\/v2\.0\/keys)$/.test(p) || p === '/common/discovery/instance') return 'token';
  return 'unknown';
}

// ---------- the pipeline ----------

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The transport faults a test switched on (garbage, odd and huge answers): true when one answered. */
function answerFault(faults: Faults, family: ApiFamily, path: string, res: ServerResponse, rec: RecordedRequest): boolean {
  for (const g of faults.garbage) {
    if (targetMatches(g, family, path)) {
      rec.status = 200;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end('{"value":[{"id":"<html><body>Service Unavailable</body></html>\u0000\u00ff');
      return true;
    }
  }
  for (const [target, body] of faults.odd) {
    if (targetMatches(target, family, path)) {
      send(res, rec, { status: 200, body });
      return true;
    }
  }
  for (const [target, bytes] of faults.huge) {
    if (targetMatches(target, family, path)) {
      sendHuge(res, rec, bytes);
      return true;
    }
  }
  return false;
}

function send(res: ServerResponse, rec: RecordedRequest, reply: Reply): void {
  rec.status = reply.status;
  if (reply.status === 429) rec.throttled = true;
  const headers: Record<string, string> = { ...(reply.headers ?? {}) };
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const payload = JSON.stringify(reply.body);
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/** A valid-looking JSON list of about `bytes` bytes, written in chunks as the client reads. */
async function sendHuge(res: ServerResponse, rec: RecordedRequest, bytes: number): Promise<void> {
  rec.status = 200;
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  const entry = `{"id":"${randomUUID()}","name":"${'x'.repeat(200)}"},`;
  const chunk = entry.repeat(Math.max(1, Math.floor(65_536 / entry.length)));
  let written = 0;
  res.write('{"value":[');
  while (written < bytes && !res.destroyed) {
    written += chunk.length;
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  res.end('{}]}');
}

function targetMatches(target: string, family: string, path: string): boolean {
  return target === family || path.toLowerCase().startsWith(target.toLowerCase());
}

export async function handleRequest(rt: SimRuntime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', rt.origin || 'https://127.0.0.1');
  const path = url.pathname;
  const query = url.searchParams;
  const method = (req.method ?? 'GET').toUpperCase();
  const family = familyOf(path);
  const rec: RecordedRequest = { method, path, query: Object.fromEntries(query), family, at: rt.now(), status: 0, throttled: false };
  rt.requests.push(rec);
  const violate = (msg: string) => rt.violations.push(`${method} ${path}: ${msg}`);

  const raw = await readBody(req);
  if (raw === null) return send(res, rec, { status: 413, body: { error: { code: 'RequestEntityTooLarge', message: 'Request body too large.' } } });
  const text = raw.toString('utf8');
  const contentType = String(req.headers['content-type'] ?? '').toLowerCase();

  if (family === 'control') return send(res, rec, controlRequest(rt, method, path, text));
  if (family === 'token') return send(res, rec, tokenRequest(rt, method, path, text, contentType, violate));
  if (family === 'kusto') return send(res, rec, eventhouseRequest(rt, req, method, path, text, violate));
  if (family === 'unknown') {
    if (rt.strict) violate('no vendor operation');
    return send(res, rec, { status: 404, body: { error: { code: 'NotFound', message: `No route for ${method} ${path}.` } } });
  }

  const op = vendorOperation(rt, req, rec, { family, query, text, contentType, violate });
  if ('refused' in op) return send(res, rec, op.refused);
  const refusal = gateRefusal(rt, req, family, path, rec);
  if (refusal) return send(res, rec, refusal);
  if (answerFault(rt.faults, family, path, res, rec)) return;

  const ctx: RequestContext = {
    state: rt.state(),
    origin: rt.origin,
    method,
    path,
    query,
    json: op.json,
    pathParams: op.m.pathParams,
    now: rt.now(),
    fabricPageSize: family === 'fabric-admin' ? rt.fabricAdminPageSize : rt.fabricPageSize,
    costPageRows: rt.costPageRows,
    operations: rt.operations,
    scanner: rt.scanner,
    strict: rt.strict,
    violate,
  };
  const handler = HANDLERS[op.kind][op.m.operation.operationId];
  const reply = handler ? handler(ctx) : errorFor(family, 501, 'NotImplemented', `The simulator does not serve ${op.m.operation.operationId}.`);
  if (rt.strict) checkAnswer(op.contract, op.m, reply, violate);
  send(res, rec, reply);
}

type Operation = NonNullable<ReturnType<typeof matchOperation>>;

/**
 * The vendor operation a request asks for (recorded in `rec`), with its JSON body: in strict mode checked against the
 * contract (a violation recorded and answered 400); `refused` is the answer when there is none.
 */
function vendorOperation(
  rt: SimRuntime,
  req: IncomingMessage,
  rec: RecordedRequest,
  r: { family: ApiFamily; query: URLSearchParams; text: string; contentType: string; violate: (msg: string) => void },
): { refused: Reply } | { kind: ApiKind; contract: ApiDoc; m: Operation; json: unknown } {
  const { method, path } = rec;
  const { family, text, violate } = r;
  const kind = kindOf(family)!;
  const contract = CONTRACTS[kind];
  const m = matchOperation(contract, method, path);
  if (!m) {
    if (rt.strict) {
      violate('no vendor operation');
      return { refused: errorFor(family, 400, 'InvalidRequest', `No operation ${method} ${path} in the vendor's API description.`) };
    }
    return { refused: errorFor(family, 404, kind === 'fabric' ? 'EntityNotFound' : 'NotFound', `No route for ${method} ${path}.`) };
  }
  rec.operationId = m.operation.operationId;
  let json: unknown;
  if (text !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      if (rt.strict) violate('body is not JSON');
      return { refused: errorFor(family, 400, 'InvalidRequest', 'The request body is not valid JSON.') };
    }
  }
  if (rt.strict) {
    const errors = validateOperation(contract, m, r.query, json, req.headers as Record<string, unknown>);
    if (text !== '' && !r.contentType.startsWith('application/json')) errors.push('Content-Type must be application/json');
    if (errors.length > 0) {
      violate(errors.join('; '));
      return { refused: errorFor(family, 400, 'InvalidRequest', errors.join('; ')) };
    }
  }
  return { kind, contract, m, json };
}

/** The bearer token's audience, the tenant settings, then the caps and storms: the refusal, or null. */
function gateRefusal(rt: SimRuntime, req: IncomingMessage, family: ApiFamily, path: string, rec: RecordedRequest): Reply | null {
  const reason = rt.entra.verifyBearer(req.headers.authorization, audienceOf(family)!);
  if (reason) return unauthorized(family, reason);
  if (rt.state().settings.adminApisForbidden && (family === 'powerbi-admin' || family === 'fabric-admin')) {
    return family === 'powerbi-admin'
      ? powerBiError(401, 'PowerBINotAuthorizedException', 'The service principal is not allowed to use the read-only admin APIs (tenant settings).')
      : fabricError(403, 'InsufficientPrivileges', 'The caller is not allowed to use the admin APIs: check the tenant settings for service principals.');
  }
  const refusal = rt.limits.admit(family, path);
  if (refusal) {
    rec.throttleReason = refusal.reason;
    return throttled(family, refusal);
  }
  return null;
}

/** Strict mode: the simulator's own 2xx answer held to the contract's response schema. */
function checkAnswer(contract: ApiDoc, m: Operation, reply: Reply, violate: (msg: string) => void): void {
  if (reply.status < 200 || reply.status >= 300 || reply.body === undefined) return;
  const schema = m.operation.responses?.[String(reply.status)]?.schema;
  if (schema && schema.type !== 'file') {
    const errors = validateSchema(contract.root, schema, reply.body, 'response', contract.bareObjectIsAny);
    if (errors.length > 0) violate(`simulator answered out of contract: ${errors.slice(0, 5).join('; ')}`);
  }
}

/** The simulated Eventhouse's query endpoint: bearer of the Kusto audience, storms, then the query. */
function eventhouseRequest(rt: SimRuntime, req: IncomingMessage, method: string, path: string, text: string, violate: (m: string) => void): Reply {
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    if (rt.strict) violate('body is not JSON');
    return kustoError(400, 'General_BadRequest', 'The request body is not valid JSON.');
  }
  const reason = rt.entra.verifyBearer(req.headers.authorization, audienceOf('kusto')!);
  // Kusto answers 401 without a body.
  if (reason) return { status: 401, headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${reason}"` } };
  const refusal = rt.limits.admit('kusto', path);
  if (refusal) {
    const r = kustoError(429, 'TooManyRequests', 'The request was denied due to throttling. QueryThrottledException: retry after back-off.', false);
    r.headers = { ...r.headers, 'Retry-After': String(refusal.retryAfterSeconds) };
    return r;
  }
  return kustoQuery(rt.state(), path, method, json, { now: rt.now(), headers: req.headers as Record<string, unknown>, violate, strict: rt.strict });
}

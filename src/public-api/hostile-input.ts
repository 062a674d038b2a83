import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalidRequest, sendError } from '../http/errors.js';

/**
 * Guards of the public API against hostile input, installed once on its scope:
 *  - it never reads or parses a request body: no content-type parsers exist in the scope, any
 *    method but GET/HEAD is answered at once (405/404), and a request that announces a body is
 *    answered with `Connection: close`, so the unread body is dropped with the connection;
 *  - query and path parameters with control characters (NUL included) are refused with 400
 *    before any handler or query sees them (PostgreSQL rejects NUL in text with a 500).
 */

/** Path (under the prefix) → the only methods it answers. */
const KNOWN_PATHS = new Set(['/alerts', '/alerts/metrics', '/capacities', '/workspaces', '/costs/daily', '/sla', '/openapi.json']);
const PREFIX = '/api/public/v1';

// C0 controls, DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/** 405 for another method on a known path, 404 for another method elsewhere; null for GET/HEAD. */
function wrongMethod(request: FastifyRequest): ApiError | null {
  if (request.method === 'GET' || request.method === 'HEAD') return null;
  const path = request.url.split('?')[0]!.slice(PREFIX.length).replace(/\/+$/, '');
  if (!KNOWN_PATHS.has(path)) return new ApiError(404, 'not_found', 'no such route');
  // The method is one Node's parser accepts, but it is still request text: keep it out of the answer.
  return new ApiError(405, 'method_not_allowed', 'only GET and HEAD are allowed; use GET', { allow: 'GET, HEAD' });
}

function announcesBody(request: FastifyRequest): boolean {
  const h = request.headers;
  return h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0');
}

/** Sends the refusal and closes the connection, so a body behind it is never read. */
function refuse(reply: FastifyReply, err: ApiError): FastifyReply {
  reply.header('connection', 'close');
  return sendError(reply, err);
}

function checkParameters(kind: 'query' | 'path', params: unknown): void {
  if (!params || typeof params !== 'object') return;
  for (const [name, value] of Object.entries(params as Record<string, unknown>)) {
    const values = Array.isArray(value) ? value : [value];
    if (CONTROL.test(name)) throw invalidRequest(`a ${kind} parameter name contains control characters`);
    if (values.some((v) => typeof v === 'string' && CONTROL.test(v))) {
      const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
      throw invalidRequest(`${kind} parameter "${shown}" contains control characters`);
    }
  }
}

export function installHostileInputGuards(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();

  // Runs before the key check of the routes below it: both refusals here cost nothing and
  // reveal nothing, and they keep a flood of bodies from ever being read.
  app.addHook('onRequest', async (request, reply) => {
    const refusal = wrongMethod(request);
    if (refusal) return refuse(reply, refusal);
    if (announcesBody(request)) reply.header('connection', 'close');
  });

  // After authentication and the limits (onRequest), before validation and handlers.
  app.addHook('preValidation', async (request) => {
    checkParameters('query', request.query);
    checkParameters('path', request.params);
  });
}

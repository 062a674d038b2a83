import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { type AuditEvent, type AuditScope, closeAuditScope, flushAuditScope, runInAuditScope } from '../access/audit-context.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const VERB: Record<string, string> = { POST: 'create', PUT: 'put', PATCH: 'update', DELETE: 'delete' };
const PREFIX = '/api/admin/v1';

/**
 * The action name of a route: its fixed path segments joined by dots (without the `orgs`
 * scope), then the verb; a POST whose last segment is a word after an id names the action
 * itself ("alerts.acknowledge", "destinations.rotate-secret").
 */
export function actionName(method: string, routeUrl: string): string {
  const segments = routeUrl.replace(PREFIX, '').split('/').filter(Boolean);
  const scoped = segments[0] === 'orgs' && segments[1] === ':orgId' && segments.length > 2 ? segments.slice(2) : segments;
  const fixed = scoped.filter((s) => !s.startsWith(':'));
  const last = scoped[scoped.length - 1];
  const namedAction = method === 'POST' && last !== undefined && !last.startsWith(':') && scoped.length >= 3 && scoped[scoped.length - 2]!.startsWith(':');
  return namedAction ? fixed.join('.') : `${fixed.join('.')}.${VERB[method] ?? method.toLowerCase()}`;
}

function lastParam(request: FastifyRequest): string | null {
  const params = (request.params ?? {}) as Record<string, string>;
  const names = (request.routeOptions.url ?? '').split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));
  const target = names.filter((n) => n !== 'orgId').pop();
  return target ? (params[target] ?? null) : null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's audit scope (src/access/audit-context.ts), from preHandler on. */
    auditScope?: AuditScope;
  }
}

/**
 * The request's own entry: the action, the organization of the path (none: an instance-level
 * entry), the target, and as `changes` only the body its schema validated — a route without a
 * body schema records none of what was sent (an `acknowledge {"by": …}` cannot name a false actor).
 */
function requestEntry(request: FastifyRequest): AuditEvent {
  const params = (request.params ?? {}) as Record<string, string>;
  const orgId = params.orgId ?? null;
  const validated = (request.routeOptions.schema as { body?: unknown } | undefined)?.body !== undefined;
  const body = validated ? request.body : undefined;
  return {
    action: actionName(request.method, request.routeOptions.url ?? ''),
    orgIds: orgId === null ? [] : [orgId],
    target: lastParam(request) ?? orgId,
    changes: body === undefined || body === null ? {} : typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { body },
  };
}

/**
 * Every successful change made through the admin API (and so through the console) is recorded:
 * who, when, from which address, the action, its target and the validated fields (secrets
 * redacted), in the same transaction as the change (src/access/audit-context.ts). Installed once
 * on the admin scope, whose routes get the audited database (`auditedDatabase`): each request
 * runs in an audit scope opened here, after validation; what no transaction wrote is written
 * when a successful answer leaves. A failed change (4xx/5xx) records nothing it did not commit.
 */
export function installAuditLog(app: FastifyInstance, ctx: AppContext): void {
  // Callback style: the scope must enclose the handler, which runs from `done`'s call chain.
  app.addHook('preHandler', (request, _reply, done) => {
    const scope: AuditScope = {
      actor: () => request.principal,
      address: request.ip,
      now: () => ctx.clock.now(),
      request: SAFE_METHODS.has(request.method) ? null : requestEntry(request),
      notes: [],
    };
    request.auditScope = scope;
    runInAuditScope(scope, done);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const scope = request.auditScope;
    if (!scope) return payload;
    try {
      if (reply.statusCode < 400) await flushAuditScope(ctx.db, scope);
    } finally {
      closeAuditScope(scope);
    }
    return payload;
  });
}

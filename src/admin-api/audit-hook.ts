import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { recordAudit } from '../access/audit.js';

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

/**
 * Every successful change made through the admin API (and so through the console) is written
 * to the audit log before the answer leaves: who, when, from which address, the action, its
 * target and the fields sent (secrets redacted). Installed once on the admin scope.
 */
export function installAuditLog(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (SAFE_METHODS.has(request.method) || reply.statusCode >= 400 || !request.principal) return payload;
    const params = (request.params ?? {}) as Record<string, string>;
    let orgId: string | null = params.orgId ?? null;
    let target = lastParam(request);
    if (target === null && typeof payload === 'string' && reply.statusCode === 201) {
      try {
        const created = JSON.parse(payload) as { id?: unknown };
        if (typeof created.id === 'string') target = created.id;
      } catch {
        // not JSON: no created id to name
      }
    }
    // Creating an organization is recorded in that organization's log.
    if (orgId === null && request.routeOptions.url === `${PREFIX}/orgs` && target !== null) orgId = target;
    await recordAudit(ctx.db, {
      principal: request.principal,
      orgId,
      address: request.ip,
      action: actionName(request.method, request.routeOptions.url ?? ''),
      target: target ?? orgId,
      changes: request.body ?? {},
      at: ctx.clock.now(),
    });
    return payload;
  });
}

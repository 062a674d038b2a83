import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { rejectNulCharacters } from '../http/nul-guard.js';
import { installAdminAuth } from './auth.js';
import { installAuditLog } from './audit-hook.js';
import { peopleRoutes } from './people.js';
import { oidcRoutes } from './oidc.js';
import { createSignInLimiter, sessionRoutes } from './session.js';
import { orgsRoutes } from './orgs.js';
import { apiKeysRoutes } from './api-keys.js';
import { inventoryRoutes } from './inventory.js';
import { alertsRoutes } from './alerts.js';
import { destinationsRoutes } from './destinations.js';
import { inboundAdminRoutes } from './inbound.js';
import { deliveriesRoutes } from './deliveries.js';
import { alertViewsRoutes } from './alert-views.js';
import { tenantsRoutes } from './tenants.js';
import { freshnessRoutes } from './freshness.js';
import { installAdminOpenApi } from './openapi.js';
import { overviewRoutes } from './overview.js';
import { monitoredInventoryRoutes } from './monitored-inventory.js';

/** Admin API plugin, mounted at /api/admin/v1 (docs/admin-api.md). */
export async function adminApi(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  // Who may call which route: one hook for every route of this scope (routes declare `access`).
  installAdminAuth(app, opts.ctx);
  // Every successful change is written to the audit log.
  installAuditLog(app, opts.ctx);
  // Before the routes: the document collects the routes registered after it in this scope.
  await installAdminOpenApi(app, opts.ctx);
  // Once for the whole scope: every admin route below gets a 400 for a NUL character.
  app.addHook('preValidation', rejectNulCharacters);
  // Pass only ctx: opts also carries this plugin's own prefix, which would be applied twice.
  const routeOpts = { ctx: opts.ctx };
  await app.register(orgsRoutes, routeOpts);
  await app.register(apiKeysRoutes, routeOpts);
  await app.register(inventoryRoutes, routeOpts);
  await app.register(alertsRoutes, routeOpts);
  await app.register(destinationsRoutes, routeOpts);
  await app.register(inboundAdminRoutes, routeOpts);
  await app.register(deliveriesRoutes, routeOpts);
  await app.register(alertViewsRoutes, routeOpts);
  await app.register(tenantsRoutes, routeOpts);
  await app.register(freshnessRoutes, routeOpts);
  await app.register(peopleRoutes, routeOpts);
  const limiter = createSignInLimiter(opts.ctx);
  app.addHook('onClose', async () => limiter.close());
  await app.register(sessionRoutes, { ...routeOpts, limiter });
  await app.register(oidcRoutes, { ...routeOpts, limiter });
  await app.register(overviewRoutes, routeOpts);
  await app.register(monitoredInventoryRoutes, routeOpts);
}

import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { rejectNulCharacters, rejectNulInAddress } from '../http/nul-guard.js';
import { installAdminAuth } from './auth.js';
import { installAuditLog } from './audit-hook.js';
import { auditedDatabase } from '../access/audit-context.js';
import { peopleRoutes } from './people.js';
import { tokensRoutes } from './tokens.js';
import { auditRoutes } from './audit.js';
import { oidcRoutes } from './oidc.js';
import { createSignInLimiter, sessionRoutes } from './session.js';
import { orgsRoutes } from './orgs.js';
import { apiKeysRoutes } from './api-keys.js';
import { inventoryRoutes } from './inventory.js';
import { alertsRoutes } from './alerts.js';
import { destinationsRoutes } from './destinations.js';
import { destinationPreviewRoutes } from './destination-preview.js';
import { inboundAdminRoutes } from './inbound.js';
import { deliveriesRoutes } from './deliveries.js';
import { alertViewsRoutes } from './alert-views.js';
import { tenantsRoutes } from './tenants.js';
import { freshnessRoutes } from './freshness.js';
import { installAdminOpenApi } from './openapi.js';
import { overviewRoutes } from './overview.js';
import { capacityLoadRoutes } from './capacity-load.js';
import { utilizationSetupRoutes } from './utilization-setup.js';
import { monitoredInventoryRoutes } from './monitored-inventory.js';
import { tenantChangesRoutes } from './tenant-changes.js';

/** Admin API plugin, mounted at /api/admin/v1 (docs/admin-api.md). */
export async function adminApi(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  // Cookies (the console's session, the OIDC sign-in) are parsed once for the whole scope.
  await app.register(cookie);
  // Before the access check, which reads the database with the path's orgId: a NUL in the path
  // or query is 400 for every caller (hooks run in the order they are added).
  app.addHook('onRequest', rejectNulInAddress);
  // Who may call which route: one hook for every route of this scope (routes declare `access`).
  installAdminAuth(app, opts.ctx);
  // Every successful change is written to the audit log, in the transaction that makes it.
  installAuditLog(app, opts.ctx);
  // Before the routes: the document collects the routes registered after it in this scope.
  await installAdminOpenApi(app, opts.ctx);
  // Once for the whole scope: every admin route below gets a 400 for a NUL character.
  app.addHook('preValidation', rejectNulCharacters);
  // Pass only ctx: opts also carries this plugin's own prefix, which would be applied twice. Routes
  // get the audited database: their transactions carry the request's audit entries.
  const routeOpts = { ctx: { ...opts.ctx, db: auditedDatabase(opts.ctx.db) } };
  await app.register(orgsRoutes, routeOpts);
  await app.register(apiKeysRoutes, routeOpts);
  await app.register(inventoryRoutes, routeOpts);
  await app.register(alertsRoutes, routeOpts);
  await app.register(destinationsRoutes, routeOpts);
  await app.register(destinationPreviewRoutes, routeOpts);
  await app.register(inboundAdminRoutes, routeOpts);
  await app.register(deliveriesRoutes, routeOpts);
  await app.register(alertViewsRoutes, routeOpts);
  await app.register(tenantsRoutes, routeOpts);
  await app.register(freshnessRoutes, routeOpts);
  await app.register(peopleRoutes, routeOpts);
  await app.register(tokensRoutes, routeOpts);
  await app.register(auditRoutes, routeOpts);
  const limiter = createSignInLimiter(opts.ctx);
  app.addHook('onClose', async () => limiter.close());
  await app.register(sessionRoutes, { ...routeOpts, limiter });
  await app.register(oidcRoutes, { ...routeOpts, limiter });
  await app.register(overviewRoutes, routeOpts);
  await app.register(capacityLoadRoutes, routeOpts);
  await app.register(utilizationSetupRoutes, routeOpts);
  await app.register(monitoredInventoryRoutes, routeOpts);
  await app.register(tenantChangesRoutes, routeOpts);
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { installAdminAuth } from './auth.js';
import { orgsRoutes } from './orgs.js';
import { apiKeysRoutes } from './api-keys.js';
import { inventoryRoutes } from './inventory.js';
import { alertsRoutes } from './alerts.js';
import { destinationsRoutes } from './destinations.js';
import { deliveriesRoutes } from './deliveries.js';
import { alertViewsRoutes } from './alert-views.js';

/** Admin API plugin, mounted at /api/admin/v1 (CONTRACT §2). */
export async function adminApi(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  installAdminAuth(app, opts.ctx);
  // Pass only ctx: opts also carries this plugin's own prefix, which would be applied twice.
  const routeOpts = { ctx: opts.ctx };
  await app.register(orgsRoutes, routeOpts);
  await app.register(apiKeysRoutes, routeOpts);
  await app.register(inventoryRoutes, routeOpts);
  await app.register(alertsRoutes, routeOpts);
  await app.register(destinationsRoutes, routeOpts);
  await app.register(deliveriesRoutes, routeOpts);
  await app.register(alertViewsRoutes, routeOpts);
}

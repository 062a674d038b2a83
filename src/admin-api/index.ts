import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { installAdminAuth } from './auth.js';
import { orgsRoutes } from './orgs.js';
import { apiKeysRoutes } from './api-keys.js';
import { inventoryRoutes } from './inventory.js';
import { alertsRoutes } from './alerts.js';
import { destinationsRoutes } from './destinations.js';
import { deliveriesRoutes } from './deliveries.js';

/** Admin API plugin, mounted at /api/admin/v1 (CONTRACT §2). */
export async function adminApi(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  installAdminAuth(app, opts.ctx);
  await app.register(orgsRoutes, opts);
  await app.register(apiKeysRoutes, opts);
  await app.register(inventoryRoutes, opts);
  await app.register(alertsRoutes, opts);
  await app.register(destinationsRoutes, opts);
  await app.register(deliveriesRoutes, opts);
}

import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { AppContext } from '../context.js';
import { ApiError, sendError } from '../http/errors.js';
import { installPublicAuth } from './auth.js';
import { installHostileInputGuards } from './hostile-input.js';
import { ApiKeyCache } from './key-cache.js';
import { registerSpec } from './docs.js';
import { hoistNamedSchemas } from './openapi.js';
import { strictQueryCompiler } from './query-validator.js';
import { createRateLimiter } from '../rate-limits/index.js';
import { alertsRoutes } from './routes/alerts.js';
import { costsRoutes } from './routes/costs.js';
import { capacityUtilizationRoutes } from './routes/capacity-utilization.js';
import { inventoryRoutes } from './routes/inventory.js';
import { metricsRoutes } from './routes/metrics.js';
import { slaRoutes } from './routes/sla.js';

export { publicApiDocs } from './docs.js';

/** Connections of the public API's list pool (PostgreSQL). */
const LIST_POOL_SIZE = 10;

/**
 * Session settings of the list pool: its prepared statements always run their generic plan,
 * planned once per connection. The list pages' plans do not depend on their parameters' values
 * (index ranges and LIMITs), but PostgreSQL's default re-planned the big page statement on every
 * execution (~0.6 ms, more than running it) because the generic plan's cost estimate looks higher.
 */
const LIST_SESSION_SETTINGS: Readonly<Record<string, string>> = { plan_cache_mode: 'force_generic_plan' };

/**
 * Public read-only API plugin, mounted at /api/public/v1 (docs/public-api.md). Auth, scopes and limits
 * are one hook on the inner scope; routes are thin handlers over the query functions.
 */
export async function publicApi(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  app.setValidatorCompiler(strictQueryCompiler);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vigia public API',
        version: '1.0.0',
        description:
          'Read-only access to alerts, alert metrics, inventory, daily costs and the monthly SLA report of one organization. ' +
          'Send the API key in `X-Api-Key` (or `Authorization: ApiKey <key>`). Every error answers with the envelope ' +
          '`{"error":{"code","message"}}` and `Cache-Control: no-store`. Each key may make a fixed number of requests per ' +
          'minute (see the `RateLimit-*` headers); an address sending too many invalid keys is refused with 429 for the rest of the minute.',
      },
      servers: [{ url: ctx.config.baseUrl }],
      components: {
        securitySchemes: {
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          apiKeyAuthorization: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`ApiKey <key>`' },
        },
      },
    },
    transformObject: (document) => ('openapiObject' in document ? hoistNamedSchemas(document.openapiObject) : document.swaggerObject),
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerSpec(ctx, () => app.swagger());

  // Other methods than GET/HEAD are answered 405/404 by these guards' first hook, which also runs
  // before this scope's not-found handler; what reaches the handler is a GET/HEAD of an unknown path.
  installHostileInputGuards(app);
  app.setNotFoundHandler((_request, reply) => sendError(reply, new ApiError(404, 'not_found', 'no such route')));

  const limiter = createRateLimiter(ctx);
  app.addHook('onClose', async () => limiter.close());

  // Keys are checked on the primary (a revocation must count at once); the routes' read queries
  // go to the read replica when one is configured.
  const reads: AppContext = ctx.readDb ? { ...ctx, db: ctx.readDb } : ctx;
  // Without a replica, list pages (one statement each, see page-statement.ts) run on their own
  // pool and take keys from the key cache. With one, neither: the cache needs the list statement
  // to re-check the key in its own snapshot, which a replica's snapshot cannot do for a
  // revocation it has not replayed yet, so keys are looked up on the primary for every request.
  let keyCache: ApiKeyCache | null = null;
  let lists = reads;
  if (!ctx.readDb) {
    const cache = new ApiKeyCache();
    await cache.start(ctx.db);
    const listDb = ctx.db.dedicatedPool(LIST_POOL_SIZE, { settings: LIST_SESSION_SETTINGS });
    app.addHook('onClose', async () => {
      await cache.stop();
      await listDb.close();
    });
    keyCache = cache;
    lists = { ...ctx, db: listDb };
  }
  await app.register(async (secured) => {
    installPublicAuth(secured, ctx, limiter, keyCache);
    await secured.register(alertsRoutes, { ctx: lists });
    await secured.register(metricsRoutes, { ctx: reads });
    await secured.register(inventoryRoutes, { ctx: lists });
    await secured.register(costsRoutes, { ctx: lists });
    await secured.register(capacityUtilizationRoutes, { ctx: lists });
    await secured.register(slaRoutes, { ctx: reads });
  });
}

import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { installErrorHandling } from './http/errors.js';
import { installBodyParsers } from './http/body-parsers.js';
import { handleClientError, handleFrameworkError, requireHostHeader } from './http/client-errors.js';
import { adminApi } from './admin-api/index.js';
import { publicApi, publicApiDocs } from './public-api/index.js';
import { consoleRoutes } from './console/serve.js';

export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** Builds the HTTP server: health, admin API, public API, web console. Listening is the caller's job. */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Strict input: unknown fields and wrong types are refused, never silently dropped or coerced.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false } },
    return503OnClosing: true,
    // Parser- and router-level refusals answer in the error envelope too, without echoing the request.
    clientErrorHandler: handleClientError,
    frameworkErrors: handleFrameworkError,
    http: { requireHostHeader: false },
  });
  installErrorHandling(app);
  installBodyParsers(app);
  app.addHook('onRequest', requireHostHeader);

  app.get('/healthz', async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await ctx.db.query('SELECT 1');
      return reply.header('cache-control', 'no-store').send({ status: 'ready' });
    } catch {
      return reply.code(503).header('cache-control', 'no-store').send({ error: { code: 'not_ready', message: 'database unavailable' } });
    }
  });

  await app.register(adminApi, { prefix: '/api/admin/v1', ctx });
  await app.register(publicApi, { prefix: '/api/public/v1', ctx });
  await app.register((await import('./metrics.js')).metricsRoutes, { ctx });
  await app.register(publicApiDocs, { ctx }); // GET /docs: Swagger UI of the public API
  await app.register(consoleRoutes); // GET / and the console's browser routes (docs/console.md)
  return app;
}

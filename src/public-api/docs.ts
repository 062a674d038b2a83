import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AppContext } from '../context.js';

// The document lives in the public-API plugin (it sees only the public routes); /docs is mounted
// at the root, so the two meet through the shared context object.
const specs = new WeakMap<AppContext, () => unknown>();

export function registerSpec(ctx: AppContext, get: () => unknown): void {
  specs.set(ctx, get);
}

/**
 * GET /docs: Swagger UI (assets bundled in @fastify/swagger-ui, no CDN) over the generated
 * public-API document. Register after the public API plugin.
 */
export async function publicApiDocs(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  // swagger-ui needs a `swagger` decorator in its scope; this static placeholder is replaced by
  // the live public document in transformSpecification.
  await app.register(swagger, {
    mode: 'static',
    specification: { document: { openapi: '3.1.0', info: { title: 'Vigia public API', version: '1.0.0' }, paths: {} } },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    transformSpecification: (placeholder) => (specs.get(opts.ctx)?.() ?? placeholder) as Record<string, unknown>,
    uiConfig: { docExpansion: 'list', deepLinking: false },
  });
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
}

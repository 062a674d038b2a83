import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** Public read-only API plugin, mounted at /api/public/v1 (SPEC §4.3) — issue 5. */
export async function publicApi(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  void opts;
}

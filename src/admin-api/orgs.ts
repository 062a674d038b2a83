import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** Admin routes: orgs (CONTRACT §2). */
export async function orgsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  void app;
  void opts;
}

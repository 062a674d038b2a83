import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** Admin routes: destinations (CONTRACT §2) — delivery engine (issue 3). */
export async function destinationsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  void app;
  void opts;
}

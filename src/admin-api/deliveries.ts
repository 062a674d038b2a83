import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** Admin routes: deliveries (CONTRACT §2) — delivery engine (issue 3). */
export async function deliveriesRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  void app;
  void opts;
}

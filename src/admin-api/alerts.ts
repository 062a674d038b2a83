import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** Admin routes: alerts (CONTRACT §2). */
export async function alertsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  void app;
  void opts;
}

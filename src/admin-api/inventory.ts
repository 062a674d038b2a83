import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** Admin routes: inventory (CONTRACT §2). */
export async function inventoryRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  void app;
  void opts;
}

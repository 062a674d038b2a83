import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** Admin routes: api-keys (CONTRACT §2). */
export async function apiKeysRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  void app;
  void opts;
}

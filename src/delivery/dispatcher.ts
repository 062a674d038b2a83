import type { AppContext } from '../context.js';

export interface Worker {
  stop(): Promise<void>;
}

/**
 * The delivery worker: claims due deliveries and sends them (issue 3 implements it).
 */
export async function startDispatcher(_ctx: AppContext): Promise<Worker> {
  return { async stop() {} };
}

import type { Config } from './config.js';

/** `vigia demo` — issue 2 fills it: demo org, inventory, costs, API key, a stream of signals. */
export async function runDemo(_config: Config): Promise<void> {
  throw new Error('vigia demo is not built yet');
}

import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/index.js';
import type { Logger } from './logger.js';
import type { Sealer } from './secrets/sealing.js';

/** What every module receives: configuration, the database, time, logging and secret sealing. */
export interface AppContext {
  config: Config;
  db: Database;
  clock: Clock;
  log: Logger;
  sealer: Sealer;
}

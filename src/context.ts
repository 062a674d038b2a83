import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/index.js';
import type { Logger } from './logger.js';
import type { Sealer } from './secrets/sealing.js';

/** What every module receives: configuration, the database, time, logging and secret sealing. */
export interface AppContext {
  config: Config;
  db: Database;
  /**
   * Where the public API's read queries go: a read replica router when DATABASE_READ_URL is
   * set, otherwise absent (reads use db). Freshness-critical reads (API keys) always use db.
   */
  readDb?: Database;
  clock: Clock;
  log: Logger;
  sealer: Sealer;
}

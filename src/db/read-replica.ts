import type { Logger } from 'pino';
import { createPgDatabase } from './pg.js';
import type { Database, Queryable, QueryOptions, QueryResult } from './types.js';

/**
 * A Database whose plain queries go to a PostgreSQL streaming replica while the replica is
 * reachable and caught up, and to the primary otherwise; transactions, LISTEN and everything
 * else are the primary's. The public API reads through it; what must be fresh (key checks)
 * uses the primary directly.
 *
 * "Caught up" is measured in WAL positions, not clock time, so an idle primary never makes a
 * healthy replica look late: every check samples the primary's current WAL position, and the
 * replica is used only while it has replayed at least the position the primary had
 * `maxLagSeconds` ago. A failed replica query (connection refused, server gone, recovery
 * conflict) is answered from the primary at once and marks the replica unhealthy until the next
 * successful check, so a replica outage never becomes an error for the caller.
 */
export interface ReadRouterOptions {
  primary: Database;
  replicaUrl: string;
  maxLagSeconds: number;
  /** How often the lag is checked; 0 = only when checkNow() is called (tests). */
  checkIntervalMs?: number;
  logger?: Logger;
  /** Milliseconds; injectable so tests can move the lag window without waiting. */
  now?: () => number;
}

export interface ReadRouter extends Database {
  /** True while reads go to the replica. */
  readonly usingReplica: boolean;
  /** Samples the primary and the replica once and updates usingReplica. */
  checkNow(): Promise<void>;
}

interface WalSample {
  at: number;
  lsn: string;
}

export function createReadRouter(opts: ReadRouterOptions): ReadRouter {
  const { primary, logger } = opts;
  const now = opts.now ?? Date.now;
  const maxLagMs = opts.maxLagSeconds * 1000;
  // A short connect timeout: a replica that is down must not hold a request for long.
  const replica = createPgDatabase(opts.replicaUrl, logger, { max: 10, connectionTimeoutMillis: 2000 });
  let samples: WalSample[] = [];
  let healthy = false;
  let checking: Promise<void> | undefined;

  const setHealthy = (next: boolean, reason: string) => {
    if (next !== healthy) logger?.warn({ reason }, next ? 'read replica in use' : 'read replica skipped: reads go to the primary');
    healthy = next;
  };

  /** The newest sample at least maxLag old (else the oldest): the replica must have replayed it. */
  const target = (at: number): WalSample => {
    let chosen = samples[0]!;
    for (const s of samples) if (s.at <= at - maxLagMs) chosen = s;
    return chosen;
  };

  const check = async (): Promise<void> => {
    const at = now();
    try {
      const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      samples.push({ at, lsn: rows[0]!.lsn });
    } catch {
      return; // the primary is unreachable: nothing to compare with, keep the last verdict
    }
    const mustHave = target(at);
    samples = samples.filter((s) => s.at >= mustHave.at);
    try {
      const { rows } = await replica.query<{ standby: boolean; caught_up: boolean | null }>(
        'SELECT pg_is_in_recovery() AS standby, pg_wal_lsn_diff(pg_last_wal_replay_lsn(), $1::pg_lsn) >= 0 AS caught_up',
        [mustHave.lsn],
      );
      const r = rows[0]!;
      // Not in recovery: a promoted or writable server has everything it will ever have.
      setHealthy(!r.standby || r.caught_up === true, `replica more than ${opts.maxLagSeconds} s behind`);
    } catch (err) {
      setHealthy(false, (err as Error).message);
    }
  };

  const checkNow = () => (checking ??= check().finally(() => (checking = undefined)));
  const timer = opts.checkIntervalMs ? setInterval(() => void checkNow(), opts.checkIntervalMs) : undefined;
  timer?.unref();
  if (timer) void checkNow();

  const router: ReadRouter = Object.create(primary, {
    usingReplica: { get: () => healthy },
  });
  return Object.assign(router, {
    checkNow,
    async query<T>(text: string, params?: readonly unknown[], queryOpts?: QueryOptions): Promise<QueryResult<T>> {
      if (healthy) {
        try {
          return await replica.query<T>(text, params, queryOpts);
        } catch (err) {
          setHealthy(false, (err as Error).message);
        }
      }
      return primary.query<T>(text, params, queryOpts);
    },
    exec: (text: string) => primary.exec(text),
    async close() {
      if (timer) clearInterval(timer);
      await checking?.catch(() => undefined);
      await replica.close();
    },
  } satisfies Partial<Queryable> & Record<string, unknown>);
}

import pg from 'pg';
import type { Logger } from 'pino';
import { describingFailure } from './errors.js';
import { OID, parseNumeric, sessionSettingEntries, type Database, type DedicatedPoolOptions, type Queryable, type QueryOptions, type QueryResult } from './types.js';

const typeOverrides: Record<number, (v: string) => unknown> = {
  [OID.INT8]: parseNumeric,
  [OID.NUMERIC]: parseNumeric,
  [OID.DATE]: (v) => v, // keep calendar days as "yyyy-mm-dd" text, never a local-time Date
};

const types = {
  getTypeParser(oid: number, format?: any) {
    return typeOverrides[oid] ?? (pg.types.getTypeParser as any)(oid, format);
  },
};

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(text: string, params?: readonly unknown[], opts?: QueryOptions): Promise<QueryResult<T>> {
      const values = params as unknown[] | undefined;
      const r = await describingFailure(text, opts?.name, () =>
        opts?.name ? client.query({ name: opts.name, text, values }) : client.query(text, values),
      );
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    },
    async exec(text: string): Promise<void> {
      await client.query(text);
    },
  };
}

/** `-c name=value …` for the connection's startup packet. */
function sessionOptions(settings: DedicatedPoolOptions['settings']): string | undefined {
  const entries = sessionSettingEntries(settings);
  return entries.length === 0 ? undefined : entries.map(([k, v]) => `-c ${k}=${v}`).join(' ');
}

export interface PgPoolOptions {
  max?: number;
  connectionTimeoutMillis?: number;
  /** Session settings of every connection (see DedicatedPoolOptions). */
  settings?: DedicatedPoolOptions['settings'];
}

export function createPgDatabase(url: string, logger?: Logger, opts: PgPoolOptions = {}): Database {
  const options = sessionOptions(opts.settings);
  const pool = new pg.Pool({
    connectionString: url,
    ...(options ? { options } : {}),
    max: opts.max ?? 10,
    types,
    connectionTimeoutMillis: opts.connectionTimeoutMillis ?? 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its server (restart, failover) must not crash the process: the pool
  // drops it and the next query opens a fresh connection.
  pool.on('error', (err) => logger?.warn({ err: err.message }, 'idle database connection lost'));
  // Every client gets a permanent listener too: a server restart while a client is checked out
  // would otherwise be an uncaught 'error' event. The statement in flight still rejects.
  pool.on('connect', (client) => {
    client.on('error', (err) => logger?.warn({ err: err.message }, 'database connection lost'));
  });
  const root = wrap(pool);
  const listeners = new Set<Listener>();

  return {
    capabilities: { concurrentConnections: true, crossProcessNotify: true },
    dedicatedPool: (max, poolOpts = {}) => createPgDatabase(url, logger, { max, ...poolOpts }),
    query: root.query,
    exec: root.exec,
    tx: (fn) => transaction(pool, fn),
    async listen(channel, onNotify) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error('invalid channel name');
      const listener = new Listener(url, channel, onNotify, logger);
      // Registered before the first connection opens, so close() during it stops it too.
      listeners.add(listener);
      await listener.connect();
      return async () => {
        listeners.delete(listener);
        await listener.stop();
      };
    },
    async close() {
      await Promise.all([...listeners].map((l) => l.stop()));
      await pool.end();
    },
  };
}

/** BEGIN … COMMIT on one checked-out client; ROLLBACK on failure, and a broken client is discarded. */
async function transaction<T>(pool: pg.Pool, fn: (q: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // A checked-out client has no pool error listener: a server restart between two
  // statements would otherwise be an uncaught 'error' event and kill the process.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(wrap(client));
    await client.query('COMMIT');
    return result;
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true;
    }
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/**
 * LISTEN on a connection of its own that comes back by itself: a lost connection is reopened
 * (and the subscriber woken once, since notifications may have been missed) until stop().
 */
class Listener {
  private client: pg.Client | undefined;
  /** The connection being opened, if any: stop() must wait for it, or it would outlive stop(). */
  private opening: Promise<void> | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onNotify: (payload: string) => void,
    private readonly logger?: Logger,
  ) {}

  connect(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const c = new pg.Client({ connectionString: this.url, types, connectionTimeoutMillis: 10_000 });
    c.on('notification', (msg) => {
      if (msg.channel === this.channel) this.onNotify(msg.payload ?? '');
    });
    c.on('error', () => {
      /* handled by 'end' */
    });
    c.on('end', () => {
      if (this.client === c && !this.stopped) {
        this.client = undefined;
        this.retry(500);
        // A reconnect may have missed notifications: wake the subscriber once.
        this.onNotify('');
      }
    });
    const tracked: Promise<void> = this.open(c).finally(() => {
      if (this.opening === tracked) this.opening = undefined;
    });
    this.opening = tracked;
    return tracked;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.opening;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }

  private async open(c: pg.Client): Promise<void> {
    try {
      await c.connect();
      await c.query(`LISTEN ${this.channel}`);
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message }, 'LISTEN connection failed; retrying');
      await c.end().catch(() => undefined);
      this.retry(1000);
      return;
    }
    // stop() ran while this connection was being opened: it is nobody's now, close it.
    if (this.stopped) await c.end().catch(() => undefined);
    else this.client = c;
  }

  private retry(ms: number): void {
    if (!this.stopped) this.retryTimer = setTimeout(() => void this.connect().catch(() => undefined), ms);
  }
}

/** The one database interface every module uses; two engines implement it (pg, PGlite). */

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * Name of a prepared statement: on PostgreSQL each connection plans the text once and reuses
   * the plan (worth it for hot statements whose planning costs more than running them). The
   * same name must always carry the same text. PGlite does the same (pglite-prepared.ts).
   */
  name?: string;
}

export interface Queryable {
  /** One statement, positional parameters ($1…). jsonb parameters must be passed as JSON text. */
  query<T = Record<string, any>>(text: string, params?: readonly unknown[], opts?: QueryOptions): Promise<QueryResult<T>>;
  /** Several statements, no parameters (migrations). */
  exec(text: string): Promise<void>;
}

export type Engine = 'pg' | 'pglite';

/**
 * What an engine can do, so code outside src/db asks for a capability instead of checking which
 * engine runs.
 */
export interface DatabaseCapabilities {
  /** Several connections work at once (false: one connection, every statement queued). */
  readonly concurrentConnections: boolean;
  /** NOTIFY reaches other processes (false: in-process only). */
  readonly crossProcessNotify: boolean;
}

export interface DedicatedPoolOptions {
  /**
   * Session settings for every connection of the pool (PostgreSQL run-time parameters, e.g.
   * `enable_bitmapscan: 'off'`), so one component's statements can be tuned without touching
   * anyone else's. Names and values are plain words. An engine with one shared connection runs
   * each of the pool's statements and transactions in a transaction that sets them with `SET
   * LOCAL`, so they never leak to anyone else's statements.
   */
  settings?: Readonly<Record<string, string>>;
}

/** The settings as [name, value] pairs, refused unless both are plain words (they go into SQL text). */
export function sessionSettingEntries(settings: DedicatedPoolOptions['settings']): [string, string][] {
  return Object.entries(settings ?? {}).map(([k, v]) => {
    if (!/^[a-z_][a-z0-9_.]*$/.test(k) || !/^[A-Za-z0-9_.-]+$/.test(v)) throw new Error(`invalid session setting ${k}`);
    return [k, v];
  });
}

/**
 * Which engine runs is known only inside src/db (the factories); the interface exposes what an
 * engine can do (`capabilities`), never which one it is.
 */
export interface Database extends Queryable {
  readonly capabilities: DatabaseCapabilities;
  /**
   * A separate pool of at most `max` connections to the same database, for a component whose
   * statements must not queue behind everyone else's (the dispatcher). An engine without
   * concurrent connections returns a handle on its one connection whose close() does nothing.
   */
  dedicatedPool(max: number, opts?: DedicatedPoolOptions): Database;
  /** Embedded engine only: this process's exclusive hold on VIGIA_DATA_DIR. */
  readonly dataDirLock?: import('./data-dir-lock.js').DataDirLock;
  /**
   * Runs fn in one transaction. Inside fn use only the given Queryable: on PGlite the database
   * is a single connection and calling `db` from inside `tx` would wait for itself.
   */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Subscribes to NOTIFY on channel; reconnects by itself on PostgreSQL. Returns unsubscribe. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Column type OIDs whose default parsing we override so both engines return the same JS values. */
export const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082, TIMESTAMPTZ: 1184 } as const;

export function parseNumeric(value: string): number {
  return Number(value);
}

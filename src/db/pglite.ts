import { PGlite, type Transaction } from '@electric-sql/pglite';
import path from 'node:path';
import { acquireDataDirLock } from './data-dir-lock.js';
import { describingFailure } from './errors.js';
import { PglitePreparedStatements } from './pglite-prepared.js';
import { isStaleStatement } from './stale-statement.js';
import { OID, parseNumeric, sessionSettingEntries, type Database, type DedicatedPoolOptions, type Queryable, type QueryOptions, type QueryResult } from './types.js';

/**
 * PGlite is one connection. Every query and every transaction goes through one FIFO queue so a
 * request's statements never land inside another request's transaction.
 */
class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * A Date parameter PostgreSQL accepts for every year, as the pg driver sends it. PGlite sends
 * `toISOString()`, right for years 1..9999 but `+010000-01-01T…` after them (the end of a day
 * window ending 9999-12-31), which the server refuses; those are written as `10000-01-01T…+00`
 * (and years before 1 as `… BC`).
 */
function pgliteDateParam(d: Date): string | Date {
  const year = d.getUTCFullYear();
  if (Number.isNaN(year) || (year >= 1 && year <= 9999)) return d; // PGlite's own text is right
  const iso = d.toISOString(); // ±YYYYYY-MM-DDTHH:mm:ss.sssZ
  const rest = iso.slice(iso.indexOf('-', 1)).replace('Z', '+00');
  return year >= 1 ? `${year}${rest}` : `${String(1 - year).padStart(4, '0')}${rest} BC`;
}

const TIMESTAMPTZ_TEXT = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?( BC)?$/;

/**
 * timestamptz text → Date for every year, as the pg driver reads it. PGlite's own reading goes
 * through JavaScript's date parsing, which takes years 0..99 for 19xx/20xx: 0001-01-01 came
 * back as 2001-01-01.
 */
export function parseTimestamptz(text: string): Date | number {
  if (text === 'infinity') return Number.POSITIVE_INFINITY;
  if (text === '-infinity') return Number.NEGATIVE_INFINITY;
  const m = TIMESTAMPTZ_TEXT.exec(text);
  if (!m) return new Date(text);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const offsetSeconds = (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0));
  const date = new Date(0);
  date.setUTCFullYear(m[12] ? 1 - y : y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  return new Date(date.getTime() - offsetSeconds * 1000);
}

function pgliteParam(v: unknown): unknown {
  return v instanceof Date ? pgliteDateParam(v) : v;
}

/**
 * PostgreSQL's default shared_buffers (128 MB) lives inside PGlite's WebAssembly memory, which
 * never shrinks, and it caches pages the operating system's file cache holds as well (PGlite reads
 * its files through Node's fs): 16 MB took the embedded server's idle RSS down by about 130 MB
 * (bench/RESULTS.md, "Embedded engine memory"), and costs no throughput: 16, 32 and 128 MB drained
 * within 2 % of each other ("Embedded engine: the drain and the claim's planning").
 */
const SHARED_BUFFERS = '16MB';

/** The PGlite instance with our settings and the pg driver's readings of numbers and dates. */
function openPglite(dataDir: string | undefined, opts: { sharedBuffers?: string; loadDataDir?: Blob }): Promise<PGlite> {
  return PGlite.create(dataDir, {
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${opts.sharedBuffers ?? SHARED_BUFFERS}`],
    parsers: {
      [OID.INT8]: parseNumeric,
      [OID.NUMERIC]: parseNumeric,
      [OID.DATE]: (v: string) => v,
      [OID.TIMESTAMPTZ]: parseTimestamptz,
    },
  });
}

/**
 * The embedded engine's "pool": one in-process connection, so the pool is the database itself,
 * and closing it is the owner's job. Its settings hold for its own statements only: each runs in
 * a transaction that sets them with SET LOCAL (the dispatcher's claim needs enable_bitmapscan = off
 * here as much as on PostgreSQL: with bitmap scans a claim read and sorted every due row, ~30 ms
 * at a 20,000-row backlog against 0.2 ms).
 */
function settingsPool(
  db: Database,
  inTransaction: <T>(fn: (q: Queryable) => Promise<T>, setLocal?: string) => Promise<T>,
  opts: DedicatedPoolOptions,
): Database {
  const entries = sessionSettingEntries(opts.settings);
  if (entries.length === 0) return { ...db, close: async () => {} };
  const setLocal = entries.map(([k, v]) => `SET LOCAL ${k} = '${v}'`).join('; ');
  const withSettings = <T>(fn: (q: Queryable) => Promise<T>): Promise<T> => inTransaction(fn, setLocal);
  return {
    ...db,
    // One statement in its own transaction: if its prepared statement went stale, that
    // transaction only held the statement, so it is run once more (parsed afresh).
    query: <T>(text: string, params?: readonly unknown[], qopts?: QueryOptions) =>
      withSettings((q) => q.query<T>(text, params, qopts)).catch((err: unknown) => {
        if (!isStaleStatement(err)) throw err;
        return withSettings((q) => q.query<T>(text, params, qopts));
      }),
    exec: (text) => withSettings((q) => q.exec(text)),
    tx: withSettings,
    close: async () => {},
  };
}

/**
 * `lockDir`: the directory to lock for this process (VIGIA_DATA_DIR); the lock is released when
 * the database closes. In-memory databases (tests) take no lock. `sharedBuffers` overrides
 * SHARED_BUFFERS (the bench compares settings with it). `loadDataDir` starts from a data
 * directory dumped by PGlite's `dumpDataDir` instead of running initdb (the test suite starts each
 * file's database from one migrated template: initdb is most of a new database's cost).
 */
export async function createPgliteDatabase(dataDir?: string, lockDir?: string, opts: { sharedBuffers?: string; loadDataDir?: Blob } = {}): Promise<Database> {
  const lock = lockDir ? acquireDataDirLock(path.resolve(lockDir)) : undefined;
  let lite: PGlite;
  try {
    lite = await openPglite(dataDir, opts);
  } catch (err) {
    lock?.release();
    throw err;
  }
  const queue = new SerialQueue();

  const prepared = new PglitePreparedStatements(lite);
  const direct = (target: Pick<PGlite | Transaction, 'query' | 'exec'>): Queryable => ({
    async query<T>(text: string, params?: readonly unknown[], opts?: QueryOptions): Promise<QueryResult<T>> {
      const name = opts?.name;
      const values = params?.map(pgliteParam) ?? [];
      const r = await describingFailure(text, name, () =>
        PglitePreparedStatements.usable(name) ? prepared.query<T>(name, text, values, target !== lite) : target.query<T>(text, values),
      );
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
    async exec(text: string): Promise<void> {
      await target.exec(text);
    },
  });
  const raw = direct(lite);
  /** fn in one transaction, queued; `setLocal` runs first inside it (SET LOCAL statements). */
  const inTransaction = <T>(fn: (q: Queryable) => Promise<T>, setLocal?: string): Promise<T> =>
    queue.run(() =>
      lite.transaction(async (t) => {
        if (setLocal) await t.exec(setLocal);
        return fn(direct(t));
      }),
    );

  const db: Database = {
    capabilities: { concurrentConnections: false, crossProcessNotify: false },
    dedicatedPool: (_max, opts = {}) => settingsPool(db, inTransaction, opts),
    dataDirLock: lock,
    query: (text, params, qopts) => queue.run(() => raw.query(text, params, qopts)),
    exec: (text) => queue.run(() => raw.exec(text)),
    tx: (fn) => inTransaction(fn),
    async listen(channel, onNotify) {
      const unlisten = await queue.run(() => lite.listen(channel, onNotify));
      return () => queue.run(() => unlisten());
    },
    async close() {
      try {
        await queue.run(() => lite.close());
      } finally {
        lock?.release();
      }
    },
  };
  return db;
}

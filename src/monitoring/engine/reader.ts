/**
 * What a collector run may do with the database. It READS through a `Reader`: one statement at a
 * time, no transaction, no `exec`, and the engine's handle refuses any statement that is not a
 * read. It WRITES only by handing `FencedWrite`s to its commit (CollectorRun.write): output.ts
 * applies them in the commit's transaction, after the lease fence, so a run that lost its lease
 * writes nothing anywhere — not its signals, state or lineage, and not the tables a source keeps
 * (capacity load history, gateway hot marks, inventory, costs). Sources name these types, never
 * src/db or the application context (`npm run walls` checks it).
 */
import type { Queryable, QueryResult } from '../../db/index.js';

/** A read-only handle: what a run, and the views of a source's tables, read with. */
export interface Reader {
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
}

/** The commit's transaction as a staged write sees it (the lease is held until it commits). */
export type FencedTx = Queryable;

/**
 * A write a run hands to its commit. It may run more than once (a commit whose transaction
 * failed is retried from the start), so it depends only on what it captured and what it reads
 * through `q`; it uses nothing but `q` (on PGlite the database is one connection).
 */
export type FencedWrite = (q: FencedTx) => Promise<void>;

/** A read starts as one; a data-modifying part (a WITH … INSERT, say) makes it a write. */
const READ_START = /^\s*(select|with|values)\b/i;
const WRITES = /\b(insert\s+into|delete\s+from|update\s+[\w."]+(\s+(as\s+)?\w+)?\s+set|merge\s+into)\b/i;

/** A statement a Reader refuses: it writes, or is not a query at all. */
export class NotAReadError extends Error {
  constructor(text: string) {
    super(`a collector run reads through its reader and writes through its commit; refused: ${text.trim().split(/\s+/).slice(0, 4).join(' ')}…`);
    this.name = 'NotAReadError';
  }
}

/** The run's read-only handle on `db`: statements that are not reads are refused before they reach it. */
export function readerOf(db: Pick<Queryable, 'query'>): Reader {
  return {
    query<T>(text: string, params?: readonly unknown[]) {
      if (!READ_START.test(text) || WRITES.test(text)) return Promise.reject(new NotAReadError(text));
      return db.query<T>(text, params);
    },
  };
}

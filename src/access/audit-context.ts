/**
 * The audit log's per-request context: what a change through the admin API must record, written
 * in the SAME transaction as the change (a failed audit insert rolls the change back; there is
 * no window where a change committed and its record did not).
 *
 * How it works: the admin API opens one scope per request (`runInAuditScope`, installed once in
 * src/admin-api/audit-hook.ts) and hands its routes a database wrapped by `auditedDatabase`.
 * Whenever a transaction of that database ends, before it commits, the scope's entries are
 * inserted through the transaction's own connection:
 * - the request's own entry (action, organization, target, validated fields), by the first
 *   transaction that writes (a lone INSERT/UPDATE/DELETE outside a transaction is given one);
 * - every entry domain code added with `noteAudit` (side effects: revoked tokens, ended sessions,
 *   a sign-in linked to an invitation, a sign-in), by the next transaction that ends.
 * What is still unwritten when a successful answer leaves (a change that wrote nothing, a note
 * made after the last transaction) is written then (`flushAuditScope`).
 *
 * Domain code records a side effect with `noteAudit({ action, orgIds, target, changes })` and
 * names what it created with `auditTarget(id)`; both do nothing outside a scope (jobs, CLI).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database, Queryable, QueryOptions, QueryResult } from '../db/index.js';
import { recordAudit } from './audit.js';
import type { Principal } from './principal.js';

export interface AuditEvent {
  /** Dotted action name (`members.delete`, `tokens.revoke`, `session.sign-in`). */
  action: string;
  /** The organizations it touches, one row in each; none: one instance-level row (operators read it). */
  orgIds: readonly string[];
  target: string | null;
  /** Only validated values: what the change did, never the raw request. Secret-named fields are redacted. */
  changes: Record<string, unknown>;
  /** Who, when it is not the request's caller (a sign-in, before the caller is known). */
  actor?: Principal;
}

export interface AuditScope {
  /** The caller; read when the entry is written (a sign-in route learns it while it runs). */
  actor: () => Principal | undefined;
  address: string | null;
  now: () => Date;
  /** The request's own entry (state-changing routes), until written. */
  request: AuditEvent | null;
  notes: AuditEvent[];
  /** Set when the answer has left (closeAuditScope): nothing more is recorded. */
  closed?: boolean;
}

const scopes = new AsyncLocalStorage<AuditScope>();

export function runInAuditScope<T>(scope: AuditScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** Records a change made as a consequence of the request (written with the transaction that made it). */
export function noteAudit(event: AuditEvent): void {
  const scope = scopes.getStore();
  if (scope && !scope.closed) scope.notes.push(event);
}

/**
 * Names the object the request created (its id is made inside the domain function), and for a
 * new organization, the organization whose log records it.
 */
export function auditTarget(id: string, opts: { orgId?: string } = {}): void {
  const request = scopes.getStore()?.request;
  if (!request) return;
  request.target = id;
  if (opts.orgId !== undefined) request.orgIds = [opts.orgId];
}

async function writeEvent(q: Queryable, scope: AuditScope, e: AuditEvent, actor: Principal): Promise<void> {
  const orgIds = e.orgIds.length > 0 ? [...new Set(e.orgIds)] : [null];
  for (const orgId of orgIds) {
    await recordAudit(q, { principal: e.actor ?? actor, orgId, address: scope.address, action: e.action, target: e.target, changes: e.changes, at: scope.now() });
  }
}

/** Writes what is due through q: the request's entry when `wrote`, and every note. */
async function writeDue(q: Queryable, scope: AuditScope, wrote: boolean): Promise<void> {
  const actor = scope.actor();
  if (wrote && scope.request && actor) {
    const entry = scope.request;
    scope.request = null;
    await writeEvent(q, scope, entry, actor);
  }
  while (scope.notes.length > 0) {
    const note = scope.notes[0]!;
    const who = note.actor ?? actor;
    if (!who) break;
    scope.notes.shift();
    await writeEvent(q, scope, note, who);
  }
}

/** At the end of a successful request: whatever is still unwritten, in one transaction of its own. */
export async function flushAuditScope(db: Database, scope: AuditScope): Promise<void> {
  if (!scope.request && scope.notes.length === 0) return;
  await db.tx((q) => writeDue(q, scope, true));
}

/**
 * Once the answer is on its way the scope records nothing more: work the request started that
 * outlives it (a timer, a run it woke) inherits the scope and must not write the entry of a
 * failed request, or anyone's entry twice.
 */
export function closeAuditScope(scope: AuditScope): void {
  scope.request = null;
  scope.notes.length = 0;
  scope.closed = true;
}

// `SELECT … FOR UPDATE` locks, it does not write.
const LOCKING_CLAUSE = /\bFOR\s+(?:NO\s+KEY\s+)?(?:UPDATE|SHARE)\b/gi;
const WRITING = /\b(?:INSERT|UPDATE|DELETE|MERGE)\b/i;
export function isWrite(sql: string): boolean {
  return WRITING.test(sql.replace(LOCKING_CLAUSE, ''));
}

/**
 * The database as the admin routes use it: transactions carry the audit scope's entries (see
 * the top of this file). Outside a scope it behaves exactly as `db`.
 */
export function auditedDatabase(db: Database): Database {
  const tx = <T>(fn: (q: Queryable) => Promise<T>): Promise<T> => {
    const scope = scopes.getStore();
    if (!scope) return db.tx(fn);
    return db.tx(async (q) => {
      let wrote = false;
      const tracked: Queryable = {
        query<R>(text: string, params?: readonly unknown[], opts?: QueryOptions): Promise<QueryResult<R>> {
          if (!wrote && isWrite(text)) wrote = true;
          return q.query<R>(text, params, opts);
        },
        exec(text: string) {
          wrote = true;
          return q.exec(text);
        },
      };
      const result = await fn(tracked);
      await writeDue(q, scope, wrote);
      return result;
    });
  };
  const due = () => {
    const scope = scopes.getStore();
    return !!scope && (scope.request !== null || scope.notes.length > 0);
  };
  return {
    get capabilities() {
      return db.capabilities;
    },
    get dataDirLock() {
      return db.dataDirLock;
    },
    dedicatedPool: (max, opts) => db.dedicatedPool(max, opts),
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    close: () => db.close(),
    tx,
    query<R>(text: string, params?: readonly unknown[], opts?: QueryOptions): Promise<QueryResult<R>> {
      // A lone write while an entry is due gets a transaction, so the entry commits with it.
      return due() && isWrite(text) ? tx((q) => q.query<R>(text, params, opts)) : db.query<R>(text, params, opts);
    },
    exec: (text) => (due() ? tx((q) => q.exec(text)) : db.exec(text)),
  };
}

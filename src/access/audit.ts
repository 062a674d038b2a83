import type { Queryable } from '../db/index.js';
import { newId } from '../ids.js';
import { actorId, actorKind, actorLabel, type Principal } from './principal.js';

/** How long audit entries are kept. */
export const AUDIT_RETENTION_DAYS = 400;

/** Field names whose values are never written to the audit log, at any depth. */
const SECRET_FIELD = /secret|token|password|key|authorization|credential|signing/i;
const MAX_VALUE_CHARS = 500;

export interface AuditEntry {
  id: string;
  orgId: string | null;
  at: Date;
  actor: { kind: string; id: string | null; label: string };
  address: string | null;
  action: string;
  target: string | null;
  changes: Record<string, unknown>;
}

/** The changed fields as sent, with secret-named fields replaced and long values shortened. */
export function redactChanges(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value ?? null;
  // Cut by code points: half a surrogate pair is not valid JSON text, and jsonb refuses it.
  if (typeof value === 'string') return value.length > MAX_VALUE_CHARS ? `${Array.from(value).slice(0, MAX_VALUE_CHARS).join('')}…` : value;
  if (typeof value !== 'object') return value;
  if (depth > 4) return '…';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redactChanges(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_FIELD.test(k) ? '[redacted]' : redactChanges(v, depth + 1);
  }
  return out;
}

/** An integration as the actor of an audit entry: its id (the destination) and how it is named. */
export interface ToolActor {
  id: string;
  label: string;
}

export async function recordAudit(
  db: Queryable,
  entry: { orgId: string | null; address: string | null; action: string; target: string | null; changes: unknown; at: Date } & (
    | { principal: Principal }
    /** A change made outside Vigia (an on-call tool acknowledging through its inbound address). */
    | { actor: ToolActor }
  ),
): Promise<void> {
  const changes = redactChanges(entry.changes);
  const actor = 'actor' in entry
    ? { kind: 'integration', id: entry.actor.id, label: entry.actor.label }
    : { kind: actorKind(entry.principal), id: actorId(entry.principal), label: actorLabel(entry.principal) };
  await db.query(
    `INSERT INTO audit_log (id, org_id, at, actor_kind, actor_id, actor_label, address, action, target, changes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb)`,
    [
      newId('aud', entry.at),
      entry.orgId,
      entry.at,
      actor.kind,
      actor.id,
      actor.label,
      entry.address,
      entry.action,
      entry.target,
      JSON.stringify(changes && typeof changes === 'object' && !Array.isArray(changes) ? changes : changes === null ? {} : { body: changes }),
    ],
  );
}

export interface AuditFilter {
  /** null: the instance-level entries (admin-token sign-ins, changes that touch no organization). */
  orgId: string | null;
  actor?: string;
  action?: string;
  from?: Date;
  to?: Date;
  limit: number;
  offset: number;
}

/** Newest first. `actor` matches the person's e-mail or id; `action` a whole action or its prefix ending in a dot. */
export async function listAudit(db: Queryable, f: AuditFilter): Promise<{ totalCount: number; entries: AuditEntry[] }> {
  const where = [f.orgId === null ? 'org_id IS NULL' : 'org_id = $1'];
  const args: unknown[] = f.orgId === null ? [] : [f.orgId];
  if (f.actor !== undefined) {
    args.push(f.actor);
    where.push(`(lower(actor_label) = lower($${args.length}) OR actor_id = $${args.length} OR split_part(actor_id, '/', 1) = $${args.length})`);
  }
  if (f.action !== undefined) {
    args.push(f.action);
    where.push(f.action.endsWith('.') ? `starts_with(action, $${args.length})` : `action = $${args.length}`);
  }
  if (f.from !== undefined) {
    args.push(f.from);
    where.push(`at >= $${args.length}`);
  }
  if (f.to !== undefined) {
    args.push(f.to);
    where.push(`at < $${args.length}`);
  }
  const cond = where.join(' AND ');
  const { rows: count } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log WHERE ${cond}`, args);
  const { rows } = await db.query<{
    id: string; org_id: string | null; at: Date; actor_kind: string; actor_id: string | null; actor_label: string;
    address: string | null; action: string; target: string | null; changes: Record<string, unknown>;
  }>(`SELECT * FROM audit_log WHERE ${cond} ORDER BY at DESC, id DESC LIMIT ${f.limit} OFFSET ${f.offset}`, args);
  return {
    totalCount: count[0]!.n,
    entries: rows.map((r) => ({
      id: r.id,
      orgId: r.org_id,
      at: r.at,
      actor: { kind: r.actor_kind, id: r.actor_id, label: r.actor_label },
      address: r.address,
      action: r.action,
      target: r.target,
      changes: r.changes,
    })),
  };
}

/** Deletes entries older than the retention; the only DELETE the table's trigger lets through. */
export async function purgeAudit(db: { tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> }, now: Date): Promise<number> {
  return db.tx(async (q) => {
    await q.query(`SELECT set_config('vigia.audit_purge', 'on', true)`);
    const { rowCount } = await q.query(`DELETE FROM audit_log WHERE at < $1::timestamptz - make_interval(days => ${AUDIT_RETENTION_DAYS})`, [now]);
    return rowCount ?? 0;
  });
}

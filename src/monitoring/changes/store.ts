/**
 * The changes read from tenants' activity logs (`tenant_changes`, migration 401): written by the
 * `activity` collector through its commit, read by the change timeline (admin API) and by the
 * join of changes to incidents. Every read is scoped to the organization and the tenant
 * connection. The actor (a UPN, personal) is returned only when the caller asks for it
 * (`withActor`): payloads that leave Vigia (webhooks, connectors) never ask.
 */
import type { Queryable } from '../../db/index.js';

export const CHANGE_OBJECT_KINDS = ['item', 'gateway', 'capacity', 'workspace', 'tenant'] as const;
export type ChangeObjectKind = (typeof CHANGE_OBJECT_KINDS)[number];

/** Ids a change links to (lower case), for joining it to what depends on them. */
export interface ChangeLinks {
  datasetId: string | null;
  gatewayId: string | null;
  datasourceId: string | null;
  workspaceId: string | null;
  capacityId: string | null;
}

export interface ChangeObject {
  kind: ChangeObjectKind;
  /** Null for the tenant itself. */
  id: string | null;
  /** The item's type for kind 'item' ('SemanticModel', 'Report', 'Dataflow', ...). */
  type: string | null;
  name: string | null;
}

/** One change as the collector derived it from a log record. */
export interface TenantChange {
  /** The record's `Id` (lower case). */
  recordId: string;
  activity: string;
  occurredAt: Date;
  object: ChangeObject;
  links: ChangeLinks;
  isSuccess: boolean | null;
  /** `UserId` (a UPN): personal. */
  actorUpn: string | null;
  /** `UserType` (0 user, 6 service principal, ...). */
  actorType: number | null;
  /** The record without `UserId`, `UserKey`, `ClientIP`. */
  raw: Record<string, unknown>;
}

/** A stored change; `actorUpn` is null unless the read asked for the actor. */
export interface StoredChange extends TenantChange {
  tenantRef: string;
  receivedAt: Date;
}

const lowerOrNull = (s: string | null) => (s === null ? null : s.toLowerCase());

/**
 * Stores changes not stored before (de-duplicated by record id per tenant connection) and
 * returns the record ids that were new: a late record re-read in the next pass is ignored.
 */
export async function insertChanges(q: Queryable, orgId: string, tenantRef: string, changes: readonly TenantChange[], receivedAt: Date): Promise<string[]> {
  if (changes.length === 0) return [];
  const rows = [...new Map(changes.map((c) => [c.recordId.toLowerCase(), c])).values()].map((c) => ({
    r: c.recordId.toLowerCase(),
    a: c.activity,
    t: c.occurredAt.toISOString(),
    k: c.object.kind,
    oi: c.object.kind === 'tenant' ? null : lowerOrNull(c.object.id ?? ''),
    ot: c.object.type,
    on: c.object.name,
    ds: lowerOrNull(c.links.datasetId),
    gw: lowerOrNull(c.links.gatewayId),
    src: lowerOrNull(c.links.datasourceId),
    ws: lowerOrNull(c.links.workspaceId),
    cap: lowerOrNull(c.links.capacityId),
    ok: c.isSuccess,
    au: c.actorUpn,
    at: c.actorType,
    raw: c.raw,
  }));
  const { rows: inserted } = await q.query<{ record_id: string }>(
    `INSERT INTO tenant_changes (org_id, tenant_ref, record_id, activity, occurred_at, object_kind, object_id, object_type, object_name,
       dataset_id, gateway_id, datasource_id, workspace_id, capacity_id, is_success, actor_upn, actor_type, raw, received_at)
     SELECT $1, $2, u.r, u.a, u.t, u.k, u.oi, u.ot, u.on, u.ds, u.gw, u.src, u.ws, u.cap, u.ok, u.au, u.at, u.raw, $4
     FROM jsonb_to_recordset($3::jsonb) AS u(r text, a text, t timestamptz, k text, oi text, ot text, "on" text, ds text, gw text,
       src text, ws text, cap text, ok boolean, au text, at integer, raw jsonb)
     ON CONFLICT (tenant_ref, record_id) DO NOTHING
     RETURNING record_id`,
    [orgId, tenantRef, JSON.stringify(rows), receivedAt],
  );
  return inserted.map((r) => r.record_id);
}

/** Where a page of the timeline ends (newest first): the last change's time and record id. */
export interface ChangeCursor {
  occurredAt: Date;
  recordId: string;
}

export function encodeChangeCursor(c: ChangeCursor): string {
  return Buffer.from(JSON.stringify([c.occurredAt.toISOString(), c.recordId]), 'utf8').toString('base64url');
}

/** The cursor a page gave, or null when `text` is not one (the caller answers 400). */
export function decodeChangeCursor(text: string): ChangeCursor | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return null;
  const [at, id] = parsed as unknown[];
  if (typeof at !== 'string' || typeof id !== 'string' || id.length > 200 || !/^[\w.:-]*$/.test(id)) return null;
  const occurredAt = new Date(at);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(at) || Number.isNaN(occurredAt.getTime())) return null;
  return { occurredAt, recordId: id };
}

/** An object and what it depends on (lower-case ids): rank.ts's IncidentScope, which join.ts builds. */
export interface ObjectDependencies {
  items: readonly string[];
  datasources: readonly string[];
  gateways: readonly string[];
  workspaces: readonly string[];
  capacities: readonly string[];
}

export interface ChangeQuery {
  /** Changes at or after this time. */
  from?: Date | null;
  /** Changes before this time. */
  to?: Date | null;
  objectKind?: ChangeObjectKind | null;
  /** With objectKind: that object only (any case). */
  objectId?: string | null;
  /** The operation name (case-insensitive). */
  activity?: string | null;
  /**
   * Instead of objectKind/objectId: the changes to an object and to what it depends on, by the
   * ranking's rule (rank.ts `pathOf`, here in SQL so pages stay whole).
   */
  dependsOn?: ObjectDependencies | null;
  /** 1–500. */
  limit: number;
  after?: ChangeCursor | null;
  /** Return the actor's UPN (roles that may see it, docs/access.md). */
  withActor: boolean;
}

export interface ChangePage {
  items: StoredChange[];
  nextCursor: string | null;
}

/** The columns of a stored change every reader shows: what was done, when, to which object, by whom. */
export interface ChangeHeadRow {
  record_id: string;
  activity: string;
  occurred_at: Date;
  object_kind: ChangeObjectKind;
  object_id: string | null;
  object_type: string | null;
  object_name: string | null;
  is_success: boolean | null;
  actor_upn: string | null;
}

interface ChangeRow extends ChangeHeadRow {
  tenant_ref: string;
  dataset_id: string | null;
  gateway_id: string | null;
  datasource_id: string | null;
  workspace_id: string | null;
  capacity_id: string | null;
  actor_type: number | null;
  raw: Record<string, unknown>;
  received_at: Date;
}

const COLUMNS = `tenant_ref, record_id, activity, occurred_at, object_kind, object_id, object_type, object_name, dataset_id, gateway_id,
  datasource_id, workspace_id, capacity_id, is_success, actor_type, raw, received_at`;

function toChange(r: ChangeRow, withActor: boolean): StoredChange {
  return {
    tenantRef: r.tenant_ref,
    recordId: r.record_id,
    activity: r.activity,
    occurredAt: r.occurred_at,
    object: { kind: r.object_kind, id: r.object_id, type: r.object_type, name: r.object_name },
    links: { datasetId: r.dataset_id, gatewayId: r.gateway_id, datasourceId: r.datasource_id, workspaceId: r.workspace_id, capacityId: r.capacity_id },
    isSuccess: r.is_success,
    actorUpn: withActor ? r.actor_upn : null,
    actorType: r.actor_type,
    raw: r.raw,
    receivedAt: r.received_at,
  };
}

/** One page of a tenant connection's changes, newest first (keyset: time, then record id). */
export async function listChanges(q: Queryable, orgId: string, tenantRef: string, req: ChangeQuery): Promise<ChangePage> {
  const params: unknown[] = [orgId, tenantRef];
  const where = ['org_id = $1', 'tenant_ref = $2'];
  const add = (sql: (p: string) => string, v: unknown) => {
    params.push(v);
    where.push(sql(`$${params.length}`));
  };
  if (req.from) add((p) => `occurred_at >= ${p}`, req.from);
  if (req.to) add((p) => `occurred_at < ${p}`, req.to);
  if (req.objectKind) add((p) => `object_kind = ${p}`, req.objectKind);
  if (req.objectKind && req.objectKind !== 'tenant' && req.objectId) add((p) => `object_id = ${p}`, req.objectId.toLowerCase());
  if (req.activity) add((p) => `lower(activity) = ${p}`, req.activity.toLowerCase());
  if (req.dependsOn) {
    const s = req.dependsOn;
    const ids: string[] = [];
    for (const list of [s.items, s.datasources, s.gateways, s.workspaces, s.capacities]) {
      params.push(list.map((id) => id.toLowerCase()));
      ids.push(`$${params.length}::text[]`);
    }
    const [items, sources, gateways, workspaces, capacities] = ids;
    // pathOf's rule: another item's change never counts through the ids it links to; a tenant setting always counts.
    where.push(`(
      (object_kind = 'item' AND object_id = ANY(${items})) OR dataset_id = ANY(${items})
      OR (object_kind <> 'item' AND datasource_id = ANY(${sources}))
      OR (object_kind = 'gateway' AND object_id = ANY(${gateways})) OR (object_kind <> 'item' AND gateway_id = ANY(${gateways}))
      OR (object_kind = 'workspace' AND object_id = ANY(${workspaces}))
      OR (object_kind = 'capacity' AND object_id = ANY(${capacities})) OR (object_kind = 'workspace' AND capacity_id = ANY(${capacities}))
      OR object_kind = 'tenant')`);
  }
  if (req.after) {
    params.push(req.after.occurredAt, req.after.recordId);
    where.push(`(occurred_at, record_id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(req.limit + 1);
  const actor = req.withActor ? ', actor_upn' : '';
  const { rows } = await q.query<ChangeRow>(
    `SELECT ${COLUMNS}${actor} FROM tenant_changes WHERE ${where.join(' AND ')}
     ORDER BY occurred_at DESC, record_id DESC LIMIT $${params.length}`,
    params,
  );
  const more = rows.length > req.limit;
  const items = rows.slice(0, req.limit).map((r) => toChange(r, req.withActor));
  const last = items.at(-1);
  return { items, nextCursor: more && last ? encodeChangeCursor({ occurredAt: last.occurredAt, recordId: last.recordId }) : null };
}

/** What an incident's object depends on: a change naming any of these ids (or the tenant) may have caused it. */
export interface ChangeScope {
  itemIds?: readonly string[];
  gatewayIds?: readonly string[];
  datasourceIds?: readonly string[];
  workspaceIds?: readonly string[];
  capacityIds?: readonly string[];
  /** Include changes to the tenant itself (tenant settings). */
  tenantWide?: boolean;
}

/**
 * Changes in [from, to) that touch any id of the scope, as the object or a linked id, oldest
 * first, at most `limit` (for the join of changes to incidents). Never returns the actor.
 */
export async function changesTouching(q: Queryable, orgId: string, tenantRef: string, scope: ChangeScope, from: Date, to: Date, limit = 200): Promise<StoredChange[]> {
  const ids = (l?: readonly string[]) => (l ?? []).map((s) => s.toLowerCase());
  const { rows } = await q.query<ChangeRow>(
    `SELECT ${COLUMNS} FROM tenant_changes
     WHERE org_id = $1 AND tenant_ref = $2 AND occurred_at >= $3 AND occurred_at < $4 AND (
       (object_kind = 'item' AND object_id = ANY($5::text[])) OR dataset_id = ANY($5::text[])
       OR (object_kind = 'gateway' AND object_id = ANY($6::text[])) OR gateway_id = ANY($6::text[])
       OR datasource_id = ANY($7::text[])
       OR (object_kind = 'workspace' AND object_id = ANY($8::text[])) OR workspace_id = ANY($8::text[])
       OR (object_kind = 'capacity' AND object_id = ANY($9::text[])) OR capacity_id = ANY($9::text[])
       OR ($10 AND object_kind = 'tenant'))
     ORDER BY occurred_at, record_id LIMIT $11`,
    [orgId, tenantRef, from, to, ids(scope.itemIds), ids(scope.gatewayIds), ids(scope.datasourceIds), ids(scope.workspaceIds), ids(scope.capacityIds), scope.tenantWide ?? false, limit],
  );
  return rows.map((r) => toChange(r, false));
}

/** The retention: forgets a tenant connection's changes older than `before`; returns how many. */
export async function deleteChangesBefore(q: Queryable, tenantRef: string, before: Date): Promise<number> {
  const { rowCount } = await q.query('DELETE FROM tenant_changes WHERE tenant_ref = $1 AND occurred_at < $2', [tenantRef, before]);
  return rowCount;
}

/** Days of changes a tenant connection keeps (tenants.change_retention_days, 1–400, default 30). */
export async function changeRetentionDays(q: Queryable, orgId: string, tenantRef: string): Promise<number | null> {
  const { rows } = await q.query<{ days: number }>('SELECT change_retention_days AS days FROM tenants WHERE org_id = $1 AND id = $2', [orgId, tenantRef]);
  return rows[0]?.days ?? null;
}

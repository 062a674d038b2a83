import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { roleIn } from '../access/people.js';
import { atLeast } from '../access/roles.js';
import { invalidRequest } from '../http/errors.js';
import { scopeOfObject, type ScopedObjectKind } from '../monitoring/changes/join.js';
import { CHANGE_PATHS, pathOf, type IncidentScope } from '../monitoring/changes/rank.js';
import { CHANGE_OBJECT_KINDS, type ChangeObjectKind, decodeChangeCursor, listChanges, type StoredChange } from '../monitoring/changes/store.js';
import { loadTenant } from '../monitoring/connection/tenant-row.js';
import { principalOf } from './auth.js';
import { adminResponses } from './openapi.js';

/**
 * The change timeline of a tenant connection: the changes the `activity` collector read from the
 * tenant's activity log (src/monitoring/changes/store.ts), newest first. Who made a change (the
 * log's UPN) is shown only to operators and owners of the organization and to the instance
 * administrator (docs/access.md); a viewer gets `actor: null` and `actorWithheld: true`.
 */

const nullable = { type: ['string', 'null'] } as const;

const changeSchema = {
  title: 'TenantChangeView',
  type: 'object',
  required: ['id', 'activity', 'occurredAt', 'receivedAt', 'object', 'links', 'path', 'isSuccess', 'actor', 'actorWithheld', 'actorType', 'raw'],
  properties: {
    id: { type: 'string', description: 'The log record’s `Id` (lower case).' },
    activity: { type: 'string', description: 'The operation name as logged (`UpdateDatasourceCredentials`, `BindToGateway`, `ChangeCapacityState`…).' },
    occurredAt: { type: 'string', format: 'date-time', description: 'When it happened (`CreationTime`, UTC).' },
    receivedAt: { type: 'string', format: 'date-time', description: 'When Vigia read it (the log has up to an hour of latency).' },
    object: {
      title: 'TenantChangeObject',
      type: 'object',
      required: ['kind', 'id', 'type', 'name'],
      properties: {
        kind: { type: 'string', enum: [...CHANGE_OBJECT_KINDS] },
        id: { ...nullable, description: 'The platform’s id (lower case); null for the tenant itself.' },
        type: { ...nullable, description: 'For kind `item`: SemanticModel, Report, Dataflow or the Fabric item kind.' },
        name: nullable,
      },
    },
    links: {
      title: 'TenantChangeLinks',
      type: 'object',
      required: ['datasetId', 'gatewayId', 'datasourceId', 'workspaceId', 'capacityId'],
      properties: { datasetId: nullable, gatewayId: nullable, datasourceId: nullable, workspaceId: nullable, capacityId: nullable },
    },
    path: {
      type: ['string', 'null'],
      enum: [...CHANGE_PATHS, null],
      description: 'With `dependencies=true`: how the change reaches the object asked for (`same`, `datasource`, `gateway`, `workspace`, `capacity`, `tenant`; docs/monitoring.md, the ranking); null otherwise.',
    },
    isSuccess: { type: ['boolean', 'null'] },
    actor: { ...nullable, description: 'Who did it (the log’s UPN): only for operators, owners and the instance administrator; null otherwise or when not logged.' },
    actorWithheld: { type: 'boolean', description: 'true when the caller’s role may not see the actor.' },
    actorType: { type: ['integer', 'null'], description: 'The log’s `UserType` (0 a user, 6 a service principal…).' },
    raw: { type: 'object', additionalProperties: true, description: 'The record as logged, without `UserId`, `UserKey` and `ClientIP`.' },
  },
} as const;

const pageSchema = {
  title: 'TenantChangePage',
  type: 'object',
  required: ['items', 'nextCursor'],
  properties: {
    items: { type: 'array', items: changeSchema },
    nextCursor: { type: ['string', 'null'], description: 'Pass as `after` for the next page; null on the last page.' },
  },
} as const;

interface Query {
  from?: string;
  to?: string;
  objectKind?: string;
  objectId?: string;
  activity?: string;
  dependencies?: string;
  limit?: string;
  after?: string;
}

const DEFAULT_PAGE = 100;
const MAX_PAGE = 500;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

function instant(v: string | undefined, name: string): Date | null {
  if (v === undefined) return null;
  const t = INSTANT.test(v) ? new Date(v) : null;
  if (!t || Number.isNaN(t.getTime())) throw invalidRequest(`${name} must be an ISO 8601 date-time with a zone (2026-11-20T10:00:00Z)`);
  return t;
}

/** Operators and owners of the organization and the instance administrator see who made a change. */
async function maySeeActor(ctx: AppContext, req: FastifyRequest, orgId: string): Promise<boolean> {
  const p = principalOf(req);
  if (p.kind === 'instance-admin') return true;
  return atLeast(await roleIn(ctx.db, p, orgId), 'operator');
}

/** Object kinds the `dependencies` filter takes: those whose dependencies the join knows. */
const SCOPED_KINDS: readonly string[] = ['item', 'gateway', 'capacity'] satisfies ScopedObjectKind[];

function view(c: StoredChange, withActor: boolean, scope: IncidentScope | null) {
  return {
    id: c.recordId,
    activity: c.activity,
    occurredAt: c.occurredAt.toISOString(),
    receivedAt: c.receivedAt.toISOString(),
    object: c.object,
    links: c.links,
    path: scope ? pathOf(c, scope) : null,
    isSuccess: c.isSuccess,
    actor: withActor ? c.actorUpn : null,
    actorWithheld: !withActor,
    actorType: c.actorType,
    raw: c.raw,
  };
}

export async function tenantChangesRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.get<{ Params: { orgId: string; id: string }; Querystring: Query }>(
    '/orgs/:orgId/tenants/:id/changes',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'getTenantChanges',
        summary: 'Changes read from the tenant’s activity log (the change timeline), newest first',
        tags: ['tenants'],
        description:
          'Paged by time, then record id (newest first): at most `limit` changes (default 100, at most 500) and a `nextCursor` to pass as `after`. `objectKind` and `objectId` name one object; with `dependencies=true` what it depends on too. The actor is shown to operators, owners and the instance administrator only.',
        params: { type: 'object', required: ['orgId', 'id'], properties: { orgId: { type: 'string', maxLength: 100 }, id: { type: 'string', maxLength: 100 } } },
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            from: { type: 'string', maxLength: 40, description: 'Changes at or after this instant (ISO 8601 with a zone).' },
            to: { type: 'string', maxLength: 40, description: 'Changes before this instant.' },
            objectKind: { type: 'string', enum: [...CHANGE_OBJECT_KINDS], description: 'Only changes to this kind of object.' },
            objectId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$', description: 'With objectKind: only changes to this object.' },
            activity: { type: 'string', pattern: '^[A-Za-z]{1,100}$', description: 'Only this activity (case-insensitive).' },
            dependencies: {
              type: 'string',
              enum: ['true', 'false'],
              description:
                'true, with objectKind item, gateway or capacity and objectId: the changes to that object and to what it depends on, as the join of changes to incidents sees it (an item’s data sources, gateways, workspace and capacity; a capacity’s workspaces moved onto it; the tenant’s settings), each with its `path`.',
            },
            limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: 'Changes per page, 1 to 500 (default 100).' },
            after: { type: 'string', maxLength: 1000, description: 'The `nextCursor` of the page before.' },
          },
        },
        response: adminResponses(pageSchema),
      },
    },
    async (req) => {
      const q = req.query;
      const limit = Number(q.limit ?? DEFAULT_PAGE);
      if (limit < 1 || limit > MAX_PAGE) throw invalidRequest(`limit must be from 1 to ${MAX_PAGE}`);
      const from = instant(q.from, 'from');
      const to = instant(q.to, 'to');
      if (from && to && to <= from) throw invalidRequest('to must be after from');
      if (q.objectId !== undefined && (q.objectKind === undefined || q.objectKind === 'tenant')) throw invalidRequest('objectId needs objectKind item, gateway, capacity or workspace');
      const dependencies = q.dependencies === 'true';
      if (dependencies && (q.objectId === undefined || !SCOPED_KINDS.includes(q.objectKind ?? ''))) throw invalidRequest('dependencies=true needs objectKind item, gateway or capacity and objectId');
      const after = q.after === undefined ? null : decodeChangeCursor(q.after);
      if (q.after !== undefined && !after) throw invalidRequest('after must be the nextCursor of a page of this list');
      const tenant = await loadTenant(ctx.db, req.params.orgId, req.params.id);
      const withActor = await maySeeActor(ctx, req, tenant.org_id);
      // The object's dependencies as the lineage knows them now (an item's gateways and capacity move with it).
      const scope = dependencies ? await scopeOfObject(ctx.db, tenant.id, q.objectKind as ScopedObjectKind, q.objectId!) : null;
      const page = await listChanges(ctx.db, tenant.org_id, tenant.id, {
        from,
        to,
        objectKind: scope ? null : ((q.objectKind as ChangeObjectKind | undefined) ?? null),
        objectId: scope ? null : (q.objectId ?? null),
        dependsOn: scope,
        activity: q.activity ?? null,
        limit,
        after,
        withActor,
      });
      return { items: page.items.map((c) => view(c, withActor, scope)), nextCursor: page.nextCursor };
    },
  );
}

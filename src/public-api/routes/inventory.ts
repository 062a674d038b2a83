import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { envelope, pageRequest, sendJsonTextPage } from '../paging.js';
import { CAPACITY_FIELDS, WORKSPACE_FIELDS, listCapacities, listWorkspaces } from '../queries/inventory.js';
import { listResponses, nullableString, pagingQuery, security } from '../schemas.js';

const capacityItem = {
  title: 'Capacity',
  type: 'object',
  required: [...CAPACITY_FIELDS],
  properties: { name: { type: 'string' }, sku: { type: 'string' }, state: { type: 'string' }, region: { type: 'string' } },
} as const;

const workspaceItem = {
  title: 'Workspace',
  type: 'object',
  required: [...WORKSPACE_FIELDS],
  properties: { name: { type: 'string' }, remoteId: { type: 'string' }, capacityName: nullableString },
} as const;

const pagingOnly = { type: 'object', additionalProperties: false, properties: { ...pagingQuery } } as const;

interface Query {
  page?: number;
  pageSize?: number;
  format?: string;
}

export async function inventoryRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get<{ Querystring: Query }>(
    '/capacities',
    {
      config: { scope: 'ReadCapacities', recheckKey: true },
      schema: {
        operationId: 'listCapacities',
        summary: 'List capacities, by name',
        description: 'Scope ReadCapacities.',
        tags: ['inventory'],
        security,
        querystring: pagingOnly,
        response: listResponses(capacityItem, 'CapacityPage', 'Paged envelope of capacity items'),
      },
    },
    async (request, reply) => {
      const p = pageRequest(request.query);
      const caller = request.apiCaller!;
      const page = await caller.checked((recheck) => listCapacities(ctx.db, caller.orgId, p.offset, p.pageSize, recheck));
      const meta = envelope<never>('/capacities', { format: request.query.format }, p, page.totalCount, []);
      return sendJsonTextPage(reply, request.query.format, 'capacities', CAPACITY_FIELDS, meta, page.itemsJson);
    },
  );

  app.get<{ Querystring: Query }>(
    '/workspaces',
    {
      config: { scope: 'ReadWorkspaces', recheckKey: true },
      schema: {
        operationId: 'listWorkspaces',
        summary: 'List workspaces, by name',
        description: 'Scope ReadWorkspaces.',
        tags: ['inventory'],
        security,
        querystring: pagingOnly,
        response: listResponses(workspaceItem, 'WorkspacePage', 'Paged envelope of workspace items'),
      },
    },
    async (request, reply) => {
      const p = pageRequest(request.query);
      const caller = request.apiCaller!;
      const page = await caller.checked((recheck) => listWorkspaces(ctx.db, caller.orgId, p.offset, p.pageSize, recheck));
      const meta = envelope<never>('/workspaces', { format: request.query.format }, p, page.totalCount, []);
      return sendJsonTextPage(reply, request.query.format, 'workspaces', WORKSPACE_FIELDS, meta, page.itemsJson);
    },
  );
}

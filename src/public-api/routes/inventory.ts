import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { listRoute, type PagingParams } from '../list-route.js';
import { CAPACITY_FIELDS, WORKSPACE_FIELDS, listCapacities, listWorkspaces } from '../queries/inventory.js';
import { nullableString } from '../schemas.js';

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

/** The two inventory lists: the organization's capacities and workspaces, by name. */
export async function inventoryRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const list = (what: { path: string; scope: 'ReadCapacities' | 'ReadWorkspaces'; operationId: string; name: string; title: string; item: object; fields: readonly string[]; read: typeof listCapacities }) =>
    listRoute(app, ctx, {
      path: what.path,
      scope: what.scope,
      operationId: what.operationId,
      summary: `List ${what.name}, by name`,
      description: `Scope ${what.scope}.`,
      tag: 'inventory',
      item: what.item,
      page: { title: `${what.title}Page`, description: `Paged envelope of ${what.title.toLowerCase()} items` },
      csv: { name: what.name, fields: what.fields },
      filter: (_q: PagingParams, orgId) => orgId,
      read: what.read,
      params: () => ({}),
    });
  list({ path: '/capacities', scope: 'ReadCapacities', operationId: 'listCapacities', name: 'capacities', title: 'Capacity', item: capacityItem, fields: CAPACITY_FIELDS, read: listCapacities });
  list({ path: '/workspaces', scope: 'ReadWorkspaces', operationId: 'listWorkspaces', name: 'workspaces', title: 'Workspace', item: workspaceItem, fields: WORKSPACE_FIELDS, read: listWorkspaces });
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { listMonitoredGateways, listMonitoredSemanticModels } from '../monitoring/sources/inventory/inventory-views.js';
import { requireOrg } from '../orgs/orgs.js';
import { orgIdParams } from '../orgs/schemas.js';
import { adminResponses, itemsSchema } from './openapi.js';

/**
 * Admin read views of the console's gateway and semantic model pages: what the monitoring
 * collectors found in the organization's tenants (src/monitoring/sources/inventory/inventory-views.ts).
 */

const gatewaysSchema = itemsSchema('GatewayInventory', {
  title: 'GatewayView',
  type: 'object',
  required: ['id', 'name', 'tenantName', 'offline', 'upgradeRequired', 'openIncidents'],
  properties: {
    id: { type: 'string', description: 'The platform’s gateway id (lower case): the `sourceId` of its incidents.' },
    name: { type: 'string' },
    tenantName: { type: 'string', description: 'The tenant connection that watches it.' },
    offline: { type: 'boolean', description: 'As the last status check said.' },
    upgradeRequired: { type: 'boolean' },
    openIncidents: { type: 'integer', description: 'Open incidents with source type `Gateway` and this id.' },
  },
});

const semanticModelsSchema = itemsSchema('SemanticModelInventory', {
  title: 'SemanticModelView',
  type: 'object',
  required: ['id', 'name', 'tenantName', 'workspaceId', 'workspaceName', 'capacityId', 'capacityName', 'gateways', 'openIncidents'],
  properties: {
    id: { type: 'string', description: 'The platform’s semantic model id (lower case): the `sourceId` of its `Dataset` incidents.' },
    name: { type: 'string' },
    tenantName: { type: 'string' },
    workspaceId: { type: 'string' },
    workspaceName: { type: ['string', 'null'], description: 'Null while the workspace is not in the organization’s inventory.' },
    capacityId: { type: ['string', 'null'] },
    capacityName: { type: ['string', 'null'] },
    gateways: {
      type: 'array',
      items: {
        title: 'SemanticModelGateway',
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'string' }, name: { type: ['string', 'null'], description: 'Null when the gateway collector does not know it.' } },
      },
    },
    openIncidents: { type: 'integer', description: 'Open incidents with source type `Dataset` and this id.' },
  },
});

export async function monitoredInventoryRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  /** A viewer's list of what the collectors found in the organization (404 for an unknown one). */
  const view = (path: string, operationId: string, summary: string, schema: object, list: (db: AppContext['db'], orgId: string) => Promise<unknown[]>) =>
    app.get<{ Params: { orgId: string } }>(
      path,
      { config: { access: 'viewer' }, schema: { operationId, summary, tags: ['inventory'], params: orgIdParams, response: adminResponses(schema) } },
      async (req) => {
        await requireOrg(ctx.db, req.params.orgId);
        return { items: await list(ctx.db, req.params.orgId) };
      },
    );

  view('/orgs/:orgId/gateways', 'getOrgGateways', 'On-premises gateways the gateway collector watches, with their state and open incidents', gatewaysSchema, listMonitoredGateways);
  view(
    '/orgs/:orgId/semantic-models',
    'getOrgSemanticModels',
    'Semantic models of the organization’s tenants with workspace, capacity, gateways and open incidents',
    semanticModelsSchema,
    listMonitoredSemanticModels,
  );
}

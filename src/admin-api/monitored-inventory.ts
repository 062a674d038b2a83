import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { invalidRequest } from '../http/errors.js';
import { decodeModelCursor, listMonitoredGateways, listMonitoredSemanticModels } from '../monitoring/sources/inventory/inventory-views.js';
import { requireOrg } from '../orgs/orgs.js';
import { findUnstorableText } from '../orgs/validation.js';
import { orgIdParams } from '../orgs/schemas.js';
import { adminResponses } from './openapi.js';

/**
 * Admin read views of the console's gateway and semantic model pages: what the monitoring
 * collectors found in the organization's tenants (src/monitoring/sources/inventory/inventory-views.ts).
 */

const gatewaysSchema = {
  title: 'GatewayInventory',
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        title: 'GatewayView',
        type: 'object',
        required: ['id', 'name', 'tenantId', 'tenantName', 'offline', 'upgradeRequired', 'openIncidents'],
        properties: {
          id: { type: 'string', description: 'The platform’s gateway id (lower case): the `sourceId` of its incidents.' },
          name: { type: 'string' },
          tenantId: { type: 'string', description: 'The id of the tenant connection that watches it (its changes: `GET …/tenants/{tenantId}/changes`).' },
          tenantName: { type: 'string', description: 'The tenant connection that watches it.' },
          offline: { type: 'boolean', description: 'As the last status check said.' },
          upgradeRequired: { type: 'boolean' },
          openIncidents: { type: 'integer', description: 'Open incidents with source type `Gateway` and this id.' },
        },
      },
    },
  },
} as const;

const semanticModelsSchema = {
  title: 'SemanticModelInventory',
  type: 'object',
  required: ['items', 'nextCursor'],
  properties: {
    nextCursor: {
      type: ['string', 'null'],
      description: 'Pass as `after` for the next page; null on the last page.',
    },
    items: {
      type: 'array',
      items: {
        title: 'SemanticModelView',
        type: 'object',
        required: ['id', 'name', 'tenantId', 'tenantName', 'workspaceId', 'workspaceName', 'capacityId', 'capacityName', 'gateways', 'openIncidents'],
        properties: {
          id: { type: 'string', description: 'The platform’s semantic model id (lower case): the `sourceId` of its `Dataset` incidents.' },
          name: { type: 'string' },
          tenantId: { type: 'string', description: 'The id of the tenant connection whose lineage holds it (its changes: `GET …/tenants/{tenantId}/changes`).' },
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
      },
    },
  },
} as const;

const DEFAULT_MODELS_PAGE = 100;
const MAX_MODELS_PAGE = 500;

export async function monitoredInventoryRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Params: { orgId: string } }>(
    '/orgs/:orgId/gateways',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgGateways',
        summary: 'On-premises gateways the gateway collector watches, with their state and open incidents',
        tags: ['inventory'],
        params: orgIdParams,
        response: adminResponses(gatewaysSchema),
      },
    },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      return { items: await listMonitoredGateways(ctx.db, req.params.orgId) };
    },
  );

  app.get<{ Params: { orgId: string }; Querystring: { limit?: string; after?: string; search?: string } }>(
    '/orgs/:orgId/semantic-models',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgSemanticModels',
        summary: 'Semantic models of the organization’s tenants with workspace, capacity, gateways and open incidents',
        tags: ['inventory'],
        description:
          'Paged by name (byte order), then id: at most `limit` models (default 100, at most 500) and a `nextCursor` to pass as `after` for the next page.',
        params: orgIdParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: 'Models per page, 1 to 500 (default 100).' },
            after: { type: 'string', maxLength: 4000, description: 'The `nextCursor` of the page before.' },
            search: { type: 'string', maxLength: 200, description: 'Only models whose name contains this text (case-insensitive).' },
          },
        },
        response: adminResponses(semanticModelsSchema),
      },
    },
    async (req) => {
      const limit = Number(req.query.limit ?? DEFAULT_MODELS_PAGE);
      if (limit < 1 || limit > MAX_MODELS_PAGE) throw invalidRequest(`limit must be from 1 to ${MAX_MODELS_PAGE}`);
      const after = req.query.after === undefined ? null : decodeModelCursor(req.query.after);
      // A forged cursor may carry text the database cannot compare (NUL, a lone surrogate).
      if (req.query.after !== undefined && (!after || findUnstorableText(after))) throw invalidRequest('after must be the nextCursor of a page of this list');
      await requireOrg(ctx.db, req.params.orgId);
      return listMonitoredSemanticModels(ctx.db, req.params.orgId, { limit, after, search: req.query.search || null });
    },
  );
}

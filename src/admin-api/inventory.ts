import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { replaceCapacities, replaceWorkspaces, upsertCosts, type Capacity, type DailyCost, type Workspace } from '../orgs/inventory.js';
import { nonEmptyText, orgIdParams } from '../orgs/schemas.js';
import { adminResponses } from './openapi.js';
import { capacitiesSchema, upsertedSchema, workspacesSchema } from './schemas.js';

const MAX_ITEMS = 10_000;
const money = { type: 'number', minimum: -1e12, maximum: 1e12 } as const;

/** Admin routes: capacities and workspaces (replace-all) and daily costs (upsert); see docs/admin-api.md. */
export async function inventoryRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.put<{ Params: { orgId: string }; Body: Capacity[] }>(
    '/orgs/:orgId/capacities',
    { config: { access: 'owner' },
      schema: {
        params: orgIdParams,
        body: {
          type: 'array',
          maxItems: MAX_ITEMS,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'sku', 'state', 'region'],
            properties: { name: nonEmptyText(200), sku: nonEmptyText(50), state: nonEmptyText(50), region: nonEmptyText(100) },
          },
        },
        response: adminResponses(capacitiesSchema),
      },
    },
    async (req) => replaceCapacities(ctx, req.params.orgId, req.body),
  );

  app.put<{ Params: { orgId: string }; Body: Workspace[] }>(
    '/orgs/:orgId/workspaces',
    { config: { access: 'owner' },
      schema: {
        params: orgIdParams,
        body: {
          type: 'array',
          maxItems: MAX_ITEMS,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'remoteId'],
            properties: {
              name: nonEmptyText(200),
              remoteId: nonEmptyText(200),
              capacityName: { anyOf: [nonEmptyText(200), { type: 'null' }] },
            },
          },
        },
        response: adminResponses(workspacesSchema),
      },
    },
    async (req) => replaceWorkspaces(ctx, req.params.orgId, req.body),
  );

  app.post<{ Params: { orgId: string }; Body: DailyCost[] }>(
    '/orgs/:orgId/costs',
    { config: { access: 'owner' },
      schema: {
        params: orgIdParams,
        body: {
          type: 'array',
          maxItems: MAX_ITEMS,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['date', 'capacityName', 'currency', 'cost', 'amortizedCost', 'overageCost'],
            properties: {
              date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
              capacityName: nonEmptyText(200),
              // ISO 4217 shape: three upper-case letters.
              currency: { type: 'string', pattern: '^[A-Z]{3}$' },
              cost: money,
              amortizedCost: money,
              overageCost: money,
            },
          },
        },
        response: adminResponses(upsertedSchema),
      },
    },
    async (req) => upsertCosts(ctx, req.params.orgId, req.body),
  );
}

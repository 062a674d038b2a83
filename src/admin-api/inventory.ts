import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { replaceCapacities, replaceWorkspaces, upsertCosts, type Capacity, type DailyCost, type Workspace } from '../orgs/inventory.js';
import { nonEmptyText, orgIdParams } from '../orgs/schemas.js';
import { adminResponses } from './openapi.js';
import { capacitiesSchema, upsertedSchema, workspacesSchema } from './schemas.js';

const MAX_ITEMS = 10_000;
const money = { type: 'number', minimum: -1e12, maximum: 1e12 } as const;

/** An owner's write of a whole list: the body is an array (at most MAX_ITEMS) of closed objects. */
function listWrite(required: string[], properties: Record<string, unknown>, response: object) {
  return {
    config: { access: 'owner' as const },
    schema: {
      params: orgIdParams,
      body: { type: 'array', maxItems: MAX_ITEMS, items: { type: 'object', additionalProperties: false, required, properties } },
      response: adminResponses(response),
    },
  };
}

/** Admin routes: capacities and workspaces (replace-all) and daily costs (upsert); see docs/admin-api.md. */
export async function inventoryRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.put<{ Params: { orgId: string }; Body: Capacity[] }>(
    '/orgs/:orgId/capacities',
    listWrite(
      ['name', 'sku', 'state', 'region'],
      { name: nonEmptyText(200), sku: nonEmptyText(50), state: nonEmptyText(50), region: nonEmptyText(100) },
      capacitiesSchema,
    ),
    async (req) => replaceCapacities(ctx, req.params.orgId, req.body),
  );

  app.put<{ Params: { orgId: string }; Body: Workspace[] }>(
    '/orgs/:orgId/workspaces',
    listWrite(
      ['name', 'remoteId'],
      { name: nonEmptyText(200), remoteId: nonEmptyText(200), capacityName: { anyOf: [nonEmptyText(200), { type: 'null' }] } },
      workspacesSchema,
    ),
    async (req) => replaceWorkspaces(ctx, req.params.orgId, req.body),
  );

  app.post<{ Params: { orgId: string }; Body: DailyCost[] }>(
    '/orgs/:orgId/costs',
    listWrite(
      ['date', 'capacityName', 'currency', 'cost', 'amortizedCost', 'overageCost'],
      {
        date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        capacityName: nonEmptyText(200),
        // ISO 4217 shape: three upper-case letters.
        currency: { type: 'string', pattern: '^[A-Z]{3}$' },
        cost: money,
        amortizedCost: money,
        overageCost: money,
      },
      upsertedSchema,
    ),
    async (req) => upsertCosts(ctx, req.params.orgId, req.body),
  );
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { type SetupInput, setUpEventhouse } from '../monitoring/utilization-setup.js';
import { adminResponses } from './openapi.js';
import { eventhouseSetupBodySchema, eventhouseSetupSchema } from './schemas.js';

/** Admin route: Vigia creates the Eventstream and table of the capacity overview events (rules in src/monitoring/utilization-setup.ts). */
export async function utilizationSetupRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.post<{ Params: { orgId: string; id: string }; Body: SetupInput }>(
    '/orgs/:orgId/tenants/:id/utilization/eventhouse',
    {
      config: { access: 'owner' },
      schema: {
        operationId: 'setUpUtilizationEventhouse',
        summary: 'Create the Eventhouse, KQL database, table and capacity-events Eventstream for the connection and store the source (idempotent)',
        tags: ['tenants'],
        params: {
          type: 'object',
          required: ['orgId', 'id'],
          properties: { orgId: { type: 'string', maxLength: 100 }, id: { type: 'string', maxLength: 100 } },
        },
        body: eventhouseSetupBodySchema,
        response: adminResponses(eventhouseSetupSchema),
      },
    },
    (req) => setUpEventhouse(ctx, req.params.orgId, req.params.id, req.body),
  );
}

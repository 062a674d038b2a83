import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { disableInbound, enableInbound, storeToolSecret } from '../inbound/endpoints.js';
import { createPagerDutySubscription } from '../inbound/pagerduty-subscription.js';
import { createAzureDevOpsHook } from '../inbound/azure-devops-hook.js';
import { adminResponses } from './openapi.js';
import { inboundSecretSchema, inboundStateSchema, toolSubscriptionSchema } from './schemas.js';

const idParams = {
  type: 'object',
  required: ['orgId', 'id'],
  properties: { orgId: { type: 'string', maxLength: 100 }, id: { type: 'string', maxLength: 100 } },
} as const;

/**
 * Admin routes: a connector destination's inbound address (docs/admin-api.md). Thin: secrets,
 * sealing and SQL are in inbound/endpoints.ts.
 */
export async function inboundAdminRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  type Id = { Params: { orgId: string; id: string } };

  app.post<Id>(
    '/orgs/:orgId/destinations/:id/inbound',
    { config: { access: 'owner' }, schema: { params: idParams, response: adminResponses(inboundSecretSchema, 201) } },
    async (req, reply) => reply.code(201).send(await enableInbound(ctx, req.params.orgId, req.params.id)),
  );

  app.put<Id & { Body: { secret: string } }>(
    '/orgs/:orgId/destinations/:id/inbound',
    {
      config: { access: 'owner' },
      schema: {
        params: idParams,
        body: { type: 'object', additionalProperties: false, required: ['secret'], properties: { secret: { type: 'string', minLength: 1, maxLength: 512 } } },
        response: adminResponses(inboundStateSchema),
      },
    },
    (req) => storeToolSecret(ctx, req.params.orgId, req.params.id, req.body.secret),
  );

  app.delete<Id>('/orgs/:orgId/destinations/:id/inbound', { config: { access: 'owner' }, schema: { params: idParams } }, async (req, reply) => {
    await disableInbound(ctx, req.params.orgId, req.params.id);
    return reply.code(204).send();
  });

  // PagerDuty: Vigia creates the webhook subscription itself with the destination's REST API key.
  app.post<Id & { Body: { serviceId?: string } | undefined }>(
    '/orgs/:orgId/destinations/:id/inbound/pagerduty-subscription',
    {
      config: { access: 'owner' },
      schema: {
        params: idParams,
        body: { type: ['object', 'null'], additionalProperties: false, properties: { serviceId: { type: 'string', minLength: 1, maxLength: 50 } } },
        response: adminResponses(toolSubscriptionSchema, 201),
      },
    },
    async (req, reply) => reply.code(201).send(await createPagerDutySubscription(ctx, req.params.orgId, req.params.id, req.body ?? {})),
  );

  // Azure DevOps: Vigia creates the service hook itself with the destination's PAT.
  app.post<Id>(
    '/orgs/:orgId/destinations/:id/inbound/azure-devops-hook',
    { config: { access: 'owner' }, schema: { params: idParams, response: adminResponses(toolSubscriptionSchema, 201) } },
    async (req, reply) => reply.code(201).send(await createAzureDevOpsHook(ctx, req.params.orgId, req.params.id)),
  );
}

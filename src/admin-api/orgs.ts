import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { createOrg, listOrgs, requireOrg, updateOrg, type CreateOrgInput, type UpdateOrgInput } from '../orgs/orgs.js';
import { escalationMinutesSchema, nonEmptyText, orgIdParams, slaTargetsSchema } from '../orgs/schemas.js';

/** Admin routes: organizations (CONTRACT §2). */
export async function orgsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.post<{ Body: CreateOrgInput }>(
    '/orgs',
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: nonEmptyText(), escalationMinutes: escalationMinutesSchema, slaTargets: slaTargetsSchema },
        },
      },
    },
    async (req, reply) => reply.code(201).send(await createOrg(ctx, req.body)),
  );

  app.get('/orgs', async () => listOrgs(ctx.db));

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId', { schema: { params: orgIdParams } }, async (req) =>
    requireOrg(ctx.db, req.params.orgId),
  );

  app.patch<{ Params: { orgId: string }; Body: UpdateOrgInput }>(
    '/orgs/:orgId',
    {
      schema: {
        params: orgIdParams,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            name: nonEmptyText(),
            suspended: { type: 'boolean' },
            escalationMinutes: escalationMinutesSchema,
            slaTargets: slaTargetsSchema,
          },
        },
      },
    },
    async (req) => updateOrg(ctx, req.params.orgId, req.body),
  );
}

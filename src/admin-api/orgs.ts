import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { createOrg, listOrgs, requireOrg, updateOrg, type CreateOrgInput, type UpdateOrgInput } from '../orgs/orgs.js';
import { orgIdsOf } from '../access/people.js';
import { principalOf } from './auth.js';
import { escalationMinutesSchema, languageSchema, nonEmptyText, orgIdParams, slaTargetsSchema, timeZoneSchema, emailReplyToSchema } from '../orgs/schemas.js';
import { adminResponses } from './openapi.js';

/** The organization as every route below answers it (also the console's generated `Org` type). */
const orgSchema = {
  title: 'Org',
  type: 'object',
  required: ['id', 'name', 'suspended', 'escalationMinutes', 'slaTargets', 'language', 'timeZone', 'emailReplyTo', 'ackRequiresSignIn', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    suspended: { type: 'boolean' },
    escalationMinutes: { type: ['integer', 'null'] },
    slaTargets: {
      title: 'SlaTargets',
      type: 'object',
      required: ['mttaMinutes', 'mttrMinutes', 'availabilityPercent'],
      properties: { mttaMinutes: { type: 'integer' }, mttrMinutes: { type: 'integer' }, availabilityPercent: { type: 'number' } },
    },
    language: languageSchema,
    timeZone: { type: 'string' },
    emailReplyTo: { type: ['string', 'null'], description: 'Reply-To of the alert e-mail of this organization; null = none.' },
    ackRequiresSignIn: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
} as const;

/** Admin routes: organizations (docs/admin-api.md). */
export async function orgsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.post<{ Body: CreateOrgInput }>(
    '/orgs',
    { config: { access: 'instance' },
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: nonEmptyText(), escalationMinutes: escalationMinutesSchema, slaTargets: slaTargetsSchema, language: languageSchema, timeZone: timeZoneSchema, emailReplyTo: emailReplyToSchema, ackRequiresSignIn: { type: 'boolean' } },
        },
        response: adminResponses(orgSchema, 201),
      },
    },
    async (req, reply) => reply.code(201).send(await createOrg(ctx, req.body)),
  );

  // Everyone signed in may list organizations; a person sees those where they hold a role.
  app.get('/orgs', { config: { access: 'signed-in' }, schema: { response: adminResponses({ type: 'array', items: orgSchema }) } }, async (req) => {
    const p = principalOf(req);
    const orgs = await listOrgs(ctx.db);
    if (p.kind === 'instance-admin') return orgs;
    const mine = new Set(await orgIdsOf(ctx.db, p));
    return orgs.filter((o) => mine.has(o.id));
  });

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId', { config: { access: 'viewer' }, schema: { params: orgIdParams, response: adminResponses(orgSchema) } }, async (req) =>
    requireOrg(ctx.db, req.params.orgId),
  );

  app.patch<{ Params: { orgId: string }; Body: UpdateOrgInput }>(
    '/orgs/:orgId',
    { config: { access: 'instance' },
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
            language: languageSchema,
            timeZone: timeZoneSchema,
            emailReplyTo: emailReplyToSchema,
            ackRequiresSignIn: { type: 'boolean' },
          },
        },
        response: adminResponses(orgSchema),
      },
    },
    async (req) => updateOrg(ctx, req.params.orgId, req.body),
  );
}

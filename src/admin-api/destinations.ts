import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ALERT_EVENTS } from '../outbox/index.js';
import { DESTINATION_KINDS } from '../delivery/destinations.js';
import { SIGNATURE_SCHEMES } from '../delivery/signing.js';
import {
  createDestination,
  deleteDestination,
  getDestination,
  listDestinations,
  recoverDeliveries,
  rotateSigningSecret,
  testDestination,
  updateDestination,
  type DestinationChange,
  type DestinationInput,
} from '../delivery/destination-service.js';
import { adminResponses } from './openapi.js';
import { createdDestinationSchema, destinationSchema, recoverResultSchema, signingSecretSchema, testResultSchema } from './schemas.js';

/** Admin routes: destinations. Thin: input rules, sealing and SQL are in delivery/destination-service.ts. */
const idParams = {
  type: 'object',
  required: ['orgId', 'id'],
  properties: { orgId: { type: 'string', maxLength: 100 }, id: { type: 'string', maxLength: 100 } },
} as const;
const orgParams = { type: 'object', required: ['orgId'], properties: { orgId: { type: 'string', maxLength: 100 } } } as const;

const filterSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    events: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...ALERT_EVENTS] } },
    severities: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: ['error', 'info'] } },
    sourceTypes: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 100 } },
  },
} as const;

const commonProps = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  url: { type: 'string', minLength: 1, maxLength: 2048 },
  config: { type: 'object', maxProperties: 50 },
  credentials: { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 4096 } },
  filter: filterSchema,
  enabled: { type: 'boolean' },
  signatureScheme: { type: 'string', enum: [...SIGNATURE_SCHEMES] },
  rateLimitPerSecond: { type: ['integer', 'null'], minimum: 1, maximum: 1000 },
  customInstanceDomain: { type: 'string', minLength: 1, maxLength: 253 },
} as const;

export async function destinationsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  type Id = { Params: { orgId: string; id: string } };

  app.post<{ Params: { orgId: string }; Body: DestinationInput }>(
    '/orgs/:orgId/destinations',
    { config: { access: 'owner' },
      schema: {
        params: orgParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'kind'],
          properties: { ...commonProps, kind: { type: 'string', enum: [...DESTINATION_KINDS] } },
        },
        response: adminResponses(createdDestinationSchema, 201),
      },
    },
    async (req, reply) => reply.code(201).send(await createDestination(ctx, req.params.orgId, req.body)),
  );

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId/destinations', { config: { access: 'viewer' }, schema: { params: orgParams, response: adminResponses({ type: 'array', items: destinationSchema }) } }, (req) =>
    listDestinations(ctx, req.params.orgId),
  );

  app.get<Id>('/orgs/:orgId/destinations/:id', { config: { access: 'viewer' }, schema: { params: idParams, response: adminResponses(destinationSchema) } }, (req) => getDestination(ctx, req.params.orgId, req.params.id));

  app.patch<Id & { Body: DestinationChange }>(
    '/orgs/:orgId/destinations/:id',
    { config: { access: 'owner' }, schema: { params: idParams, body: { type: 'object', additionalProperties: false, minProperties: 1, properties: commonProps }, response: adminResponses(destinationSchema) } },
    (req) => updateDestination(ctx, req.params.orgId, req.params.id, req.body),
  );

  app.delete<Id>('/orgs/:orgId/destinations/:id', { config: { access: 'owner' }, schema: { params: idParams } }, async (req, reply) => {
    await deleteDestination(ctx, req.params.orgId, req.params.id);
    return reply.code(204).send();
  });

  app.post<Id>('/orgs/:orgId/destinations/:id/rotate-secret', { config: { access: 'owner' }, schema: { params: idParams, response: adminResponses(signingSecretSchema) } }, (req) =>
    rotateSigningSecret(ctx, req.params.orgId, req.params.id),
  );

  app.post<Id & { Body: { since: string; until?: string } }>(
    '/orgs/:orgId/destinations/:id/recover',
    { config: { access: 'operator' },
      schema: {
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['since'],
          properties: { since: { type: 'string', maxLength: 40 }, until: { type: 'string', maxLength: 40 } },
        },
        response: adminResponses(recoverResultSchema, 202),
      },
    },
    async (req, reply) => reply.code(202).send(await recoverDeliveries(ctx, req.params.orgId, req.params.id, req.body)),
  );

  app.post<Id>('/orgs/:orgId/destinations/:id/test', { config: { access: 'operator' }, schema: { params: idParams, response: adminResponses(testResultSchema) } }, (req) =>
    testDestination(ctx, req.params.orgId, req.params.id),
  );
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { COLLECTOR_NAMES, MAX_INTERVAL_SECONDS, MIN_INTERVAL_SECONDS } from '../monitoring/connection/collector-names.js';
import { checkTenant } from '../monitoring/check.js';
import { checkSignIn } from '../monitoring/sign-in-check.js';
import { requestRun } from '../monitoring/engine/run-now.js';
import { removeTenant } from '../monitoring/tenant-removal.js';
import { createTenant, getTenant, listTenants, updateTenant } from '../monitoring/tenants.js';
import { MAX_MIRRORING_LAG_SECONDS } from '../monitoring/connection/mirroring-lag.js';
import type { TenantChange, TenantInput } from '../monitoring/connection/tenant-input.js';
import { nonEmptyText, orgIdParams } from '../orgs/schemas.js';
import { adminResponses } from './openapi.js';
import { utilizationInputSchema } from './schemas.js';
import { checkResultSchema, runRequestedSchema, tenantListSchema, tenantSchema } from './schemas.js';

/** Admin routes: tenant connections of the monitoring core. Thin: rules and SQL are in src/monitoring. */
const idParams = {
  type: 'object',
  required: ['orgId', 'id'],
  properties: { orgId: { type: 'string', maxLength: 100 }, id: { type: 'string', maxLength: 100 } },
} as const;

const pem = { type: 'string', minLength: 1, maxLength: 16_384 } as const;
const origin = { type: 'string', minLength: 1, maxLength: 2048 } as const;
const lagSeconds = { type: 'integer', minimum: 1, maximum: MAX_MIRRORING_LAG_SECONDS } as const;

const properties = {
  name: nonEmptyText(200),
  tenantId: nonEmptyText(100),
  clientId: nonEmptyText(100),
  credentials: {
    oneOf: [
      { type: 'object', additionalProperties: false, required: ['clientSecret'], properties: { clientSecret: { type: 'string', minLength: 1, maxLength: 1024 } } },
      { type: 'object', additionalProperties: false, required: ['certificatePem', 'privateKeyPem'], properties: { certificatePem: pem, privateKeyPem: pem } },
    ],
  },
  mode: { type: 'string', enum: ['admin', 'member'] },
  workspaces: { type: ['array', 'null'], maxItems: 1000, items: { type: 'string', maxLength: 100 } },
  costScopes: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 300 } },
  collectors: {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(
      COLLECTOR_NAMES.map((n) => [
        n,
        {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: { enabled: { type: 'boolean' }, intervalSeconds: { type: 'integer', minimum: MIN_INTERVAL_SECONDS, maximum: MAX_INTERVAL_SECONDS } },
        },
      ]),
    ),
  },
  endpoints: {
    type: ['object', 'null'],
    additionalProperties: false,
    properties: {
      authorityHost: { anyOf: [origin, { type: 'null' }] },
      powerBi: { anyOf: [origin, { type: 'null' }] },
      fabric: { anyOf: [origin, { type: 'null' }] },
      arm: { anyOf: [origin, { type: 'null' }] },
    },
  },
  // info < error is checked in src/monitoring/connection/mirroring-lag.ts (a change may give one of them).
  mirroringLag: { type: 'object', additionalProperties: false, minProperties: 1, properties: { infoSeconds: lagSeconds, errorSeconds: lagSeconds } },
  utilization: utilizationInputSchema,
  pageFindingsAtConnection: { type: 'boolean' },
  capSharePercent: { type: 'integer', minimum: 1, maximum: 100 },
  changeRetentionDays: { type: 'integer', minimum: 1, maximum: 400 },
  changeLookbackMinutes: { type: 'integer', minimum: 10, maximum: 10080 },
} as const;

export async function tenantsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  type Id = { Params: { orgId: string; id: string } };

  app.post<{ Params: { orgId: string }; Body: TenantInput }>(
    '/orgs/:orgId/tenants',
    {
      config: { access: 'owner' },
      schema: {
        params: orgIdParams,
        body: { type: 'object', additionalProperties: false, required: ['name', 'tenantId', 'clientId', 'credentials', 'mode'], properties },
        response: adminResponses(tenantSchema, 201),
      },
    },
    async (req, reply) => {
      const saved = await createTenant(ctx, req.params.orgId, req.body);
      return reply.code(201).send({ ...saved, credentialCheck: await checkSignIn(ctx, req.params.orgId, saved.id) });
    },
  );

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId/tenants', { config: { access: 'viewer' }, schema: { params: orgIdParams, response: adminResponses(tenantListSchema) } }, async (req) => ({
    value: await listTenants(ctx, req.params.orgId),
  }));

  app.get<Id>('/orgs/:orgId/tenants/:id', { config: { access: 'viewer' }, schema: { params: idParams, response: adminResponses(tenantSchema) } }, (req) => getTenant(ctx, req.params.orgId, req.params.id));

  app.patch<Id & { Body: TenantChange }>(
    '/orgs/:orgId/tenants/:id',
    { config: { access: 'owner' }, schema: { params: idParams, body: { type: 'object', additionalProperties: false, minProperties: 1, properties }, response: adminResponses(tenantSchema) } },
    async (req) => {
      const saved = await updateTenant(ctx, req.params.orgId, req.params.id, req.body);
      // New credentials are judged at once; the answer says they were saved and what the token endpoint said.
      return req.body.credentials === undefined ? saved : { ...saved, credentialCheck: await checkSignIn(ctx, req.params.orgId, req.params.id) };
    },
  );

  app.delete<Id>('/orgs/:orgId/tenants/:id', { config: { access: 'owner' }, schema: { params: idParams } }, async (req, reply) => {
    await removeTenant(ctx, req.params.orgId, req.params.id);
    return reply.code(204).send();
  });

  app.post<{ Params: { orgId: string; id: string; name: string } }>(
    '/orgs/:orgId/tenants/:id/collectors/:name/run',
    { config: { access: 'operator' }, schema: { params: { ...idParams, required: ['orgId', 'id', 'name'], properties: { ...idParams.properties, name: { type: 'string', maxLength: 100 } } }, response: adminResponses(runRequestedSchema, 202) } },
    async (req, reply) => reply.code(202).send(await requestRun(ctx, req.params.orgId, req.params.id, req.params.name)),
  );

  app.post<Id>('/orgs/:orgId/tenants/:id/check', { config: { access: 'owner' }, schema: { params: idParams, response: adminResponses(checkResultSchema) } }, (req) => checkTenant(ctx, req.params.orgId, req.params.id));
}

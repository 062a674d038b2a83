import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import {
  deleteFreshnessSettings,
  type FreshnessSettingsInput,
  getFreshnessSettings,
  MAX_AGE_LIMIT_MINUTES,
  MAX_GRACE_MINUTES,
  MAX_SCOPED_ENTRIES,
  putFreshnessSettings,
} from '../monitoring/connection/freshness-settings.js';
import { adminResponses } from './openapi.js';

/**
 * Admin routes: a tenant connection's data freshness settings (docs/admin-api.md) — the grace
 * period of scheduled refreshes and the maximum data age per tenant, workspace or item. Thin:
 * rules and SQL are in src/monitoring/connection/freshness-settings.ts.
 */
const idParams = {
  type: 'object',
  required: ['orgId', 'id'],
  properties: { orgId: { type: 'string', maxLength: 100 }, id: { type: 'string', maxLength: 100 } },
} as const;

const scoped = (title: string) =>
  ({
    type: 'array',
    maxItems: MAX_SCOPED_ENTRIES,
    items: {
      title,
      type: 'object',
      additionalProperties: false,
      required: ['id', 'maxAgeMinutes'],
      properties: { id: { type: 'string', minLength: 1, maxLength: 100 }, maxAgeMinutes: { type: 'integer', minimum: 1, maximum: MAX_AGE_LIMIT_MINUTES } },
    },
  }) as const;

/** The settings document, as every route answers it (also the console's generated `FreshnessSettings` type). */
const settingsSchema = {
  title: 'FreshnessSettings',
  type: 'object',
  required: ['graceMinutes', 'maxAgeMinutes', 'workspaces', 'items'],
  properties: {
    graceMinutes: { type: 'integer' },
    maxAgeMinutes: { type: ['integer', 'null'] },
    workspaces: scoped('WorkspaceMaxAge'),
    items: scoped('ItemMaxAge'),
  },
} as const;

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    graceMinutes: { type: 'integer', minimum: 1, maximum: MAX_GRACE_MINUTES },
    maxAgeMinutes: { anyOf: [{ type: 'integer', minimum: 1, maximum: MAX_AGE_LIMIT_MINUTES }, { type: 'null' }] },
    workspaces: scoped('WorkspaceMaxAge'),
    items: scoped('ItemMaxAge'),
  },
} as const;

/** The error answers every admin route shares, for a route whose success has no body. */
function errorsOnly() {
  const { 200: _ok, ...errors } = adminResponses({});
  return errors;
}

export async function freshnessRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  type Id = { Params: { orgId: string; id: string } };

  app.get<Id>('/orgs/:orgId/tenants/:id/freshness', { config: { access: 'viewer' }, schema: { params: idParams, response: adminResponses(settingsSchema) } }, (req) =>
    getFreshnessSettings(ctx, req.params.orgId, req.params.id),
  );

  app.put<Id & { Body: FreshnessSettingsInput }>(
    '/orgs/:orgId/tenants/:id/freshness',
    { config: { access: 'owner' }, schema: { params: idParams, body: bodySchema, response: adminResponses(settingsSchema) } },
    (req) => putFreshnessSettings(ctx, req.params.orgId, req.params.id, req.body),
  );

  app.delete<Id>(
    '/orgs/:orgId/tenants/:id/freshness',
    { config: { access: 'owner' }, schema: { params: idParams, response: { ...errorsOnly(), 204: { description: 'Reset to the defaults (grace 30 min, no maximum age); no body.' } } } },
    async (req, reply) => {
      await deleteFreshnessSettings(ctx, req.params.orgId, req.params.id);
      return reply.code(204).send();
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { API_SCOPES, createApiKey, listApiKeys, revokeApiKey } from '../orgs/api-keys.js';
import { parseIsoDateTime } from '../orgs/validation.js';
import { nonEmptyText, orgIdParams } from '../orgs/schemas.js';
import { adminResponses } from './openapi.js';
import { apiKeySchema, createdApiKeySchema } from './schemas.js';

interface CreateBody {
  name: string;
  scopes: string[];
  expiresAt?: string | null;
}

/** Admin routes: API keys (docs/admin-api.md). The clear key appears in the create response only. */
export async function apiKeysRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.post<{ Params: { orgId: string }; Body: CreateBody }>(
    '/orgs/:orgId/api-keys',
    { config: { access: 'owner' },
      schema: {
        params: orgIdParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'scopes'],
          properties: {
            name: nonEmptyText(),
            scopes: { type: 'array', minItems: 1, maxItems: API_SCOPES.length, uniqueItems: true, items: { type: 'string', enum: [...API_SCOPES] } },
            expiresAt: { type: ['string', 'null'], maxLength: 40 },
          },
        },
        response: adminResponses(createdApiKeySchema, 201),
      },
    },
    async (req, reply) => {
      const expiresAt = req.body.expiresAt == null ? null : parseIsoDateTime(req.body.expiresAt, 'expiresAt');
      const created = await createApiKey(ctx, req.params.orgId, { name: req.body.name, scopes: req.body.scopes, expiresAt });
      const { lastUsedAt: _l, revokedAt: _r, ...shown } = created;
      return reply.code(201).send(shown);
    },
  );

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId/api-keys', { config: { access: 'viewer' }, schema: { params: orgIdParams, response: adminResponses({ type: 'array', items: apiKeySchema }) } }, async (req) =>
    listApiKeys(ctx.db, req.params.orgId),
  );

  app.delete<{ Params: { orgId: string; keyId: string } }>(
    '/orgs/:orgId/api-keys/:keyId',
    { config: { access: 'owner' },
      schema: {
        params: {
          type: 'object',
          required: ['orgId', 'keyId'],
          properties: { orgId: { type: 'string', minLength: 1, maxLength: 100 }, keyId: { type: 'string', minLength: 1, maxLength: 100 } },
        },
      },
    },
    async (req, reply) => {
      await revokeApiKey(ctx, req.params.orgId, req.params.keyId);
      return reply.code(204).send();
    },
  );
}

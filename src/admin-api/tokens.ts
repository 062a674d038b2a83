import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { forbidden } from '../http/errors.js';
import { parseIsoDateTime } from '../orgs/validation.js';
import { orgIdParams, nonEmptyText } from '../orgs/schemas.js';
import { membershipRole, roleIn } from '../access/people.js';
import { createPersonalToken, listPersonalTokens, revokePersonalToken } from '../access/personal-tokens.js';
import { ROLES, atLeast, type Role } from '../access/roles.js';
import { principalOf } from './auth.js';
import { adminResponses } from './openapi.js';
import { createdPersonalTokenSchema, personalTokenSchema } from './schemas.js';

const idParam = { type: 'string', minLength: 1, maxLength: 100 } as const;
const roleSchema = { type: 'string', enum: [...ROLES] } as const;

/**
 * Admin routes: a person signed in to the console manages their own personal tokens, per
 * organization. A token carries only what the person holds by membership: a role from the
 * identity provider lives in the session that sign-in opened, and a token (up to a year) would
 * outlive the provider taking it away, so such a token is refused at creation with the reason.
 */
export async function tokensRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId/tokens', { config: { access: 'viewer' }, schema: { params: orgIdParams, response: adminResponses({ type: 'array', items: personalTokenSchema }) } }, async (req) => {
    const p = principalOf(req);
    if (p.kind !== 'person') return [];
    return (await listPersonalTokens(ctx.db, p.personId)).filter((t) => t.orgId === req.params.orgId);
  });

  app.post<{ Params: { orgId: string }; Body: { name: string; role: Role; expiresAt: string } }>(
    '/orgs/:orgId/tokens',
    {
      config: { access: 'viewer' },
      schema: {
        params: orgIdParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'role', 'expiresAt'],
          properties: { name: nonEmptyText(200), role: roleSchema, expiresAt: { type: 'string', maxLength: 40 } },
        },
        response: adminResponses(createdPersonalTokenSchema, 201),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      if (p.kind !== 'person' || p.via !== 'session') throw forbidden('personal tokens are created by a person signed in to the console');
      const { orgId } = req.params;
      const member = await membershipRole(ctx.db, orgId, p.personId);
      if (!atLeast(member, req.body.role) && atLeast(await roleIn(ctx.db, p, orgId), req.body.role)) {
        throw forbidden(
          `your ${req.body.role} role in this organization comes from the identity provider, and a personal token would outlive its revocation there; ` +
            `tokens carry roles held by membership only (yours: ${member ?? 'none'})`,
        );
      }
      const created = await createPersonalToken(ctx.db, {
        personId: p.personId,
        orgId,
        heldRole: member,
        name: req.body.name,
        role: req.body.role,
        expiresAt: parseIsoDateTime(req.body.expiresAt, 'expiresAt'),
        now: ctx.clock.now(),
      });
      return reply.code(201).send(created);
    },
  );

  app.delete<{ Params: { orgId: string; tokenId: string } }>(
    '/orgs/:orgId/tokens/:tokenId',
    { config: { access: 'viewer' }, schema: { params: { type: 'object', required: ['orgId', 'tokenId'], properties: { orgId: idParam, tokenId: idParam } } } },
    async (req, reply) => {
      const p = principalOf(req);
      if (p.kind !== 'person') throw forbidden('only a person has personal tokens');
      await revokePersonalToken(ctx.db, { personId: p.personId, orgId: req.params.orgId, tokenId: req.params.tokenId, now: ctx.clock.now() });
      return reply.code(204).send();
    },
  );
}

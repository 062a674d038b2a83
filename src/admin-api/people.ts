import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { forbidden } from '../http/errors.js';
import { parseIsoDateTime } from '../orgs/validation.js';
import { requireOrg } from '../orgs/orgs.js';
import { orgIdParams, nonEmptyText } from '../orgs/schemas.js';
import { assertNotLastOwner, listMembers, putMember, removeMember, roleIn } from '../access/people.js';
import { createPersonalToken, listPersonalTokens, revokePersonalToken } from '../access/personal-tokens.js';
import { ROLES, type Role } from '../access/roles.js';
import { principalOf } from './auth.js';
import { adminResponses } from './openapi.js';
import { createdPersonalTokenSchema, memberSchema, personalTokenSchema } from './schemas.js';

const idParam = { type: 'string', minLength: 1, maxLength: 100 } as const;
const roleSchema = { type: 'string', enum: [...ROLES] } as const;

/** Admin routes: members of an organization, the caller's personal tokens. */
export async function peopleRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId/members', { config: { access: 'viewer' }, schema: { params: orgIdParams, response: adminResponses({ type: 'array', items: memberSchema }) } }, async (req) => {
    await requireOrg(ctx.db, req.params.orgId);
    return listMembers(ctx.db, req.params.orgId);
  });

  app.put<{ Params: { orgId: string }; Body: { email: string; role: Role } }>(
    '/orgs/:orgId/members',
    {
      config: { access: 'owner' },
      schema: {
        params: orgIdParams,
        body: { type: 'object', additionalProperties: false, required: ['email', 'role'], properties: { email: nonEmptyText(320), role: roleSchema } },
        response: adminResponses(memberSchema),
      },
    },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      return ctx.db.tx(async (q) => {
        const existing = await q.query<{ id: string }>('SELECT id FROM people WHERE lower(email) = lower($1)', [req.body.email.trim()]);
        if (existing.rows[0] && req.body.role !== 'owner') await assertNotLastOwner(q, req.params.orgId, existing.rows[0].id);
        return putMember(q, req.params.orgId, req.body.email, req.body.role, ctx.clock.now());
      });
    },
  );

  app.delete<{ Params: { orgId: string; personId: string } }>(
    '/orgs/:orgId/members/:personId',
    { config: { access: 'owner' }, schema: { params: { type: 'object', required: ['orgId', 'personId'], properties: { orgId: idParam, personId: idParam } } } },
    async (req, reply) => {
      await ctx.db.tx(async (q) => {
        await assertNotLastOwner(q, req.params.orgId, req.params.personId);
        await removeMember(q, req.params.orgId, req.params.personId, ctx.clock.now());
      });
      return reply.code(204).send();
    },
  );

  // Personal tokens: a person signed in to the console manages their own, per organization.
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
      const created = await createPersonalToken(ctx.db, {
        personId: p.personId,
        orgId: req.params.orgId,
        heldRole: await roleIn(ctx.db, p, req.params.orgId),
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
      await revokePersonalToken(ctx.db, p.personId, req.params.tokenId, ctx.clock.now());
      return reply.code(204).send();
    },
  );
}

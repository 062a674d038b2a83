import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { forbidden } from '../http/errors.js';
import { requireOrg } from '../orgs/orgs.js';
import { orgIdParams, nonEmptyText } from '../orgs/schemas.js';
import { assertNotLastOwner, listMembers, membershipRole, putMember, removeMember } from '../access/people.js';
import { ROLES, type Role } from '../access/roles.js';
import type { Principal } from '../access/principal.js';
import { principalOf } from './auth.js';
import { adminResponses } from './openapi.js';
import { memberSchema } from './schemas.js';

const idParam = { type: 'string', minLength: 1, maxLength: 100 } as const;
const roleSchema = { type: 'string', enum: [...ROLES] } as const;

/**
 * Making someone a permanent owner needs an owner by membership (or the instance administrator):
 * an owner only through the identity provider's claim loses that role when the provider stops
 * sending it, and must not leave behind owners who outlive that revocation.
 */
async function assertMayGrantOwner(ctx: AppContext, p: Principal, orgId: string): Promise<void> {
  if (p.kind === 'instance-admin') return;
  if ((await membershipRole(ctx.db, orgId, p.personId)) !== 'owner') {
    throw forbidden('your owner role comes from the identity provider; only an owner by membership (or the instance administrator) can make someone an owner');
  }
}

/** Admin routes: the members of an organization (personal tokens: tokens.ts; the audit log: audit.ts). */
export async function peopleRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId/members', { config: { access: 'viewer' }, schema: { params: orgIdParams, response: adminResponses({ type: 'array', items: memberSchema }) } }, async (req) => {
    await requireOrg(ctx.db, req.params.orgId);
    return listMembers(ctx.db, req.params.orgId, ctx.clock.now());
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
      if (req.body.role === 'owner') await assertMayGrantOwner(ctx, principalOf(req), req.params.orgId);
      return ctx.db.tx(async (q) => {
        const existing = await q.query<{ id: string }>('SELECT id FROM people WHERE lower(email) = lower($1)', [req.body.email.trim()]);
        if (existing.rows[0] && req.body.role !== 'owner') await assertNotLastOwner(q, req.params.orgId, existing.rows[0].id);
        return putMember(q, req.params.orgId, req.body.email, req.body.role, ctx.clock.now());
      });
    },
  );

  // Ends the person's access to this organization only (src/access/people.ts, removeMember).
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
}

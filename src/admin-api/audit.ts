import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { invalidRequest } from '../http/errors.js';
import { MAX_PAGE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../http/paging.js';
import { parseIsoDateTime } from '../orgs/validation.js';
import { requireOrg } from '../orgs/orgs.js';
import { orgIdParams } from '../orgs/schemas.js';
import { listAudit } from '../access/audit.js';
import { adminResponses } from './openapi.js';
import { auditPageSchema } from './schemas.js';

/**
 * Admin routes: reading the audit log — an organization's (owners) and the instance-level one
 * (the instance administrator). What is written there, and when: docs/access.md.
 */
export async function auditRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  type AuditQuery = { actor?: string; action?: string; from?: string; to?: string; page?: string; pageSize?: string };
  const auditQuerystring = {
    type: 'object',
    additionalProperties: false,
    properties: {
      actor: { type: 'string', minLength: 1, maxLength: 320 },
      action: { type: 'string', minLength: 1, maxLength: 100 },
      from: { type: 'string', maxLength: 40 },
      to: { type: 'string', maxLength: 40 },
      page: { type: 'string', pattern: '^[0-9]{1,6}$' },
      pageSize: { type: 'string', pattern: '^[0-9]{1,6}$' },
    },
  } as const;
  /** One page of an audit log: an organization's, or (null) the instance-level one. */
  async function auditPage(orgId: string | null, query: AuditQuery, path: string) {
    const p = pageRequest({ page: Number(query.page ?? 1), pageSize: Number(query.pageSize ?? 100) });
    if (p.page < 1 || p.page > MAX_PAGE) throw invalidRequest(`page must be from 1 to ${MAX_PAGE}`);
    if (p.pageSize < 1 || p.pageSize > MAX_PAGE_SIZE) throw invalidRequest(`pageSize must be from 1 to ${MAX_PAGE_SIZE}`);
    const from = query.from === undefined ? undefined : parseIsoDateTime(query.from, 'from');
    const to = query.to === undefined ? undefined : parseIsoDateTime(query.to, 'to');
    if (from && to && from >= to) throw invalidRequest('from must be before to');
    const { actor, action } = query;
    const { entries, totalCount } = await listAudit(ctx.db, { orgId, actor, action, from, to, limit: p.pageSize, offset: p.offset });
    return pageEnvelope(path, { actor, action, from: from?.toISOString(), to: to?.toISOString() }, p, totalCount, entries);
  }

  app.get<{ Params: { orgId: string }; Querystring: AuditQuery }>(
    '/orgs/:orgId/audit',
    { config: { access: 'owner' }, schema: { params: orgIdParams, querystring: auditQuerystring, response: adminResponses(auditPageSchema) } },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      return auditPage(req.params.orgId, req.query, `/api/admin/v1/orgs/${encodeURIComponent(req.params.orgId)}/audit`);
    },
  );

  // What belongs to no organization (admin-token sign-ins and sign-outs): the instance administrator's.
  app.get<{ Querystring: AuditQuery }>(
    '/audit',
    { config: { access: 'instance' }, schema: { querystring: auditQuerystring, response: adminResponses(auditPageSchema) } },
    async (req) => auditPage(null, req.query, '/api/admin/v1/audit'),
  );
}

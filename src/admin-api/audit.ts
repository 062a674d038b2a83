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

/** Admin route: an organization's audit log, for its owners. */
export async function auditRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.get<{ Params: { orgId: string }; Querystring: { actor?: string; action?: string; from?: string; to?: string; page?: string; pageSize?: string } }>(
    '/orgs/:orgId/audit',
    {
      config: { access: 'owner' },
      schema: {
        params: orgIdParams,
        querystring: {
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
        },
        response: adminResponses(auditPageSchema),
      },
    },
    async (req) => {
      const { orgId } = req.params;
      await requireOrg(ctx.db, orgId);
      const p = pageRequest({ page: Number(req.query.page ?? 1), pageSize: Number(req.query.pageSize ?? 100) });
      if (p.page < 1 || p.page > MAX_PAGE) throw invalidRequest(`page must be from 1 to ${MAX_PAGE}`);
      if (p.pageSize < 1 || p.pageSize > MAX_PAGE_SIZE) throw invalidRequest(`pageSize must be from 1 to ${MAX_PAGE_SIZE}`);
      const from = req.query.from === undefined ? undefined : parseIsoDateTime(req.query.from, 'from');
      const to = req.query.to === undefined ? undefined : parseIsoDateTime(req.query.to, 'to');
      if (from && to && from >= to) throw invalidRequest('from must be before to');
      const { actor, action } = req.query;
      const { entries, totalCount } = await listAudit(ctx.db, { orgId, actor, action, from, to, limit: p.pageSize, offset: p.offset });
      const path = `/api/admin/v1/orgs/${encodeURIComponent(orgId)}/audit`;
      return pageEnvelope(path, { actor, action, from: from?.toISOString(), to: to?.toISOString() }, p, totalCount, entries);
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { type AlertListFilter, listOrgAlerts, requireAlert } from '../alerts/listing.js';
import { listAlertDeliveries } from '../delivery/history.js';
import { invalidRequest } from '../http/errors.js';
import { MAX_PAGE, pageEnvelope } from '../http/paging.js';
import { parseIsoDateTime } from '../orgs/validation.js';
import { adminResponses } from './openapi.js';
import { alertDeliveriesSchema, alertPageSchema } from './schemas.js';

/**
 * Admin read views the web console needs: the alert list of an organization (the public API's
 * list needs an API key and omits ids) and the deliveries made for one alert's events.
 */

const idParam = { type: 'string', minLength: 1, maxLength: 100 } as const;
const pageParam = { type: 'string', pattern: '^[0-9]{1,6}$' } as const;

/** The list's query: the filter of alerts/listing.ts, its window and page as the URL writes them. */
type ListQuery = Omit<AlertListFilter, 'from' | 'to'> & { from?: string; to?: string; page?: string; pageSize?: string };

export async function alertViewsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Params: { orgId: string }; Querystring: ListQuery }>(
    '/orgs/:orgId/alerts',
    { config: { access: 'viewer' },
      schema: {
        params: { type: 'object', required: ['orgId'], properties: { orgId: idParam } },
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: ['open', 'resolved'] },
            severity: { type: 'string', enum: ['error', 'info'] },
            sourceType: { type: 'string', minLength: 1, maxLength: 100 },
            sourceId: { type: 'string', minLength: 1, maxLength: 500 },
            capacityName: { type: 'string', minLength: 1, maxLength: 200 },
            workspaceName: { type: 'string', minLength: 1, maxLength: 200 },
            // A tenant connection's id: its collectors' incidents and the monitor's own about it.
            tenant: { type: 'string', minLength: 1, maxLength: 100 },
            from: { type: 'string', maxLength: 40 },
            to: { type: 'string', maxLength: 40 },
            page: pageParam,
            pageSize: pageParam,
          },
        },
        response: adminResponses(alertPageSchema),
      },
    },
    async (req) => {
      const { orgId } = req.params;
      const { page: _page, ...rest } = req.query;
      const q = req.query;
      const p = { page: Number(q.page ?? 1), pageSize: Number(q.pageSize ?? 50) };
      if (p.page < 1 || p.page > MAX_PAGE) throw invalidRequest('page must be from 1 to 1000');
      if (p.pageSize < 1 || p.pageSize > 200) throw invalidRequest('pageSize must be from 1 to 200');
      const from = q.from === undefined ? undefined : parseIsoDateTime(q.from, 'from');
      const to = q.to === undefined ? undefined : parseIsoDateTime(q.to, 'to');
      if (from && to && from >= to) throw invalidRequest('from must be before to');
      const filter = { status: q.status, severity: q.severity, sourceType: q.sourceType, sourceId: q.sourceId, capacityName: q.capacityName, workspaceName: q.workspaceName, tenant: q.tenant, from, to };
      const offset = (p.page - 1) * p.pageSize;
      const { value, totalCount } = await listOrgAlerts(ctx.db, ctx.config.baseUrl, orgId, filter, { offset, limit: p.pageSize });
      // nextLink repeats every parameter of the request, so following it never changes the result set.
      return pageEnvelope(`/api/admin/v1/orgs/${encodeURIComponent(orgId)}/alerts`, rest, { ...p, offset }, totalCount, value);
    },
  );

  app.get<{ Params: { orgId: string; alertId: string } }>(
    '/orgs/:orgId/alerts/:alertId/deliveries',
    {
      config: { access: 'viewer' },
      schema: { params: { type: 'object', required: ['orgId', 'alertId'], properties: { orgId: idParam, alertId: idParam } }, response: adminResponses(alertDeliveriesSchema) },
    },
    async (req) => {
      const { orgId, alertId } = req.params;
      await requireAlert(ctx.db, orgId, alertId);
      return listAlertDeliveries(ctx.db, orgId, alertId);
    },
  );
}

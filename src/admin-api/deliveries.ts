import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { getDelivery, listDeliveries, redeliverDelivery } from '../delivery/history.js';
import { invalidRequest } from '../http/errors.js';
import { MAX_PAGE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../http/paging.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../outbox/index.js';
import { parseIsoDateTime } from '../orgs/validation.js';
import { adminResponses } from './openapi.js';
import { deliveryDetailSchema, deliveryPageSchema, deliverySchema } from './schemas.js';

/** Admin routes: delivery history and redelivery. Thin: the work is in delivery/history.ts. */

const deliveryParams = {
  type: 'object',
  required: ['orgId', 'deliveryId'],
  properties: { orgId: { type: 'string' }, deliveryId: { type: 'string' } },
} as const;

export async function deliveriesRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Params: { orgId: string; id: string }; Querystring: { status?: DeliveryStatus; from?: string; to?: string; page?: string; pageSize?: string } }>(
    '/orgs/:orgId/destinations/:id/deliveries',
    { config: { access: 'viewer' },
      schema: {
        params: { type: 'object', required: ['orgId', 'id'], properties: { orgId: { type: 'string' }, id: { type: 'string' } } },
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: [...DELIVERY_STATUSES] },
            from: { type: 'string', maxLength: 40 },
            to: { type: 'string', maxLength: 40 },
            page: { type: 'string', pattern: '^[0-9]{1,6}$' },
            pageSize: { type: 'string', pattern: '^[0-9]{1,6}$' },
          },
        },
        response: adminResponses(deliveryPageSchema),
      },
    },
    async (req) => {
      const { orgId, id } = req.params;
      const { status } = req.query;
      const p = pageRequest({ page: Number(req.query.page ?? 1), pageSize: Number(req.query.pageSize ?? 100) });
      if (p.page < 1 || p.page > MAX_PAGE) throw invalidRequest(`page must be from 1 to ${MAX_PAGE}`);
      if (p.pageSize < 1 || p.pageSize > MAX_PAGE_SIZE) throw invalidRequest(`pageSize must be from 1 to ${MAX_PAGE_SIZE}`);
      // Time filter on createdAt: from inclusive, to exclusive.
      const from = req.query.from === undefined ? undefined : parseIsoDateTime(req.query.from, 'from');
      const to = req.query.to === undefined ? undefined : parseIsoDateTime(req.query.to, 'to');
      if (from && to && from >= to) throw invalidRequest('from must be before to');
      const filter = { orgId, destinationId: id, status, from, to, limit: p.pageSize, offset: p.offset };
      const { value, totalCount } = await listDeliveries(ctx.db, filter);
      const path = `/api/admin/v1/orgs/${encodeURIComponent(orgId)}/destinations/${encodeURIComponent(id)}/deliveries`;
      return pageEnvelope(path, { status, from: from?.toISOString(), to: to?.toISOString() }, p, totalCount, value);
    },
  );

  app.get<{ Params: { orgId: string; deliveryId: string } }>('/orgs/:orgId/deliveries/:deliveryId', { config: { access: 'viewer' }, schema: { params: deliveryParams, response: adminResponses(deliveryDetailSchema) } }, async (req) =>
    getDelivery(ctx.db, req.params.orgId, req.params.deliveryId),
  );

  app.post<{ Params: { orgId: string; deliveryId: string } }>(
    '/orgs/:orgId/deliveries/:deliveryId/redeliver',
    { config: { access: 'operator' }, schema: { params: deliveryParams, response: adminResponses(deliverySchema, 202) } },
    async (req, reply) => reply.code(202).send(await redeliverDelivery(ctx.db, req.params.orgId, req.params.deliveryId, ctx.clock.now())),
  );
}

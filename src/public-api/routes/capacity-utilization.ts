import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { envelope, pageRequest, sendJsonTextPage } from '../paging.js';
import { type Granularity, listCapacityUtilization, UTILIZATION_FIELDS } from '../queries/capacity-utilization.js';
import { capacityUtilizationItem, listResponses, pagingQuery, security } from '../schemas.js';
import { instantWindow } from '../windows.js';

interface Query {
  capacityName?: string;
  from?: string;
  to?: string;
  granularity?: Granularity;
  page?: number;
  pageSize?: number;
  format?: string;
}

export async function capacityUtilizationRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get<{ Querystring: Query }>(
    '/capacities/utilization',
    {
      config: { scope: 'ReadCapacities', recheckKey: true },
      schema: {
        operationId: 'listCapacityUtilization',
        summary: 'Capacity load over time, oldest first',
        description:
          'Scope ReadCapacities. `from` inclusive, `to` exclusive (ISO 8601 UTC); default the last 7 days; at most 366 days. ' +
          'granularity `hour` (default; kept 400 days): max and mean of each figure and minutes in each throttling stage; ' +
          '`30s` (kept 14 days): each 30-second window of the capacity overview events.',
        tags: ['inventory'],
        security,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            capacityName: { type: 'string', minLength: 1, maxLength: 256, description: 'One capacity, by name (exact); default all.' },
            from: { type: 'string', format: 'date-time', description: 'Start, ISO 8601 UTC (inclusive).' },
            to: { type: 'string', format: 'date-time', description: 'End, ISO 8601 UTC (exclusive).' },
            granularity: { type: 'string', enum: ['hour', '30s'], default: 'hour', description: 'hour (400 days) or 30s (14 days).' },
            ...pagingQuery,
          },
        },
        response: listResponses(capacityUtilizationItem, 'CapacityUtilizationPage', 'Paged envelope of capacity utilization items'),
      },
    },
    async (request, reply) => {
      const q = request.query;
      const w = instantWindow(q, ctx.clock.now());
      const granularity = q.granularity ?? 'hour';
      const caller = request.apiCaller!;
      const p = pageRequest(q);
      const filter = { orgId: caller.orgId, capacityName: q.capacityName, from: w.from, to: w.to, granularity };
      const page = await caller.checked((recheck) => listCapacityUtilization(ctx.db, filter, p.offset, p.pageSize, recheck));
      const params = { capacityName: q.capacityName, from: w.from.toISOString(), to: w.to.toISOString(), granularity, format: q.format };
      const meta = envelope<never>('/capacities/utilization', params, p, page.totalCount, []);
      return sendJsonTextPage(reply, q.format, 'capacity-utilization', UTILIZATION_FIELDS, meta, page.itemsJson);
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { invalidRequest } from '../../http/errors.js';
import { isIso4217 } from '../currencies.js';
import { envelope, pageRequest, sendJsonTextPage } from '../paging.js';
import { COST_FIELDS, listDailyCosts } from '../queries/costs.js';
import { dailyCostItem, listResponses, pagingQuery, security } from '../schemas.js';
import { DAY_MS, dayWindow, startOfUtcDay } from '../windows.js';

interface Query {
  from?: string;
  to?: string;
  currency?: string;
  page?: number;
  pageSize?: number;
  format?: string;
}

export async function costsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get<{ Querystring: Query }>(
    '/costs/daily',
    {
      config: { scope: 'ReadCosts', recheckKey: true },
      schema: {
        operationId: 'listDailyCosts',
        summary: 'Daily costs in one currency, newest day first',
        description:
          'Scope ReadCosts. Days inclusive; default the 30 complete days before today (UTC); at most 366 days. ' +
          'One currency per response: the requested one, else the one with the most rows in the period (ties: alphabetical).',
        tags: ['costs'],
        security,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            from: { type: 'string', format: 'date', description: 'First day, yyyy-MM-dd (inclusive).' },
            to: { type: 'string', format: 'date', description: 'Last day, yyyy-MM-dd (inclusive).' },
            currency: { type: 'string', pattern: '^[A-Z]{3}$', 'x-expected': 'an ISO 4217 code', description: 'ISO 4217 code, e.g. USD.' },
            ...pagingQuery,
          },
        },
        response: listResponses(dailyCostItem, 'DailyCostPage', 'Paged envelope of daily cost items'),
      },
    },
    async (request, reply) => {
      const q = request.query;
      if (q.currency !== undefined && !isIso4217(q.currency)) throw invalidRequest('currency must be an ISO 4217 code');
      const yesterday = new Date(startOfUtcDay(ctx.clock.now()).getTime() - DAY_MS);
      const w = dayWindow(q, yesterday, 30);
      const caller = request.apiCaller!;
      const p = pageRequest(q);
      const filter = { orgId: caller.orgId, from: w.from, to: w.to, currency: q.currency };
      const page = await caller.checked((recheck) => listDailyCosts(ctx.db, filter, p.offset, p.pageSize, recheck));
      // The resolved currency is pinned too, so later pages cannot switch currency.
      const params = { from: w.from, to: w.to, currency: page.currency ?? undefined, format: q.format };
      const meta = envelope<never>('/costs/daily', params, p, page.totalCount, []);
      return sendJsonTextPage(reply, q.format, 'daily-costs', COST_FIELDS, meta, page.itemsJson);
    },
  );
}

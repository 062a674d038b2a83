import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { invalidRequest } from '../../http/errors.js';
import { isIso4217 } from '../currencies.js';
import { listRoute, type PagingParams } from '../list-route.js';
import { COST_FIELDS, listDailyCosts } from '../queries/costs.js';
import { dailyCostItem, dayRangeQuery } from '../schemas.js';
import { DAY_MS, dayWindow, startOfUtcDay } from '../windows.js';

interface Query extends PagingParams {
  from?: string;
  to?: string;
  currency?: string;
}

export async function costsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  listRoute(app, ctx, {
    path: '/costs/daily',
    scope: 'ReadCosts',
    operationId: 'listDailyCosts',
    summary: 'Daily costs in one currency, newest day first',
    description:
      'Scope ReadCosts. Days inclusive; default the 30 complete days before today (UTC); at most 366 days. ' +
      'One currency per response: the requested one, else the one with the most rows in the period (ties: alphabetical).',
    tag: 'costs',
    query: {
      ...dayRangeQuery,
      currency: { type: 'string', pattern: '^[A-Z]{3}$', 'x-expected': 'an ISO 4217 code', description: 'ISO 4217 code, e.g. USD.' },
    },
    item: dailyCostItem,
    page: { title: 'DailyCostPage', description: 'Paged envelope of daily cost items' },
    csv: { name: 'daily-costs', fields: COST_FIELDS },
    filter: (q: Query, orgId, now) => {
      if (q.currency !== undefined && !isIso4217(q.currency)) throw invalidRequest('currency must be an ISO 4217 code');
      const w = dayWindow(q, new Date(startOfUtcDay(now).getTime() - DAY_MS), 30);
      return { orgId, from: w.from, to: w.to, currency: q.currency };
    },
    read: listDailyCosts,
    // The resolved currency is pinned too, so later pages cannot switch currency.
    params: (_q, f, page) => ({ from: f.from, to: f.to, currency: page.currency ?? undefined }),
  });
}

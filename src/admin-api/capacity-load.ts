import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { requireOrg } from '../orgs/orgs.js';
import { orgIdParams } from '../orgs/schemas.js';
import type { Granularity } from '../public-api/queries/capacity-utilization.js';
import { invalidRequest } from '../http/errors.js';
import { DAY_MS, instantWindow } from '../public-api/windows.js';
import { capacityLoadView } from './capacity-load-views.js';
import { adminResponses } from './openapi.js';
import { capacityLoadViewSchema } from './schemas.js';

/**
 * Admin read of the capacity load chart (console, Capacidades page): the public API's
 * `/capacities/utilization` query for the organization, unpaged, with the load incidents of the
 * period. API-key holders use the public API; the console uses this, with its session.
 */
export async function capacityLoadRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.get<{ Params: { orgId: string }; Querystring: { capacityName?: string; from?: string; to?: string; days?: string; granularity?: Granularity } }>(
    '/orgs/:orgId/capacities/utilization',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgCapacityUtilization',
        summary: 'Capacity load over a period (the public API’s /capacities/utilization, unpaged) and its load incidents',
        tags: ['overview'],
        params: orgIdParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            capacityName: { type: 'string', minLength: 1, maxLength: 256, description: 'One capacity, by name (exact); default all.' },
            from: { type: 'string', format: 'date-time', description: 'Start, ISO 8601 UTC (inclusive); default 7 days before `to`.' },
            to: { type: 'string', format: 'date-time', description: 'End, ISO 8601 UTC (exclusive); default now.' },
            days: { type: 'string', pattern: '^[1-9][0-9]{0,2}$', description: 'Whole days (1–366). Instead of `from`: the period is the `days` days before `to` (the server\'s clock, not the browser\'s, decides "now").' },
            granularity: { type: 'string', enum: ['hour', '30s'], description: 'hour (default; 400 days) or 30s (14 days).' },
          },
        },
        response: adminResponses(capacityLoadViewSchema),
      },
    },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      const q = req.query;
      if (q.days !== undefined && q.from !== undefined) throw invalidRequest('give from or days, not both');
      const end = q.to ?? ctx.clock.now().toISOString();
      const w = instantWindow(q.days !== undefined ? { to: end, from: new Date(Date.parse(end) - Number(q.days) * DAY_MS).toISOString() } : q, ctx.clock.now());
      return capacityLoadView(ctx, req.params.orgId, { capacityName: req.query.capacityName, from: w.from, to: w.to, granularity: req.query.granularity ?? 'hour' });
    },
  );
}

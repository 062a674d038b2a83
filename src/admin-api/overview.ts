import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { countOpenAlerts } from '../alerts/listing.js';
import { requireOrg } from '../orgs/orgs.js';
import { orgIdParams } from '../orgs/schemas.js';
import { loadSlaTargets, slaReport } from '../public-api/queries/sla.js';
import { alertMetrics, metricsSchema } from '../public-api/routes/metrics.js';
import { slaSchema } from '../public-api/routes/sla.js';
import { DAY_MS, dayWindow, monthWindow, startOfUtcDay } from '../public-api/windows.js';
import { adminResponses } from './openapi.js';
import { allCosts, capacityInventory, metricsSeries, slaHistory, workspaceInventory } from './overview-views.js';
import { capacityViewSchema, costSeriesSchema, openIncidentsSchema, seriesSchema, slaHistorySchema, workspaceViewSchema } from './schemas.js';

/**
 * Admin read views of the console's overview and inventory pages. Every figure comes from the
 * public API's own query functions (metrics, SLA, costs, inventory), called with the same
 * windows, so the console and the public API always agree for the same period. The routes are
 * here, the figures in ./overview-views.ts, the answers' schemas in ./schemas/overview.ts.
 */

const dayQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { type: 'string', format: 'date', description: 'First day, yyyy-MM-dd (inclusive, UTC).' },
    to: { type: 'string', format: 'date', description: 'Last day, yyyy-MM-dd (inclusive, UTC).' },
  },
} as const;

export async function overviewRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  alertFigureRoutes(app, opts.ctx);
  slaAndCostRoutes(app, opts.ctx);
  inventoryViewRoutes(app, opts.ctx);
}

/** The overview's alert figures: metrics of a period, their series, incidents open now. */
function alertFigureRoutes(app: FastifyInstance, ctx: AppContext): void {
  const today = () => startOfUtcDay(ctx.clock.now());

  app.get<{ Params: { orgId: string }; Querystring: { from?: string; to?: string } }>(
    '/orgs/:orgId/metrics',
    { config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgMetrics',
        summary: 'Alert metrics of a period (the public API’s /alerts/metrics)',
        tags: ['overview'],
        params: orgIdParams,
        querystring: dayQuery,
        response: adminResponses(metricsSchema),
      },
    },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      return alertMetrics(ctx.db, req.params.orgId, dayWindow(req.query, today(), 7));
    },
  );

  app.get<{ Params: { orgId: string }; Querystring: { from?: string; to?: string; step?: 'day' | 'week' } }>(
    '/orgs/:orgId/metrics/series',
    { config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgMetricsSeries',
        summary: 'Incidents by source type, MTTA and MTTR per day or per week (weeks start on `from`)',
        tags: ['overview'],
        params: orgIdParams,
        querystring: { ...dayQuery, properties: { ...dayQuery.properties, step: { type: 'string', enum: ['day', 'week'] } } },
        response: adminResponses(seriesSchema),
      },
    },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      return metricsSeries(ctx, req.params.orgId, dayWindow(req.query, today(), 7), req.query.step ?? 'day');
    },
  );

  app.get<{ Params: { orgId: string } }>(
    '/orgs/:orgId/incidents/open',
    { config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgOpenIncidents',
        summary: 'Open incidents now, by severity and source type',
        tags: ['overview'],
        params: orgIdParams,
        response: adminResponses(openIncidentsSchema),
      },
    },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      const groups = await countOpenAlerts(ctx.db, req.params.orgId);
      return { total: groups.reduce((n, g) => n + g.incidents, 0), groups };
    },
  );
}

/** The SLA report of a month, the last 12 months' reports, and daily costs. */
function slaAndCostRoutes(app: FastifyInstance, ctx: AppContext): void {
  const today = () => startOfUtcDay(ctx.clock.now());

  app.get<{ Params: { orgId: string }; Querystring: { month?: string } }>(
    '/orgs/:orgId/sla',
    { config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgSlaReport',
        summary: 'Monthly SLA report (the public API’s /sla)',
        tags: ['overview'],
        params: orgIdParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { month: { type: 'string', pattern: '^\\d{4}-\\d{2}$', description: 'yyyy-MM; default the previous month.' } },
        },
        response: adminResponses(slaSchema),
      },
    },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      const now = ctx.clock.now();
      return slaReport(ctx.db, await loadSlaTargets(ctx.db, req.params.orgId), monthWindow(req.query.month, now), now);
    },
  );

  app.get<{ Params: { orgId: string } }>(
    '/orgs/:orgId/sla/history',
    { config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgSlaHistory',
        summary: 'SLA reports of the last 12 months, the current one (so far) last',
        tags: ['overview'],
        params: orgIdParams,
        response: adminResponses(slaHistorySchema),
      },
    },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      return slaHistory(ctx, req.params.orgId);
    },
  );

  app.get<{ Params: { orgId: string }; Querystring: { from?: string; to?: string; currency?: string } }>(
    '/orgs/:orgId/costs/daily',
    { config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgDailyCosts',
        summary: 'Every daily cost of the period in one currency (the public API’s /costs/daily, unpaged)',
        tags: ['overview'],
        params: orgIdParams,
        querystring: { ...dayQuery, properties: { ...dayQuery.properties, currency: { type: 'string', pattern: '^[A-Z]{3}$' } } },
        response: adminResponses(costSeriesSchema),
      },
    },
    async (req) => {
      const { orgId } = req.params;
      await requireOrg(ctx.db, orgId);
      // The public route's default: the 30 complete days before today.
      const w = dayWindow(req.query, new Date(today().getTime() - DAY_MS), 30);
      return { from: w.from, to: w.to, ...(await allCosts(ctx, orgId, w, req.query.currency)) };
    },
  );
}

/** The inventory pages' views (capacities, workspaces), with open incidents per resource. */
function inventoryViewRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { orgId: string } }>(
    '/orgs/:orgId/capacities',
    { config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgCapacities',
        summary: 'Capacities with availability and cost this month and open incidents',
        tags: ['inventory'],
        params: orgIdParams,
        response: adminResponses(capacityViewSchema),
      },
    },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      return capacityInventory(ctx, req.params.orgId);
    },
  );

  app.get<{ Params: { orgId: string } }>(
    '/orgs/:orgId/workspaces',
    { config: { access: 'viewer' },
      schema: {
        operationId: 'getOrgWorkspaces',
        summary: 'Workspaces with their capacity and open incidents',
        tags: ['inventory'],
        params: orgIdParams,
        response: adminResponses(workspaceViewSchema),
      },
    },
    async (req) => {
      await requireOrg(ctx.db, req.params.orgId);
      return workspaceInventory(ctx, req.params.orgId);
    },
  );
}

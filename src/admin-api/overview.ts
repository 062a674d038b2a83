import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { countOpenAlerts, countOpenAlertsBy } from '../alerts/listing.js';
import { invalidRequest } from '../http/errors.js';
import { requireOrg } from '../orgs/orgs.js';
import { orgIdParams } from '../orgs/schemas.js';
import { listDailyCosts, type CostItem } from '../public-api/queries/costs.js';
import { listCapacities, listWorkspaces, type CapacityItem, type WorkspaceItem } from '../public-api/queries/inventory.js';
import { summarizeIncidents } from '../public-api/queries/metrics.js';
import { capacityAvailability, loadSlaTargets, slaReport } from '../public-api/queries/sla.js';
import { alertMetrics, metricsSchema } from '../public-api/routes/metrics.js';
import { slaSchema } from '../public-api/routes/sla.js';
import { bySourceTypeItem, dailyCostItem, durationStats } from '../public-api/schemas.js';
import { DAY_MS, dayWindow, formatDate, monthWindow, startOfUtcDay } from '../public-api/windows.js';
import { adminResponses } from './openapi.js';

/**
 * Admin read views of the console's overview and inventory pages. Every figure comes from the
 * public API's own query functions (metrics, SLA, costs, inventory), called with the same
 * windows, so the console and the public API always agree for the same period.
 */

/** Rows a single answer may carry (a year of daily costs of ~27 capacities). */
const MAX_ROWS = 10_000;
/** Buckets of one series: 92 days, or the weeks of a year. */
const MAX_BUCKETS = 92;

const dayQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { type: 'string', format: 'date', description: 'First day, yyyy-MM-dd (inclusive, UTC).' },
    to: { type: 'string', format: 'date', description: 'Last day, yyyy-MM-dd (inclusive, UTC).' },
  },
} as const;

const seriesSchema = {
  title: 'MetricsSeries',
  type: 'object',
  required: ['from', 'to', 'step', 'buckets'],
  properties: {
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    step: { type: 'string', enum: ['day', 'week'] },
    buckets: {
      type: 'array',
      items: {
        title: 'MetricsBucket',
        type: 'object',
        required: ['from', 'to', 'incidents', 'bySourceType', 'mtta', 'mttr'],
        properties: {
          from: { type: 'string', format: 'date' },
          to: { type: 'string', format: 'date' },
          incidents: { type: 'integer' },
          bySourceType: { type: 'array', items: bySourceTypeItem },
          mtta: durationStats,
          mttr: durationStats,
        },
      },
    },
  },
} as const;

const slaHistorySchema = {
  title: 'SlaHistory',
  type: 'object',
  required: ['months'],
  properties: { months: { type: 'array', items: slaSchema } },
} as const;

const costSeriesSchema = {
  title: 'DailyCostSeries',
  type: 'object',
  required: ['from', 'to', 'currency', 'items'],
  properties: {
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    currency: { type: ['string', 'null'], description: 'ISO 4217; the requested one, else the period’s predominant one.' },
    items: {
      type: 'array',
      items: dailyCostItem,
    },
  },
} as const;

const openIncidentsSchema = {
  title: 'OpenIncidents',
  type: 'object',
  required: ['total', 'groups'],
  properties: {
    total: { type: 'integer' },
    groups: {
      type: 'array',
      items: {
        title: 'OpenIncidentGroup',
        type: 'object',
        required: ['severity', 'sourceType', 'incidents'],
        properties: { severity: { type: 'string', enum: ['error', 'info'] }, sourceType: { type: 'string' }, incidents: { type: 'integer' } },
      },
    },
  },
} as const;

const capacityViewSchema = {
  title: 'CapacityInventory',
  type: 'object',
  required: ['month', 'currency', 'items'],
  properties: {
    month: { type: 'string', pattern: '^\\d{4}-\\d{2}$' },
    currency: { type: ['string', 'null'] },
    items: {
      type: 'array',
      items: {
        title: 'CapacityView',
        type: 'object',
        required: ['name', 'sku', 'state', 'region', 'availabilityPercent', 'costThisMonth', 'openIncidents'],
        properties: {
          name: { type: 'string' },
          sku: { type: 'string' },
          state: { type: 'string' },
          region: { type: 'string' },
          availabilityPercent: { type: 'number', description: 'This month so far (UTC), as in the SLA report.' },
          costThisMonth: { type: ['number', 'null'], description: 'Sum of the daily costs this month in `currency`; null without rows.' },
          openIncidents: { type: 'integer' },
        },
      },
    },
  },
} as const;

const workspaceViewSchema = {
  title: 'WorkspaceInventory',
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        title: 'WorkspaceView',
        type: 'object',
        required: ['name', 'remoteId', 'capacityName', 'openIncidents'],
        properties: {
          name: { type: 'string' },
          remoteId: { type: 'string' },
          capacityName: { type: ['string', 'null'] },
          openIncidents: { type: 'integer' },
        },
      },
    },
  },
} as const;

type Window = ReturnType<typeof dayWindow>;

/** Every cost row of the window in one currency (the public list's statement, one big page). */
async function allCosts(ctx: AppContext, orgId: string, w: { from: string; to: string }, currency?: string) {
  const page = await listDailyCosts(ctx.db, { orgId, from: w.from, to: w.to, currency }, 0, MAX_ROWS, null);
  return { currency: page.currency, items: JSON.parse(page.itemsJson) as CostItem[] };
}

function buckets(w: Window, step: 'day' | 'week'): Array<{ start: Date; end: Date }> {
  const size = step === 'day' ? DAY_MS : 7 * DAY_MS;
  const out: Array<{ start: Date; end: Date }> = [];
  for (let s = w.start.getTime(); s < w.endExclusive.getTime(); s += size) {
    out.push({ start: new Date(s), end: new Date(Math.min(s + size, w.endExclusive.getTime())) });
  }
  return out;
}

export async function overviewRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
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
      const { orgId } = req.params;
      await requireOrg(ctx.db, orgId);
      const step = req.query.step ?? 'day';
      const w = dayWindow(req.query, today(), 7);
      const parts = buckets(w, step);
      if (parts.length > MAX_BUCKETS) throw invalidRequest(`the period must have at most ${MAX_BUCKETS} ${step}s`);
      const out = [];
      // One bucket after the other: each is a small read of the rollups, and a series must not
      // take every connection of the pool.
      for (const b of parts) {
        const s = await summarizeIncidents(ctx.db, orgId, b.start, b.end);
        out.push({
          from: formatDate(b.start),
          to: formatDate(new Date(b.end.getTime() - DAY_MS)),
          incidents: s.incidents,
          bySourceType: s.bySourceType,
          mtta: s.mtta,
          mttr: s.mttr,
        });
      }
      return { from: w.from, to: w.to, step, buckets: out };
    },
  );

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
      const now = ctx.clock.now();
      const org = await loadSlaTargets(ctx.db, req.params.orgId);
      const months = [];
      for (let back = 11; back >= 0; back--) {
        const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
        months.push(await slaReport(ctx.db, org, monthWindow(d.toISOString().slice(0, 7), now), now));
      }
      return { months };
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
      const { orgId } = req.params;
      await requireOrg(ctx.db, orgId);
      const now = ctx.clock.now();
      const month = monthWindow(formatDate(now).slice(0, 7), now);
      const org = await loadSlaTargets(ctx.db, orgId);
      const page = await listCapacities(ctx.db, orgId, 0, MAX_ROWS, null);
      const capacities = JSON.parse(page.itemsJson) as CapacityItem[];
      const availability = new Map(
        (await capacityAvailability(ctx.db, orgId, month.start, now, org.availabilityPercent)).map((a) => [a.capacityName, a.availabilityPercent]),
      );
      const costs = await allCosts(ctx, orgId, { from: formatDate(month.start), to: formatDate(now) });
      const costOf = new Map<string, number>();
      for (const c of costs.items) costOf.set(c.capacityName, (costOf.get(c.capacityName) ?? 0) + c.cost);
      const open = await countOpenAlertsBy(ctx.db, orgId, 'capacity');
      return {
        month: month.month,
        currency: costs.currency,
        items: capacities.map((c) => ({
          ...c,
          // A capacity without any Capacity error incident was up the whole month.
          availabilityPercent: availability.get(c.name) ?? 100,
          costThisMonth: costOf.has(c.name) ? Math.round(costOf.get(c.name)! * 100) / 100 : null,
          openIncidents: open.get(c.name) ?? 0,
        })),
      };
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
      const { orgId } = req.params;
      await requireOrg(ctx.db, orgId);
      const page = await listWorkspaces(ctx.db, orgId, 0, MAX_ROWS, null);
      const workspaces = JSON.parse(page.itemsJson) as WorkspaceItem[];
      const open = await countOpenAlertsBy(ctx.db, orgId, 'workspace');
      return { items: workspaces.map((w) => ({ ...w, openIncidents: open.get(w.name) ?? 0 })) };
    },
  );
}

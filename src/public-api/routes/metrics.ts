import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Queryable } from '../../db/index.js';
import { summarizeIncidents } from '../queries/metrics.js';
import { bySourceTypeItem, dayRangeQuery, durationStats, noisiestSourceItem, objectResponses, security } from '../schemas.js';
import { dayWindow, startOfUtcDay } from '../windows.js';

export const metricsSchema = {
  title: 'AlertMetrics',
  type: 'object',
  required: ['from', 'to', 'totals', 'mtta', 'mttr', 'bySourceType', 'noisiestSources'],
  properties: {
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    totals: {
      type: 'object',
      required: ['incidents', 'acknowledged', 'resolved', 'openUnacknowledged', 'silenced', 'correlated', 'reoccurrences'],
      properties: {
        incidents: { type: 'integer' },
        acknowledged: { type: 'integer' },
        resolved: { type: 'integer' },
        openUnacknowledged: { type: 'integer' },
        silenced: { type: 'integer' },
        correlated: { type: 'integer' },
        reoccurrences: { type: 'integer' },
      },
    },
    mtta: durationStats,
    mttr: durationStats,
    bySourceType: { type: 'array', items: bySourceTypeItem },
    noisiestSources: { type: 'array', items: noisiestSourceItem, maxItems: 10 },
  },
} as const;

export async function metricsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get<{ Querystring: { from?: string; to?: string } }>(
    '/alerts/metrics',
    {
      config: { scope: 'ReadMetrics' },
      schema: {
        operationId: 'getAlertMetrics',
        summary: 'Alert metrics of a period',
        description:
          'Scope ReadMetrics. Incidents created in the days from..to (both inclusive, UTC); default the 7 days ending today; ' +
          'at most 366 days. MTTA = acknowledgedAt − createdAt over acknowledged incidents; MTTR = resolvedAt − createdAt over resolved ones.',
        tags: ['alerts'],
        security,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: dayRangeQuery,
        },
        response: objectResponses(metricsSchema, 'Alert metrics of the period'),
      },
    },
    async (request) => alertMetrics(ctx.db, request.apiCaller!.orgId, dayWindow(request.query, startOfUtcDay(ctx.clock.now()), 7)),
  );
}

/** The metrics answer of one organization for a day window: the public API's and the console's. */
export async function alertMetrics(db: Queryable, orgId: string, w: { from: string; to: string; start: Date; endExclusive: Date }) {
  const s = await summarizeIncidents(db, orgId, w.start, w.endExclusive);
  return {
    from: w.from,
    to: w.to,
    totals: {
      incidents: s.incidents,
      acknowledged: s.acknowledged,
      resolved: s.resolved,
      openUnacknowledged: s.openUnacknowledged,
      silenced: s.silenced,
      correlated: s.correlated,
      reoccurrences: s.reoccurrences,
    },
    mtta: s.mtta,
    mttr: s.mttr,
    bySourceType: s.bySourceType,
    noisiestSources: s.noisiestSources,
  };
}

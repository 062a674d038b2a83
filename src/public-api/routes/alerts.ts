import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { envelope, pageRequest, sendJsonTextPage } from '../paging.js';
import { ALERT_FIELDS, listAlerts } from '../queries/alerts.js';
import { dateTime, listResponses, nullableDateTime, nullableString, pagingQuery, security } from '../schemas.js';
import { instantWindow } from '../windows.js';

const alertItem = {
  title: 'Alert',
  type: 'object',
  required: [...ALERT_FIELDS],
  properties: {
    sourceType: { type: 'string' },
    sourceName: { type: 'string' },
    severity: { type: 'string', enum: ['error', 'info'] },
    notificationKind: { type: 'string' },
    status: { type: 'string', enum: ['open', 'resolved'] },
    message: { type: 'string' },
    createdAt: dateTime,
    resolvedAt: nullableDateTime,
    acknowledgedAt: nullableDateTime,
    failureCount: { type: 'integer' },
    lastOccurrenceAt: dateTime,
    workspaceName: nullableString,
    capacityName: nullableString,
  },
} as const;

interface Query {
  from?: string;
  to?: string;
  status?: string;
  sourceType?: string;
  page?: number;
  pageSize?: number;
  format?: string;
}

export async function alertsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get<{ Querystring: Query }>(
    '/alerts',
    {
      config: { scope: 'ReadAlerts', recheckKey: true },
      schema: {
        operationId: 'listAlerts',
        summary: 'List alerts (incidents), newest first',
        description: 'Scope ReadAlerts. Filters createdAt in [from, to); default the last 7 days; at most 366 days.',
        tags: ['alerts'],
        security,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            from: { type: 'string', format: 'date-time', description: 'Inclusive, ISO 8601 UTC (Z). Default: to − 7 days.' },
            to: { type: 'string', format: 'date-time', description: 'Exclusive, ISO 8601 UTC (Z). Default: now.' },
            status: { type: 'string', enum: ['open', 'resolved'] },
            sourceType: { type: 'string', minLength: 1, maxLength: 100, description: 'e.g. Gateway, Capacity, Dataset.' },
            ...pagingQuery,
          },
        },
        response: listResponses(alertItem, 'AlertPage', 'Paged envelope of alert items'),
      },
    },
    async (request, reply) => {
      const q = request.query;
      const { from, to } = instantWindow(q, ctx.clock.now());
      const p = pageRequest(q);
      const caller = request.apiCaller!;
      const filter = { orgId: caller.orgId, from, to, status: q.status, sourceType: q.sourceType };
      const page = await caller.checked((recheck) => listAlerts(ctx.db, filter, p.offset, p.pageSize, recheck));
      const params = { from: from.toISOString(), to: to.toISOString(), status: q.status, sourceType: q.sourceType, format: q.format };
      const meta = envelope<never>('/alerts', params, p, page.totalCount, []);
      return sendJsonTextPage(reply, q.format, 'alerts', ALERT_FIELDS, meta, page.itemsJson);
    },
  );
}

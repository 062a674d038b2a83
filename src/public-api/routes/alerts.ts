import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { listRoute, type PagingParams } from '../list-route.js';
import { ALERT_FIELDS, listAlerts } from '../queries/alerts.js';
import { dateTime, nullableDateTime, nullableString } from '../schemas.js';
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

interface Query extends PagingParams {
  from?: string;
  to?: string;
  status?: string;
  sourceType?: string;
}

export async function alertsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  listRoute(app, ctx, {
    path: '/alerts',
    scope: 'ReadAlerts',
    operationId: 'listAlerts',
    summary: 'List alerts (incidents), newest first',
    description: 'Scope ReadAlerts. Filters createdAt in [from, to); default the last 7 days; at most 366 days.',
    tag: 'alerts',
    query: {
      from: { type: 'string', format: 'date-time', description: 'Inclusive, ISO 8601 UTC (Z). Default: to − 7 days.' },
      to: { type: 'string', format: 'date-time', description: 'Exclusive, ISO 8601 UTC (Z). Default: now.' },
      status: { type: 'string', enum: ['open', 'resolved'] },
      sourceType: { type: 'string', minLength: 1, maxLength: 100, description: 'e.g. Gateway, Capacity, Dataset.' },
    },
    item: alertItem,
    page: { title: 'AlertPage', description: 'Paged envelope of alert items' },
    csv: { name: 'alerts', fields: ALERT_FIELDS },
    filter: (q: Query, orgId, now) => ({ orgId, ...instantWindow(q, now), status: q.status, sourceType: q.sourceType }),
    read: listAlerts,
    params: (q, f) => ({ from: f.from.toISOString(), to: f.to.toISOString(), status: q.status, sourceType: q.sourceType }),
  });
}

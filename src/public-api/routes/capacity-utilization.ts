import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { listRoute, type PagingParams } from '../list-route.js';
import { type Granularity, listCapacityUtilization, UTILIZATION_FIELDS } from '../queries/capacity-utilization.js';
import { capacityUtilizationItem } from '../schemas.js';
import { instantWindow } from '../windows.js';

interface Query extends PagingParams {
  capacityName?: string;
  from?: string;
  to?: string;
  granularity?: Granularity;
}

export async function capacityUtilizationRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  listRoute(app, ctx, {
    path: '/capacities/utilization',
    scope: 'ReadCapacities',
    operationId: 'listCapacityUtilization',
    summary: 'Capacity load over time, oldest first',
    description:
      'Scope ReadCapacities. `from` inclusive, `to` exclusive (ISO 8601 UTC); default the last 7 days; at most 366 days. ' +
      'granularity `hour` (default; kept 400 days): max and mean of each figure and minutes in each throttling stage; ' +
      '`30s` (kept 14 days): each 30-second window of the capacity overview events.',
    tag: 'inventory',
    query: {
      capacityName: { type: 'string', minLength: 1, maxLength: 256, description: 'One capacity, by name (exact); default all.' },
      from: { type: 'string', format: 'date-time', description: 'Start, ISO 8601 UTC (inclusive).' },
      to: { type: 'string', format: 'date-time', description: 'End, ISO 8601 UTC (exclusive).' },
      granularity: { type: 'string', enum: ['hour', '30s'], default: 'hour', description: 'hour (400 days) or 30s (14 days).' },
    },
    item: capacityUtilizationItem,
    page: { title: 'CapacityUtilizationPage', description: 'Paged envelope of capacity utilization items' },
    csv: { name: 'capacity-utilization', fields: UTILIZATION_FIELDS },
    filter: (q: Query, orgId, now) => ({ orgId, capacityName: q.capacityName, ...instantWindow(q, now), granularity: q.granularity ?? 'hour' }),
    read: listCapacityUtilization,
    params: (q, f) => ({ capacityName: q.capacityName, from: f.from.toISOString(), to: f.to.toISOString(), granularity: f.granularity }),
  });
}

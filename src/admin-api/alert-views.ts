import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { invalidRequest, notFound } from '../http/errors.js';
import { requireOrg } from '../orgs/orgs.js';
import { parseIsoDateTime } from '../orgs/validation.js';
import { toAlertJson, type AlertRow } from '../alerts/rows.js';
import { DELIVERY_COLUMNS, toDeliveryView, type DeliveryRow } from './deliveries.js';

/**
 * Admin read views the web console needs: the alert list of an organization (the public API's
 * list needs an API key and omits ids) and the deliveries made for one alert's events.
 */

const idParam = { type: 'string', minLength: 1, maxLength: 100 } as const;
const pageParam = { type: 'string', pattern: '^[0-9]{1,6}$' } as const;

interface ListQuery {
  status?: 'open' | 'resolved';
  severity?: 'error' | 'info';
  sourceType?: string;
  from?: string;
  to?: string;
  page?: string;
  pageSize?: string;
}

export async function alertViewsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Params: { orgId: string }; Querystring: ListQuery }>(
    '/orgs/:orgId/alerts',
    {
      schema: {
        params: { type: 'object', required: ['orgId'], properties: { orgId: idParam } },
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: ['open', 'resolved'] },
            severity: { type: 'string', enum: ['error', 'info'] },
            sourceType: { type: 'string', minLength: 1, maxLength: 100 },
            from: { type: 'string', maxLength: 40 },
            to: { type: 'string', maxLength: 40 },
            page: pageParam,
            pageSize: pageParam,
          },
        },
      },
    },
    async (req) => {
      const { orgId } = req.params;
      const q = req.query;
      const page = Number(q.page ?? 1);
      const pageSize = Number(q.pageSize ?? 50);
      if (page < 1 || page > 1000) throw invalidRequest('page must be from 1 to 1000');
      if (pageSize < 1 || pageSize > 200) throw invalidRequest('pageSize must be from 1 to 200');
      const from = q.from === undefined ? undefined : parseIsoDateTime(q.from, 'from');
      const to = q.to === undefined ? undefined : parseIsoDateTime(q.to, 'to');
      if (from && to && from >= to) throw invalidRequest('from must be before to');
      await requireOrg(ctx.db, orgId);

      const params: unknown[] = [orgId];
      const conditions = ['org_id = $1'];
      const add = (sql: string, value: unknown) => {
        params.push(value);
        conditions.push(`${sql} $${params.length}`);
      };
      if (q.status) add('status =', q.status);
      if (q.severity) add('severity =', q.severity);
      if (q.sourceType) add('source_type =', q.sourceType);
      if (from) add('created_at >=', from);
      if (to) add('created_at <', to);
      const where = conditions.join(' AND ');
      const [count, list] = await Promise.all([
        ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE ${where}`, params),
        ctx.db.query<AlertRow>(
          `SELECT * FROM alerts WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
          params,
        ),
      ]);
      const totalCount = count.rows[0]!.n;
      const hasNext = page * pageSize < totalCount && page < 1000;
      const next = new URLSearchParams();
      for (const [k, v] of Object.entries(q)) if (v !== undefined && k !== 'page') next.set(k, String(v));
      next.set('page', String(page + 1));
      next.set('pageSize', String(pageSize));
      return {
        value: list.rows.map((r) => toAlertJson(r, ctx.config.baseUrl)),
        page,
        pageSize,
        totalCount,
        nextLink: hasNext ? `/api/admin/v1/orgs/${encodeURIComponent(orgId)}/alerts?${next}` : '',
      };
    },
  );

  app.get<{ Params: { orgId: string; alertId: string } }>(
    '/orgs/:orgId/alerts/:alertId/deliveries',
    { schema: { params: { type: 'object', required: ['orgId', 'alertId'], properties: { orgId: idParam, alertId: idParam } } } },
    async (req) => {
      const { orgId, alertId } = req.params;
      await requireOrg(ctx.db, orgId);
      const alert = await ctx.db.query('SELECT 1 FROM alerts WHERE org_id = $1 AND id = $2', [orgId, alertId]);
      if (alert.rows.length === 0) throw notFound('alert');
      // Test sends carry a sample alert id, never a real one; they are excluded all the same.
      const { rows } = await ctx.db.query<DeliveryRow & { event_id: string | null; destination_id: string; destination_name: string; destination_kind: string }>(
        `SELECT ${DELIVERY_COLUMNS.split(', ').map((c) => `d.${c}`).join(', ')}, d.event_id, d.destination_id,
                s.name AS destination_name, s.kind AS destination_kind
           FROM deliveries d JOIN destinations s ON s.id = d.destination_id AND s.org_id = d.org_id
          WHERE d.org_id = $1 AND d.alert_id = $2 AND NOT d.test
          ORDER BY d.event_seq NULLS LAST, d.created_at, d.id`,
        [orgId, alertId],
      );
      return rows.map((r) => ({
        ...toDeliveryView(r),
        eventId: r.event_id,
        destinationId: r.destination_id,
        destinationName: r.destination_name,
        destinationKind: r.destination_kind,
      }));
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { conflict, invalidRequest, notFound } from '../http/errors.js';
import { DELIVERY_CHANNEL } from '../delivery/fanout.js';
import { parseIsoDateTime } from '../orgs/validation.js';

/** Admin routes: delivery history and redelivery (CONTRACT §2) — delivery engine (issue 3). */

const STATUSES = ['pending', 'waiting', 'succeeded', 'failed', 'abandoned'] as const;

export interface DeliveryRow {
  id: string;
  event: string;
  alert_id: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
  test: boolean;
}

export const DELIVERY_COLUMNS = 'id, event, alert_id, status, attempts, next_attempt_at, last_status_code, last_error, created_at, completed_at, test';

export function toDeliveryView(r: DeliveryRow) {
  return {
    id: r.id,
    event: r.event,
    alertId: r.alert_id,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === 'pending' && r.next_attempt_at ? r.next_attempt_at.toISOString() : null,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    createdAt: r.created_at.toISOString(),
    completedAt: r.completed_at ? r.completed_at.toISOString() : null,
    test: r.test,
  };
}

export async function deliveriesRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Params: { orgId: string; id: string }; Querystring: { status?: string; from?: string; to?: string; page?: string; pageSize?: string } }>(
    '/orgs/:orgId/destinations/:id/deliveries',
    {
      schema: {
        params: { type: 'object', required: ['orgId', 'id'], properties: { orgId: { type: 'string' }, id: { type: 'string' } } },
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: [...STATUSES] },
            from: { type: 'string', maxLength: 40 },
            to: { type: 'string', maxLength: 40 },
            page: { type: 'string', pattern: '^[0-9]{1,6}$' },
            pageSize: { type: 'string', pattern: '^[0-9]{1,6}$' },
          },
        },
      },
    },
    async (req) => {
      const { orgId, id } = req.params;
      const { status } = req.query;
      const page = Number(req.query.page ?? 1);
      const pageSize = Number(req.query.pageSize ?? 100);
      if (page < 1 || page > 1000) throw invalidRequest('page must be from 1 to 1000');
      if (pageSize < 1 || pageSize > 500) throw invalidRequest('pageSize must be from 1 to 500');
      // Time filter on createdAt: from inclusive, to exclusive.
      const from = req.query.from === undefined ? undefined : parseIsoDateTime(req.query.from, 'from');
      const to = req.query.to === undefined ? undefined : parseIsoDateTime(req.query.to, 'to');
      if (from && to && from >= to) throw invalidRequest('from must be before to');
      const dest = await ctx.db.query('SELECT 1 FROM destinations WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, id]);
      if (dest.rows.length === 0) throw notFound('destination');
      const params: unknown[] = [orgId, id];
      let where = 'org_id = $1 AND destination_id = $2';
      for (const [sql, value] of [['status =', status], ['created_at >=', from], ['created_at <', to]] as const) {
        if (value === undefined) continue;
        params.push(value);
        where += ` AND ${sql} $${params.length}`;
      }
      const [count, list] = await Promise.all([
        ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE ${where}`, params),
        ctx.db.query<DeliveryRow>(
          `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE ${where} ORDER BY created_at DESC, id DESC
            LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
          params,
        ),
      ]);
      const totalCount = count.rows[0]!.n;
      const hasNext = page * pageSize < totalCount && page < 1000;
      const q = new URLSearchParams({
        ...(status ? { status } : {}),
        ...(from ? { from: from.toISOString() } : {}),
        ...(to ? { to: to.toISOString() } : {}),
        page: String(page + 1),
        pageSize: String(pageSize),
      });
      return {
        value: list.rows.map(toDeliveryView),
        page,
        pageSize,
        totalCount,
        nextLink: hasNext ? `/api/admin/v1/orgs/${encodeURIComponent(orgId)}/destinations/${encodeURIComponent(id)}/deliveries?${q}` : '',
      };
    },
  );

  app.get<{ Params: { orgId: string; deliveryId: string } }>(
    '/orgs/:orgId/deliveries/:deliveryId',
    { schema: { params: { type: 'object', required: ['orgId', 'deliveryId'], properties: { orgId: { type: 'string' }, deliveryId: { type: 'string' } } } } },
    async (req) => {
      const { orgId, deliveryId } = req.params;
      const { rows } = await ctx.db.query<DeliveryRow & { destination_id: string }>(
        `SELECT ${DELIVERY_COLUMNS}, destination_id FROM deliveries WHERE org_id = $1 AND id = $2`,
        [orgId, deliveryId],
      );
      if (!rows[0]) throw notFound('delivery');
      const attempts = await ctx.db.query<{ attempt: number; started_at: Date; duration_ms: number; status_code: number | null; error: string | null }>(
        'SELECT attempt, started_at, duration_ms, status_code, error FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
        [deliveryId],
      );
      return {
        ...toDeliveryView(rows[0]),
        destinationId: rows[0].destination_id,
        attemptLog: attempts.rows.map((a) => ({
          attempt: a.attempt,
          startedAt: a.started_at.toISOString(),
          durationMs: a.duration_ms,
          statusCode: a.status_code,
          error: a.error,
        })),
      };
    },
  );

  app.post<{ Params: { orgId: string; deliveryId: string } }>(
    '/orgs/:orgId/deliveries/:deliveryId/redeliver',
    { schema: { params: { type: 'object', required: ['orgId', 'deliveryId'], properties: { orgId: { type: 'string' }, deliveryId: { type: 'string' } } } } },
    async (req, reply) => {
      const { orgId, deliveryId } = req.params;
      const now = ctx.clock.now();
      const row = await ctx.db.tx(async (q) => {
        const found = await q.query<{ status: string; deleted: boolean }>(
          `SELECT d.status, s.deleted_at IS NOT NULL AS deleted FROM deliveries d JOIN destinations s ON s.id = d.destination_id
            WHERE d.org_id = $1 AND d.id = $2 FOR UPDATE OF d`,
          [orgId, deliveryId],
        );
        if (!found.rows[0] || found.rows[0].deleted) throw notFound('delivery');
        if (found.rows[0].status === 'pending' || found.rows[0].status === 'waiting') {
          throw conflict('the delivery is still in progress');
        }
        // Same id and body; a fresh attempt budget; attempt numbers keep counting in the log.
        const { rows } = await q.query<DeliveryRow>(
          `UPDATE deliveries SET status = 'pending', attempt_base = attempts, next_attempt_at = $3, completed_at = NULL,
                  locked_until = NULL, locked_by = NULL
            WHERE org_id = $1 AND id = $2 RETURNING ${DELIVERY_COLUMNS}`,
          [orgId, deliveryId, now],
        );
        await q.query(`SELECT pg_notify('${DELIVERY_CHANNEL}', '')`);
        return rows[0]!;
      });
      return reply.code(202).send(toDeliveryView(row));
    },
  );
}

/**
 * Prometheus metrics of the delivery engine (GET /metrics). Counters and the latency histogram
 * are kept in this process (the worker that sends); the backlog gauges are read from the
 * database at scrape time, so any instance reports the shared queue.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { countDisabledDestinations } from './outbox/index.js';
import type { AppContext } from './context.js';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'vigia_' });

/** Attempts by outcome: succeeded, retry (will be retried), failed (budget spent), abandoned. */
export const attemptsTotal = new Counter({
  name: 'vigia_delivery_attempts_total',
  help: 'Delivery attempts by outcome (succeeded | retry | failed | abandoned)',
  labelNames: ['outcome', 'kind'] as const,
  registers: [registry],
});

/** Deliveries that reached a final state, by that state. */
export const deliveriesTotal = new Counter({
  name: 'vigia_deliveries_total',
  help: 'Deliveries that reached a final state, by outcome (succeeded | failed | abandoned)',
  labelNames: ['outcome', 'kind'] as const,
  registers: [registry],
});

export const attemptDuration = new Histogram({
  name: 'vigia_delivery_attempt_duration_seconds',
  help: 'Duration of one delivery attempt (connect, headers and body)',
  labelNames: ['kind'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

const dueBacklog = new Gauge({
  name: 'vigia_deliveries_due',
  help: 'Pending deliveries whose next attempt is due now',
  registers: [registry],
});
const oldestDueAge = new Gauge({
  name: 'vigia_deliveries_oldest_due_age_seconds',
  help: 'How long the oldest due delivery has been waiting past its due time (0 when none)',
  registers: [registry],
});
const waitingTotal = new Gauge({
  name: 'vigia_deliveries_waiting',
  help: 'Connector deliveries held until the opening delivery of their incident succeeds',
  registers: [registry],
});

const disabledDestinations = new Gauge({
  name: 'vigia_destinations_disabled',
  help: 'Disabled destinations: reason="automatic" by the failure rule, reason="manual" by a person',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export function recordAttempt(kind: string, outcome: 'succeeded' | 'retry' | 'failed' | 'abandoned', durationMs: number): void {
  attemptsTotal.inc({ outcome, kind });
  attemptDuration.observe({ kind }, durationMs / 1000);
  if (outcome !== 'retry') deliveriesTotal.inc({ outcome, kind });
}

async function refreshQueueGauges(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now();
  const { rows } = await ctx.db.query<{ due: number; oldest: Date | null; waiting: number }>(
    `SELECT (SELECT count(*)::int FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1) AS due,
            (SELECT min(next_attempt_at) FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1) AS oldest,
            (SELECT count(*)::int FROM deliveries WHERE status = 'waiting') AS waiting`,
    [now],
  );
  const r = rows[0]!;
  dueBacklog.set(r.due);
  oldestDueAge.set(r.oldest ? Math.max(0, (now.getTime() - new Date(r.oldest).getTime()) / 1000) : 0);
  waitingTotal.set(r.waiting);
  const disabled = await countDisabledDestinations(ctx.db);
  disabledDestinations.set({ reason: 'automatic' }, disabled.automatic);
  disabledDestinations.set({ reason: 'manual' }, disabled.manual);
}

/** GET /metrics in Prometheus text format (no auth: bind the service to a private interface). */
export async function metricsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  app.get('/metrics', async (_req, reply) => {
    await refreshQueueGauges(opts.ctx);
    return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(await registry.metrics());
  });
}

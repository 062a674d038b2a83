/**
 * Prometheus metrics of the delivery engine (GET /metrics). Counters and the latency histogram
 * are kept in this process (the worker that sends); the backlog gauges are read from the
 * database at scrape time (bounded counts, one statement shared by concurrent scrapes), so any
 * instance reports the shared queue.
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

/**
 * A scrape never counts the whole backlog: the due and waiting counts stop at this many rows
 * (an index range scan of at most this length), so a scrape costs the same with a million rows
 * due as with a hundred. At the cap the gauge means "at least this many".
 */
export const QUEUE_COUNT_CAP = 10_000;

const dueBacklog = new Gauge({
  name: 'vigia_deliveries_due',
  help: `Pending deliveries whose next attempt is due now (counted up to ${QUEUE_COUNT_CAP}: at the cap, at least that many)`,
  registers: [registry],
});
const oldestDueAge = new Gauge({
  name: 'vigia_deliveries_oldest_due_age_seconds',
  help: 'How long the oldest due delivery has been waiting past its due time (0 when none)',
  registers: [registry],
});
const waitingTotal = new Gauge({
  name: 'vigia_deliveries_waiting',
  help: `Connector deliveries held until the opening delivery of their incident succeeds (counted up to ${QUEUE_COUNT_CAP})`,
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

interface QueueReading {
  due: number;
  oldest: Date | null;
  waiting: number;
  disabled: { automatic: number; manual: number };
}

async function readQueue(ctx: AppContext, now: Date): Promise<QueueReading> {
  const { rows } = await ctx.db.query<{ due: number; oldest: Date | null; waiting: number }>(
    `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1 LIMIT $2) d) AS due,
            (SELECT min(next_attempt_at) FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1) AS oldest,
            (SELECT count(*)::int FROM (SELECT 1 FROM deliveries WHERE status = 'waiting' LIMIT $2) w) AS waiting`,
    [now, QUEUE_COUNT_CAP],
  );
  const r = rows[0]!;
  return { due: r.due, oldest: r.oldest, waiting: r.waiting, disabled: await countDisabledDestinations(ctx.db) };
}

/** The reading in flight per context: concurrent scrapes share one statement. */
const inFlight = new WeakMap<AppContext, Promise<QueueReading>>();

async function refreshQueueGauges(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now();
  let reading = inFlight.get(ctx);
  if (!reading) {
    reading = readQueue(ctx, now).finally(() => inFlight.delete(ctx));
    inFlight.set(ctx, reading);
  }
  const r = await reading;
  dueBacklog.set(r.due);
  oldestDueAge.set(r.oldest ? Math.max(0, (now.getTime() - new Date(r.oldest).getTime()) / 1000) : 0);
  waitingTotal.set(r.waiting);
  disabledDestinations.set({ reason: 'automatic' }, r.disabled.automatic);
  disabledDestinations.set({ reason: 'manual' }, r.disabled.manual);
}

/**
 * GET /metrics in Prometheus text format. No authentication: serve it on a private interface,
 * or on its own listener (VIGIA_METRICS_PORT) that only the monitoring network reaches.
 */
export async function metricsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  app.get('/metrics', async (_req, reply) => {
    await refreshQueueGauges(opts.ctx);
    return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(await registry.metrics());
  });
}

import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import type { TrustProxy } from './config.js';
import { installErrorHandling } from './http/errors.js';
import { installBodyParsers } from './http/body-parsers.js';
import { handleClientError, handleFrameworkError, requireHostHeader } from './http/client-errors.js';
import { installSecurityHeaders } from './http/security-headers.js';
import { adminApi } from './admin-api/index.js';
import { publicApi, publicApiDocs } from './public-api/index.js';
import { inboundApi } from './inbound-api/index.js';
import { ackPages } from './inbound-api/ack-pages.js';
import { slackInbound } from './inbound-api/slack.js';
import { emailUnsubscribeRoutes } from './inbound-api/email-unsubscribe.js';
import { consoleRoutes } from './console/serve.js';
import { metricsRoutes } from './metrics.js';

export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** Default of VIGIA_REQUEST_TIMEOUT_MS: a whole request (headers and body) must arrive within it. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * What every listener of this process shares: the logger, the envelope for parser- and
 * router-level refusals (never echoing the request), and the bound on how long a client may take
 * to send its whole request, headers and body: past it Node answers 408 (through
 * handleClientError) and closes the connection, so a byte-a-second upload cannot hold it open.
 * Node checks its request timers every `connectionsCheckingInterval` (30 s by default, which
 * would let a slow client run that much past the limit) and requires `headersTimeout` ≤
 * `requestTimeout`. Fastify sets the server's `requestTimeout` from its own option (0, no limit,
 * by default), so it is given there and not under `http`.
 */
function listenerOptions(ctx: AppContext) {
  const limitMs = ctx.config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return {
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    clientErrorHandler: handleClientError,
    frameworkErrors: handleFrameworkError,
    requestTimeout: limitMs,
    http: {
      requireHostHeader: false,
      headersTimeout: Math.min(limitMs, 60_000),
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limitMs / 4))),
    },
  };
}

/**
 * VIGIA_TRUST_PROXY as Fastify takes it. A hop count becomes proxy-addr's trust function "the
 * nearest N addresses are proxies" (Fastify 5 itself now ignores a bare number), which is sound
 * only when the port is reachable through the proxies alone: docs/production.md says so.
 */
function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust;
}

/**
 * Builds the HTTP server: health, admin API, public API, /metrics (unless it has its own
 * listener, VIGIA_METRICS_PORT), web console. Listening is the caller's job.
 */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    ...listenerOptions(ctx),
    bodyLimit: BODY_LIMIT_BYTES,
    // Strict input: unknown fields and wrong types are refused, never silently dropped or coerced.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false } },
    // The client's address (rate limits, logs) from X-Forwarded-For only when the peer is a
    // trusted proxy (VIGIA_TRUST_PROXY); otherwise a forged header changes nothing.
    trustProxy: fastifyTrustProxy(ctx.config.trustProxy ?? false),
  });
  installSecurityHeaders(app, { baseUrl: ctx.config.baseUrl });
  installErrorHandling(app);
  installBodyParsers(app);
  app.addHook('onRequest', requireHostHeader);

  app.get('/healthz', async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await ctx.db.query('SELECT 1');
      return reply.header('cache-control', 'no-store').send({ status: 'ready' });
    } catch {
      return reply.code(503).header('cache-control', 'no-store').send({ error: { code: 'not_ready', message: 'database unavailable' } });
    }
  });

  await app.register(adminApi, { prefix: '/api/admin/v1', ctx });
  await app.register(publicApi, { prefix: '/api/public/v1', ctx });
  await app.register(inboundApi, { prefix: '/api/inbound/v1', ctx });
  await app.register(slackInbound, { prefix: '/api/inbound/v1/slack', ctx }); // Slack buttons (interactivity Request URL)
  await app.register(ackPages, { ctx }); // GET/POST /ack/{token}: acknowledge links in messages
  await app.register(emailUnsubscribeRoutes, { prefix: '/api/inbound/v1/email', ctx });
  if (ctx.config.metricsPort === undefined) await app.register(metricsRoutes, { ctx });
  await app.register(publicApiDocs, { ctx }); // GET /docs: Swagger UI of the public API
  await app.register(consoleRoutes); // GET / and the console's browser routes (docs/console.md)
  return app;
}

/**
 * The separate /metrics listener (VIGIA_METRICS_PORT): the same route, security headers, error
 * envelope and request time limits, and nothing else, so the port can be opened to the monitoring
 * network alone while the main port faces the users.
 */
export async function buildMetricsApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify(listenerOptions(ctx));
  installSecurityHeaders(app, { baseUrl: ctx.config.baseUrl });
  installErrorHandling(app);
  await app.register(metricsRoutes, { ctx });
  return app;
}

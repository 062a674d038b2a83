/**
 * The public inbound endpoint the ITSM tools post to (docs/connectors.md, "Acknowledging in the
 * tool"): `POST /api/inbound/v1/destinations/{destinationId}`. Thin: the body is kept as raw
 * bytes (PagerDuty signs them), the domain (inbound/receive.ts) does the rest; this
 * layer limits each source address and turns the outcome into the status each tool expects.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { receiveInboundEvent } from '../inbound/receive.js';
import { createCounterStore } from '../rate-limits/index.js';
import { PublicApiRateLimiter } from '../rate-limits/limiters.js';

/** PagerDuty sends at most 256 KB; nothing the tools send legitimately comes close to this. */
export const INBOUND_BODY_LIMIT = 512 * 1024;
/** Requests per source address per minute, and failed authentications per address per minute. */
export const INBOUND_PER_ADDRESS_PER_MINUTE = 300;
export const INBOUND_FAILED_PER_ADDRESS_PER_MINUTE = 20;

/**
 * Tools that disable or throttle a hook that keeps failing (PagerDuty after 3 refused deliveries,
 * Azure DevOps on probation after any other error) get 202 even for an event Vigia refuses after
 * authentication; the reason is counted on the destination. The others get 400 and show it.
 */
const REFUSE_WITH_2XX = new Set(['pagerduty', 'azure-devops']);

const unauthenticated = () => new ApiError(401, 'unauthenticated', 'missing or invalid signature or secret');

export async function inboundApi(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  const limiter = new PublicApiRateLimiter(
    createCounterStore(ctx),
    { perKeyPerMinute: INBOUND_PER_ADDRESS_PER_MINUTE, invalidKeyPerAddressPerMinute: INBOUND_FAILED_PER_ADDRESS_PER_MINUTE },
    ctx.log,
  );
  app.addHook('onClose', async () => limiter.close());
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  // Raw bytes of any media type: the signature is over them, and Opsgenie or a ServiceNow script
  // may not say application/json.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INBOUND_BODY_LIMIT }, (_req, body, done) => done(null, body));

  app.post<{ Params: { destinationId: string } }>(
    '/destinations/:destinationId',
    { bodyLimit: INBOUND_BODY_LIMIT, schema: { params: { type: 'object', required: ['destinationId'], properties: { destinationId: { type: 'string', minLength: 1, maxLength: 100 } } } } },
    async (req, reply) => {
      const nowMs = ctx.clock.now().getTime();
      const tooMany = (retryAfter: number) => new ApiError(429, 'rate_limited', 'too many requests from this address; retry later', { 'retry-after': String(retryAfter) });
      const blocked = await limiter.addressBlocked(req.ip, nowMs);
      if (blocked.blocked) throw tooMany(blocked.retryAfter);
      const hit = await limiter.hitKey(`inbound:${req.ip}`, nowMs);
      if (hit.exceeded) throw tooMany(hit.resetSeconds);
      const outcome = await receiveInboundEvent(ctx, {
        destinationId: req.params.destinationId,
        headers: req.headers as Record<string, string | undefined>,
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        address: req.ip,
      });
      if (outcome.kind === 'unauthenticated') {
        await limiter.recordInvalid(req.ip, nowMs);
        throw unauthenticated();
      }
      const body = { status: outcome.verdict, ...(outcome.reason ? { reason: outcome.reason } : {}) };
      if (outcome.verdict === 'refused' && !REFUSE_WITH_2XX.has(outcome.tool)) return reply.code(400).send({ error: { code: 'invalid_request', message: outcome.reason } });
      return reply.code(202).send(body);
    },
  );
}

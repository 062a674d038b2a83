/**
 * The public inbound endpoint the ITSM tools post to (docs/connectors.md, "Acknowledging in the
 * tool"): `POST /api/inbound/v1/destinations/{destinationId}`. Thin: the body is kept as raw
 * bytes (PagerDuty signs them), the domain (inbound/receive.ts) does the rest; this
 * layer limits the failed authentications of each source address and turns the outcome into the
 * status each tool expects.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { receiveInboundEvent } from '../inbound/receive.js';
import { createInboundAuthLimiter } from '../rate-limits/index.js';

/** PagerDuty sends at most 256 KB; nothing the tools send legitimately comes close to this. */
export const INBOUND_BODY_LIMIT = 512 * 1024;
/**
 * Failed authentications per source address per minute. Beyond them an address's failures are
 * answered 429 and cost no write; an authenticated event is never limited (the tools post from
 * shared addresses that anyone with an account there can post from too).
 */
export const INBOUND_FAILED_PER_ADDRESS_PER_MINUTE = 20;
/** A destination id: what `newId` makes, and nothing a database would refuse. */
const DESTINATION_ID = '^[A-Za-z0-9_-]{1,100}$';

/**
 * Tools that disable or throttle a hook that keeps failing (PagerDuty after 3 refused deliveries,
 * Azure DevOps on probation after any other error) get 202 even for an event Vigia refuses after
 * authentication; the reason is counted on the destination. The others get 400 and show it.
 */
const REFUSE_WITH_2XX = new Set(['pagerduty', 'azure-devops']);

const unauthenticated = () => new ApiError(401, 'unauthenticated', 'missing or invalid signature or secret');

export async function inboundApi(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  const { limiter, close } = createInboundAuthLimiter(ctx, INBOUND_FAILED_PER_ADDRESS_PER_MINUTE);
  // A failed authentication is counted on its destination after the answer, so that a known and
  // an unknown destination answer alike; what is still being written is awaited on close.
  const afterAnswer = new WeakMap<FastifyRequest, () => Promise<void>>();
  const writing = new Set<Promise<void>>();
  app.addHook('onResponse', async (req) => {
    const write = afterAnswer.get(req);
    if (!write) return;
    const p = write()
      .catch((err: Error) => ctx.log.warn({ errName: err.name }, 'inbound refusal count failed'))
      .finally(() => writing.delete(p));
    writing.add(p);
  });
  app.addHook('onClose', async () => {
    await Promise.all([...writing]);
    await close();
  });
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  // Raw bytes of any media type: the signature is over them, and Opsgenie or a ServiceNow script
  // may not say application/json.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INBOUND_BODY_LIMIT }, (_req, body, done) => done(null, body));

  app.post<{ Params: { destinationId: string } }>(
    '/destinations/:destinationId',
    { bodyLimit: INBOUND_BODY_LIMIT, schema: { params: { type: 'object', required: ['destinationId'], properties: { destinationId: { type: 'string', pattern: DESTINATION_ID } } } } },
    async (req, reply) => {
      const nowMs = ctx.clock.now().getTime();
      const outcome = await receiveInboundEvent(ctx, {
        destinationId: req.params.destinationId,
        headers: req.headers as Record<string, string | undefined>,
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        address: req.ip,
      });
      if (outcome.kind === 'unauthenticated') {
        const over = await limiter.record(req.ip, nowMs);
        if (over.blocked) throw new ApiError(429, 'rate_limited', 'too many failed authentications from this address; retry later', { 'retry-after': String(over.retryAfter) });
        afterAnswer.set(req, outcome.recordRefusal);
        throw unauthenticated();
      }
      const body = { status: outcome.verdict, ...(outcome.reason ? { reason: outcome.reason } : {}) };
      if (outcome.verdict === 'refused' && !REFUSE_WITH_2XX.has(outcome.tool)) return reply.code(400).send({ error: { code: 'invalid_request', message: outcome.reason } });
      return reply.code(202).send(body);
    },
  );
}

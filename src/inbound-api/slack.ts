/**
 * Slack's interactivity Request URL for one `slack` destination:
 * `POST /api/inbound/v1/slack/{destinationId}` (docs/notifications.md, "Slack app: buttons that
 * act"). Thin: the raw body is kept (the signature is over its bytes), the domain
 * (inbound/slack-actions.ts) verifies and applies, the answer is 200 at once (Slack waits 3 s
 * at most), and the message is replaced through `response_url` after the answer; what is still
 * being sent is awaited on close.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { receiveSlackAction, type SlackClick } from '../inbound/slack-actions.js';
import { replaceSlackMessage } from '../inbound/slack-reply.js';
import { createInboundAuthLimiter } from '../rate-limits/index.js';
import { INBOUND_FAILED_PER_ADDRESS_PER_MINUTE } from './index.js';

/** Slack's interaction payloads are small; a message's blocks are at most a few tens of KB. */
export const SLACK_BODY_LIMIT = 256 * 1024;
const DESTINATION_ID = '^[A-Za-z0-9_-]{1,100}$';

export async function slackInbound(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  const { limiter, close } = createInboundAuthLimiter(ctx, INBOUND_FAILED_PER_ADDRESS_PER_MINUTE);
  const afterAnswer = new WeakMap<FastifyRequest, SlackClick>();
  const replying = new Set<Promise<void>>();
  app.addHook('onResponse', async (req) => {
    const click = afterAnswer.get(req);
    if (!click) return;
    const p = replaceSlackMessage(ctx, click).finally(() => replying.delete(p));
    replying.add(p);
  });
  app.addHook('onClose', async () => {
    await Promise.all([...replying]);
    await close();
  });
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: SLACK_BODY_LIMIT }, (_req, body, done) => done(null, body));

  app.post<{ Params: { destinationId: string } }>(
    '/:destinationId',
    { bodyLimit: SLACK_BODY_LIMIT, schema: { params: { type: 'object', required: ['destinationId'], properties: { destinationId: { type: 'string', pattern: DESTINATION_ID } } } } },
    async (req, reply) => {
      const outcome = await receiveSlackAction(ctx, {
        destinationId: req.params.destinationId,
        headers: req.headers,
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        address: req.ip,
      });
      if (outcome.kind === 'unauthenticated') {
        const over = await limiter.record(req.ip, ctx.clock.now().getTime());
        if (over.blocked) throw new ApiError(429, 'rate_limited', 'too many failed authentications from this address; retry later', { 'retry-after': String(over.retryAfter) });
        const message = outcome.reason === 'stale_timestamp' ? 'the request timestamp is more than 5 minutes from now' : 'missing or invalid Slack signature';
        throw new ApiError(401, 'unauthenticated', message);
      }
      if (outcome.kind === 'refused') return reply.code(400).send({ error: { code: 'invalid_request', message: outcome.reason } });
      afterAnswer.set(req, outcome.click);
      return reply.code(200).send('');
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { hashToken, safeEqual } from '../secrets/tokens.js';
import { csrfTokenFor, endSession, openSession } from '../access/sessions.js';
import { MemoryCounterStore, PublicApiRateLimiter, RedisCounterStore } from '../rate-limits/limiters.js';
import { loadAdminTokenHash } from './admin-token.js';
import { principalOf } from './auth.js';
import { clearSessionCookie, readSessionCookie, sessionTimes, setSessionCookie } from './session-cookie.js';
import { describeCaller } from './whoami.js';
import { adminResponses } from './openapi.js';
import { openedSessionSchema, sessionOptionsSchema, sessionSchema } from './schemas.js';


/** Failed sign-ins (and OIDC callbacks) per address per minute, like invalid public API keys. */
export function createSignInLimiter(ctx: AppContext): PublicApiRateLimiter {
  const c = ctx.config;
  const store = c.redisUrl ? new RedisCounterStore(c.redisUrl, `${c.rateLimitPrefix ?? 'vigia:rl'}:signin`, ctx.log) : new MemoryCounterStore();
  return new PublicApiRateLimiter(store, { perKeyPerMinute: 1, invalidKeyPerAddressPerMinute: c.apiInvalidKeyLimitPerMinute ?? 10 }, ctx.log);
}

export const tooManyAttempts = (retryAfter: number) =>
  new ApiError(429, 'rate_limited', 'too many sign-in attempts from this address; retry later', { 'retry-after': String(retryAfter) });

/** Console sessions: sign in with the instance admin token, who am I, sign out. */
export async function sessionRoutes(app: FastifyInstance, opts: { ctx: AppContext; limiter: PublicApiRateLimiter }): Promise<void> {
  const { ctx, limiter } = opts;

  app.post<{ Body: { adminToken: string } }>(
    '/session',
    {
      config: { access: 'public' },
      schema: {
        body: { type: 'object', additionalProperties: false, required: ['adminToken'], properties: { adminToken: { type: 'string', minLength: 1, maxLength: 200 } } },
        response: adminResponses(openedSessionSchema, 201),
      },
    },
    async (req, reply) => {
      const nowMs = ctx.clock.now().getTime();
      const gate = await limiter.addressBlocked(req.ip, nowMs);
      if (gate.blocked) throw tooManyAttempts(gate.retryAfter);
      const stored = await loadAdminTokenHash(ctx.db);
      if (!stored || !safeEqual(hashToken(req.body.adminToken), stored)) {
        const after = await limiter.recordInvalid(req.ip, nowMs);
        if (after.blocked) throw tooManyAttempts(after.retryAfter);
        throw new ApiError(401, 'unauthorized', 'missing or invalid admin token');
      }
      // Rotation: whatever session the browser came with ends; the new one has a new id.
      const previous = readSessionCookie(req);
      if (previous) await endSession(ctx.db, hashToken(previous));
      // Known before the session opens: the sign-in's audit entry (instance-level) commits with it.
      req.principal = { kind: 'instance-admin', via: 'session' };
      const opened = await openSession(ctx.db, { personId: null, now: ctx.clock.now(), times: sessionTimes(ctx) });
      setSessionCookie(reply, ctx, opened.id, sessionTimes(ctx).maxMs);
      return reply.code(201).send({ ...(await describeCaller(ctx, req.principal)), csrfToken: opened.csrfToken, expiresAt: opened.expiresAt });
    },
  );

  // What the sign-in page offers: the company account (OpenID Connect) when configured.
  app.get('/session/options', { config: { access: 'public' }, schema: { response: adminResponses(sessionOptionsSchema) } }, async () => ({ oidc: ctx.config.oidc !== undefined }));

  app.get('/session', { config: { access: 'signed-in' }, schema: { response: adminResponses(sessionSchema) } }, async (req) => {
    const cookie = readSessionCookie(req);
    return { ...(await describeCaller(ctx, principalOf(req))), csrfToken: req.session && cookie ? csrfTokenFor(cookie) : null };
  });

  app.delete('/session', { config: { access: 'signed-in' } }, async (req, reply) => {
    if (req.session) await endSession(ctx.db, req.session.idHash);
    clearSessionCookie(reply, ctx);
    return reply.code(204).send();
  });
}

import type { FastifyInstance } from 'fastify';
import * as oidc from 'openid-client';
import type { AppContext } from '../context.js';
import { ApiError, forbidden, invalidRequest, notFound } from '../http/errors.js';
import { hashToken } from '../secrets/tokens.js';
import { personForSignIn, rolesFromClaims, rolesOf } from '../access/people.js';
import { endSession, openSession } from '../access/sessions.js';
import type { PublicApiRateLimiter } from '../public-api/rate-limit.js';
import { tooManyAttempts } from './session.js';
import { readSessionCookie, sessionTimes, setSessionCookie } from './session-cookie.js';
import { signInErrorToConsole } from './sign-in-error.js';

/** How long a sign-in may take between leaving for the provider and coming back. */
const LOGIN_TTL_MS = 10 * 60_000;
export const OIDC_CALLBACK_PATH = '/api/admin/v1/session/oidc/callback';

/**
 * OpenID Connect sign-in (authorization code + PKCE, state and nonce), through openid-client.
 * The state, nonce and code verifier wait in the database (any instance may get the callback)
 * and are used once.
 */
export async function oidcRoutes(app: FastifyInstance, opts: { ctx: AppContext; limiter: PublicApiRateLimiter }): Promise<void> {
  const { ctx, limiter } = opts;
  const settings = ctx.config.oidc;
  // openid-client checks ID-token times (exp, iat) against the system clock; Vigia's "now" is the
  // injected clock. Their difference, in whole seconds, is openid-client's clock skew, so an ID
  // token is judged by the same time as sessions and sign-in states. With the system clock the
  // skew is 0 and the provider is discovered once; a different skew means a fresh discovery.
  let discovered: { skew: number; config: Promise<oidc.Configuration> } | null = null;
  const configuration = (): Promise<oidc.Configuration> => {
    if (!settings) throw notFound('OpenID Connect sign-in');
    const skew = Math.round((ctx.clock.now().getTime() - Date.now()) / 1000);
    if (discovered?.skew === skew) return discovered.config;
    const attempt: { skew: number; config: Promise<oidc.Configuration> } = {
      skew,
      config: oidc
        .discovery(new URL(settings.issuer), settings.clientId, { client_secret: settings.clientSecret, [oidc.clockSkew]: skew })
        .then((config) => {
          // Verify the ID token's signature against the provider's keys even though it came over
          // TLS from the token endpoint: a forged or altered token is refused, not trusted.
          oidc.enableNonRepudiationChecks(config);
          return config;
        })
        .catch((err: unknown) => {
          if (discovered === attempt) discovered = null; // the provider may be back at the next try
          throw err;
        }),
    };
    discovered = attempt;
    return attempt.config;
  };
  /** The provider's configuration, or 503 when it cannot be reached (on the way out and on the way back). */
  const reachableConfiguration = async (): Promise<oidc.Configuration> => {
    try {
      return await configuration();
    } catch (err) {
      if (err instanceof ApiError) throw err;
      ctx.log.warn({ err: (err as Error).message }, 'OpenID provider unreachable');
      throw new ApiError(503, 'unavailable', 'the identity provider cannot be reached; sign in with the instance admin token');
    }
  };

  app.get('/session/oidc/login', { config: { access: 'public' }, onSend: signInErrorToConsole }, async (_req, reply) => {
    const config = await reachableConfiguration();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    await ctx.db.query('INSERT INTO oidc_logins (state_hash, nonce, code_verifier, created_at) VALUES ($1, $2, $3, $4)', [
      hashToken(state),
      nonce,
      verifier,
      ctx.clock.now(),
    ]);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${ctx.config.baseUrl}${OIDC_CALLBACK_PATH}`,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return reply.code(302).header('location', url.href).send();
  });

  app.get<{ Querystring: Record<string, string> }>('/session/oidc/callback', { config: { access: 'public' }, onSend: signInErrorToConsole }, async (req, reply) => {
    const nowMs = ctx.clock.now().getTime();
    const gate = await limiter.addressBlocked(req.ip, nowMs);
    if (gate.blocked) throw tooManyAttempts(gate.retryAfter);
    const refuse = async (err: ApiError) => {
      const after = await limiter.recordInvalid(req.ip, nowMs);
      return after.blocked ? tooManyAttempts(after.retryAfter) : err;
    };
    const config = await reachableConfiguration();
    const state = typeof req.query.state === 'string' ? req.query.state : '';
    // The state is consumed here, whatever happens next: a replayed callback finds nothing.
    const { rows } = await ctx.db.query<{ nonce: string; code_verifier: string }>(
      'DELETE FROM oidc_logins WHERE state_hash = $1 AND created_at > $2 RETURNING nonce, code_verifier',
      [hashToken(state), new Date(nowMs - LOGIN_TTL_MS)],
    );
    const login = rows[0];
    if (!login) throw await refuse(invalidRequest('unknown, used or expired sign-in state; start the sign-in again'));
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, new URL(req.url, ctx.config.baseUrl), {
        pkceCodeVerifier: login.code_verifier,
        expectedState: state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      claims = (tokens.claims() ?? {}) as Record<string, unknown>;
      // Providers may keep scope claims (email, groups) for the UserInfo endpoint only.
      if (claims.email === undefined && claims.preferred_username === undefined && tokens.access_token) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
        claims = { ...info, ...claims };
      }
    } catch (err) {
      // The reason is logged (it names no secret); the browser gets one answer.
      ctx.log.warn({ err: (err as Error).message, code: (err as { code?: string }).code }, 'OpenID sign-in refused');
      throw await refuse(new ApiError(401, 'unauthorized', 'the sign-in could not be verified; start it again'));
    }
    const idpRoles = rolesFromClaims(claims, settings!.roleMap);
    const email = typeof claims.email === 'string' ? claims.email : typeof claims.preferred_username === 'string' ? claims.preferred_username : null;
    const person = await personForSignIn(ctx.db, {
      issuer: String(claims.iss),
      subject: String(claims.sub),
      email,
      name: typeof claims.name === 'string' ? claims.name : null,
      grantedByIdp: idpRoles.length > 0,
      now: ctx.clock.now(),
    });
    if (!person) throw forbidden('you have no role in Vigia yet; ask an owner of your organization to add you');
    const principal = { kind: 'person' as const, personId: person.id, email: person.email, via: 'session' as const, idpRoles };
    if ((await rolesOf(ctx.db, principal)).length === 0) throw forbidden('you have no role in Vigia yet; ask an owner of your organization to add you');
    const previous = readSessionCookie(req);
    if (previous) await endSession(ctx.db, hashToken(previous));
    const opened = await openSession(ctx.db, { personId: person.id, idpRoles, now: ctx.clock.now(), times: sessionTimes(ctx) });
    setSessionCookie(reply, ctx, opened.id, sessionTimes(ctx).maxMs);
    return reply.code(303).header('location', '/').send();
  });
}

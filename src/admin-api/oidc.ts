import type { FastifyInstance } from 'fastify';
import * as oidc from 'openid-client';
import type { AppContext } from '../context.js';
import { ApiError, forbidden, invalidRequest } from '../http/errors.js';
import { hashToken, safeEqual } from '../secrets/tokens.js';
import { personForSignIn, rolesFromClaims, rolesOf, verifiedEmailOf } from '../access/people.js';
import { endSession, openSession } from '../access/sessions.js';
import { noteAudit } from '../access/audit-context.js';
import type { PublicApiRateLimiter } from '../rate-limits/limiters.js';
import { tooManyAttempts } from './session.js';
import { providerConfiguration } from './oidc-provider.js';
import {
  clearOidcLoginCookie,
  readOidcLoginCookie,
  readSessionCookie,
  sessionTimes,
  setOidcLoginCookie,
  setSessionCookie,
} from './session-cookie.js';
import { signInErrorToConsole } from './sign-in-error.js';

/** How long a sign-in may take between leaving for the provider and coming back. */
const LOGIN_TTL_MS = 10 * 60_000;
export const OIDC_CALLBACK_PATH = '/api/admin/v1/session/oidc/callback';

const NO_ROLE = 'you have no role in Vigia yet; ask an owner of your organization to add you';

/** The ID token's claims (with UserInfo's when the provider keeps e-mail there), or 401. */
async function claimsOfCallback(config: oidc.Configuration, url: URL, login: { state: string; nonce: string; codeVerifier: string }): Promise<Record<string, unknown>> {
  const tokens = await oidc.authorizationCodeGrant(config, url, {
    pkceCodeVerifier: login.codeVerifier,
    expectedState: login.state,
    expectedNonce: login.nonce,
    idTokenExpected: true,
  });
  const claims = (tokens.claims() ?? {}) as Record<string, unknown>;
  // Providers may keep scope claims (email, email_verified) for the UserInfo endpoint only.
  if (claims.email === undefined && tokens.access_token) {
    const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
    return { ...info, ...claims };
  }
  return claims;
}

/**
 * OpenID Connect sign-in (authorization code + PKCE, state and nonce), through openid-client.
 * The state, nonce and code verifier wait in the database (any instance may get the callback)
 * and are used once; the state is also bound to the browser that started the sign-in by a
 * short-lived HttpOnly cookie, so a callback URL someone else obtained (login CSRF: signing a
 * victim's browser in as the attacker) is refused.
 */
/** The person a verified sign-in names, with their roles; 403 when they have none. */
async function signedInPerson(ctx: AppContext, claims: Record<string, unknown>) {
  const idpRoles = rolesFromClaims(claims, ctx.config.oidc!.roleMap);
  const person = await personForSignIn(ctx.db, {
    issuer: String(claims.iss),
    subject: String(claims.sub),
    verifiedEmail: verifiedEmailOf(claims),
    name: typeof claims.name === 'string' ? claims.name : null,
    grantedByIdp: idpRoles.length > 0,
    now: ctx.clock.now(),
  });
  if (!person) throw forbidden(`${NO_ROLE} (an invitation is taken only with an e-mail address your identity provider marks as verified)`);
  const principal = { kind: 'person' as const, personId: person.id, email: person.email, via: 'session' as const, idpRoles };
  const roles = await rolesOf(ctx.db, principal);
  if (roles.length === 0) throw forbidden(NO_ROLE);
  return { principal, person, roles, idpRoles };
}

export async function oidcRoutes(app: FastifyInstance, opts: { ctx: AppContext; limiter: PublicApiRateLimiter }): Promise<void> {
  const { ctx, limiter } = opts;
  const reachableConfiguration = providerConfiguration(ctx);

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
    setOidcLoginCookie(reply, ctx, state, LOGIN_TTL_MS);
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
    // The browser must be the one that started this sign-in: its cookie holds the same state.
    const bound = readOidcLoginCookie(req);
    if (!bound || !safeEqual(hashToken(bound), hashToken(state))) {
      throw await refuse(invalidRequest('this sign-in was not started in this browser; start the sign-in again'));
    }
    // The state is consumed here, whatever happens next: a replayed callback finds nothing.
    const { rows } = await ctx.db.query<{ nonce: string; code_verifier: string }>(
      'DELETE FROM oidc_logins WHERE state_hash = $1 AND created_at > $2 RETURNING nonce, code_verifier',
      [hashToken(state), new Date(nowMs - LOGIN_TTL_MS)],
    );
    const login = rows[0];
    if (!login) throw await refuse(invalidRequest('unknown, used or expired sign-in state; start the sign-in again'));
    let claims: Record<string, unknown>;
    try {
      claims = await claimsOfCallback(config, new URL(req.url, ctx.config.baseUrl), { state, nonce: login.nonce, codeVerifier: login.code_verifier });
    } catch (err) {
      // The reason is logged (it names no secret); the browser gets one answer.
      ctx.log.warn({ err: (err as Error).message, code: (err as { code?: string }).code }, 'OpenID sign-in refused');
      throw await refuse(new ApiError(401, 'unauthorized', 'the sign-in could not be verified; start it again'));
    }
    const { principal, person, roles, idpRoles } = await signedInPerson(ctx, claims);
    // The sign-in is recorded in every organization where it gives access, with the session it opens.
    req.principal = principal;
    noteAudit({ action: 'session.create', orgIds: roles.map((r) => r.orgId), target: person.id, changes: { method: 'oidc', roles } });
    const previous = readSessionCookie(req);
    if (previous) await endSession(ctx.db, hashToken(previous));
    const opened = await openSession(ctx.db, { personId: person.id, idpRoles, now: ctx.clock.now(), times: sessionTimes(ctx) });
    setSessionCookie(reply, ctx, opened.id, sessionTimes(ctx).maxMs);
    clearOidcLoginCookie(reply, ctx);
    return reply.code(303).header('location', '/').send();
  });
}

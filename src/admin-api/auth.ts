import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError, forbidden } from '../http/errors.js';
import { createAdminAuthLimiter } from '../rate-limits/index.js';
import { hashToken, safeEqual } from '../secrets/tokens.js';
import { authenticatePersonalToken, looksLikePersonalToken } from '../access/personal-tokens.js';
import { csrfMatches, touchSession, type LiveSession } from '../access/sessions.js';
import { roleIn } from '../access/people.js';
import { atLeast, isRole, type Role } from '../access/roles.js';
import type { Principal } from '../access/principal.js';
import { loadAdminTokenHash } from './admin-token.js';
import { readSessionCookie, sessionTimes } from './session-cookie.js';

/**
 * What a route needs, declared in its route config (`config: { access }`):
 * - `public`: nobody need be signed in (sign-in itself);
 * - `signed-in`: any signed-in caller (the route narrows what it shows);
 * - `person`: a person signed in to the console (not the instance admin, not a token);
 * - `instance`: the instance administrator;
 * - a role: at least that role in the organization named by the `:orgId` path parameter.
 * A route that declares nothing is refused (403) for everyone: access fails closed.
 */
export type Access = 'public' | 'signed-in' | 'person' | 'instance' | Role;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal?: Principal;
    /** The session the caller came with (console), when they came with one. */
    session?: LiveSession;
  }
}

const UNAUTHORIZED = () => new ApiError(401, 'unauthorized', 'missing or invalid admin token');
const TOO_MANY = (retryAfter: number) =>
  new ApiError(429, 'rate_limited', 'too many attempts with an invalid admin token; retry later', { 'retry-after': String(retryAfter) });

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_HEADER = 'x-csrf-token';

export function declaredAccess(config: unknown): Access | null {
  const access = (config as { access?: unknown } | undefined)?.access;
  if (access === 'public' || access === 'signed-in' || access === 'person' || access === 'instance' || isRole(access)) return access;
  return null;
}

/**
 * The one gate of the admin API: who is calling (Bearer instance admin token, Bearer personal
 * token, or the console's session cookie with its CSRF header on state-changing calls), then
 * whether the route's declared access admits them. Installed once on the admin scope, so it
 * covers every admin route, present and future.
 */
export function installAdminAuth(app: FastifyInstance, ctx: AppContext): void {
  const { limiter, close } = createAdminAuthLimiter(ctx);
  app.addHook('onClose', close);
  let cachedHash: string | null = null;
  async function isAdminToken(token: string): Promise<boolean> {
    cachedHash ??= await loadAdminTokenHash(ctx.db);
    if (cachedHash && safeEqual(hashToken(token), cachedHash)) return true;
    // The token may have been replaced by another instance's start: re-read once.
    cachedHash = await loadAdminTokenHash(ctx.db);
    return !!cachedHash && safeEqual(hashToken(token), cachedHash);
  }

  async function identify(request: FastifyRequest): Promise<Principal | null> {
    const header = request.headers.authorization;
    if (header !== undefined) {
      const m = typeof header === 'string' ? /^Bearer (\S+)$/.exec(header) : null;
      if (!m) return null;
      const token = m[1]!;
      if (looksLikePersonalToken(token)) {
        const t = await authenticatePersonalToken(ctx.db, token, ctx.clock.now());
        if (!t) return null;
        return { kind: 'person', personId: t.personId, email: t.email, via: 'token', idpRoles: [], token: { id: t.tokenId, orgId: t.orgId, role: t.role } };
      }
      return (await isAdminToken(token)) ? { kind: 'instance-admin', via: 'token' } : null;
    }
    const id = readSessionCookie(request);
    if (!id) return null;
    const session = await touchSession(ctx.db, id, ctx.clock.now(), sessionTimes(ctx));
    if (!session) return null;
    if (!SAFE_METHODS.has(request.method) && !csrfMatches(session, headerText(request.headers[CSRF_HEADER]))) {
      throw forbidden('missing or invalid CSRF token (send the x-csrf-token header given at sign-in)');
    }
    request.session = session;
    if (session.personId === null) return { kind: 'instance-admin', via: 'session', sessionId: session.idHash };
    return { kind: 'person', personId: session.personId, email: session.email ?? '', via: 'session', idpRoles: session.idpRoles, sessionId: session.idHash };
  }

  app.addHook('onRequest', async (request: FastifyRequest, _reply: FastifyReply) => {
    const access = declaredAccess(request.routeOptions.config);
    if (access === null) {
      request.log.error({ route: request.routeOptions.url }, 'admin route without an access declaration refused');
      throw forbidden('this route declares no access rule');
    }
    if (access === 'public') return;
    // Wrong Bearer tokens are counted per client address like the public API's invalid keys: past
    // the limit the address gets 429 for the rest of the minute before any token is looked at (no
    // database read, nothing learnt). A request without credentials guesses nothing and is not counted.
    const bearer = request.headers.authorization !== undefined;
    const nowMs = ctx.clock.now().getTime();
    if (bearer) {
      const block = await limiter.blocked(request.ip, nowMs);
      if (block.blocked) throw TOO_MANY(block.retryAfter);
    }
    const principal = await identify(request);
    if (!principal) {
      if (bearer) {
        const after = await limiter.record(request.ip, nowMs);
        if (after.blocked) throw TOO_MANY(after.retryAfter);
      }
      throw UNAUTHORIZED();
    }
    request.principal = principal;
    if (!(await admits(ctx, principal, access, request.params))) throw forbidden(`this needs the ${access} role`);
  });
}

function headerText(v: string | string[] | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

async function admits(ctx: AppContext, p: Principal, access: Exclude<Access, 'public'>, params: unknown): Promise<boolean> {
  if (access === 'signed-in') return true;
  if (access === 'person') return p.kind === 'person' && p.via === 'session';
  if (p.kind === 'instance-admin') return true;
  if (access === 'instance') return false;
  const orgId = (params as { orgId?: unknown } | undefined)?.orgId;
  if (typeof orgId !== 'string') return false; // a role route without an organization fails closed
  return atLeast(await roleIn(ctx.db, p, orgId), access);
}

/** The caller as the route handler sees it (always set on routes other than `public`). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw forbidden('not signed in');
  return request.principal;
}

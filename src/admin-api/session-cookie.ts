import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { SessionTimes } from '../access/sessions.js';

/**
 * The admin API's cookies, parsed and written by @fastify/cookie (registered on the admin scope):
 * - the console's session cookie: only the session id;
 * - the OIDC sign-in cookie: binds a sign-in under way to the browser that started it.
 * Both HttpOnly, SameSite=Lax (the provider's redirect back is a top-level GET, which Lax lets
 * through), Secure when the service is reached over https.
 */
export const SESSION_COOKIE = 'vigia_session';
export const OIDC_LOGIN_COOKIE = 'vigia_oidc_login';

/** Ids and states are base62 / base64url; anything else in the cookie is nobody's. */
const COOKIE_VALUE = /^[0-9A-Za-z_-]{20,100}$/;

export function sessionTimes(ctx: AppContext): SessionTimes {
  return { idleMs: ctx.config.sessionIdleMs ?? 3_600_000, maxMs: ctx.config.sessionMaxMs ?? 43_200_000 };
}

function flags(ctx: AppContext, path: string): CookieSerializeOptions {
  return { path, httpOnly: true, sameSite: 'lax', secure: ctx.config.baseUrl.startsWith('https:') };
}

function readCookie(request: FastifyRequest, name: string): string | null {
  const value = request.cookies?.[name];
  return typeof value === 'string' && COOKIE_VALUE.test(value) ? value : null;
}

export function readSessionCookie(request: FastifyRequest): string | null {
  return readCookie(request, SESSION_COOKIE);
}

export function setSessionCookie(reply: FastifyReply, ctx: AppContext, id: string, maxAgeMs: number): void {
  reply.setCookie(SESSION_COOKIE, id, { ...flags(ctx, '/'), maxAge: Math.floor(maxAgeMs / 1000) });
}

export function clearSessionCookie(reply: FastifyReply, ctx: AppContext): void {
  reply.setCookie(SESSION_COOKIE, '', { ...flags(ctx, '/'), maxAge: 0 });
}

/** Only the callback needs the sign-in cookie: the browser sends it nowhere else. */
const OIDC_COOKIE_PATH = '/api/admin/v1/session/oidc/';

export function readOidcLoginCookie(request: FastifyRequest): string | null {
  return readCookie(request, OIDC_LOGIN_COOKIE);
}

export function setOidcLoginCookie(reply: FastifyReply, ctx: AppContext, state: string, maxAgeMs: number): void {
  reply.setCookie(OIDC_LOGIN_COOKIE, state, { ...flags(ctx, OIDC_COOKIE_PATH), maxAge: Math.floor(maxAgeMs / 1000) });
}

export function clearOidcLoginCookie(reply: FastifyReply, ctx: AppContext): void {
  reply.setCookie(OIDC_LOGIN_COOKIE, '', { ...flags(ctx, OIDC_COOKIE_PATH), maxAge: 0 });
}

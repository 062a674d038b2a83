import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { SessionTimes } from '../access/sessions.js';

/** The console's session cookie: only the session id, HttpOnly, SameSite=Lax, Secure on https. */
export const SESSION_COOKIE = 'vigia_session';

export function sessionTimes(ctx: AppContext): SessionTimes {
  return { idleMs: ctx.config.sessionIdleMs ?? 3_600_000, maxMs: ctx.config.sessionMaxMs ?? 43_200_000 };
}

export function readSessionCookie(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[0-9A-Za-z]{20,100}$/.test(value) ? value : null;
    }
  }
  return null;
}

function flags(ctx: AppContext): string {
  const secure = ctx.config.baseUrl.startsWith('https:') ? '; Secure' : '';
  return `Path=/; HttpOnly; SameSite=Lax${secure}`;
}

export function setSessionCookie(reply: FastifyReply, ctx: AppContext, id: string, maxAgeMs: number): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${id}; Max-Age=${Math.floor(maxAgeMs / 1000)}; ${flags(ctx)}`);
}

export function clearSessionCookie(reply: FastifyReply, ctx: AppContext): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; Max-Age=0; ${flags(ctx)}`);
}

/**
 * The acknowledge link's door (docs/notifications.md, "Acknowledge from the message"):
 * `GET /ack/{token}` shows the confirmation page and changes nothing (mail scanners open links);
 * `POST /ack/{token}` acts, once. The console's session cookie, when the browser brings one,
 * names who acted; an organization may require it. Thin: src/inbound/ack-link-use.ts decides.
 */
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { touchSession } from '../access/sessions.js';
import type { Principal } from '../access/principal.js';
import { inspectAckLink, useAckLink, type AckLinkState } from '../inbound/ack-link-use.js';
import { readSessionCookie, sessionTimes } from '../admin-api/session-cookie.js';
import { ACK_CSS, ackPageStatus, renderAckPage } from './ack-page-html.js';

/**
 * The token is longer than Fastify's limit for a path parameter (three ids, a nonce, an expiry
 * and a MAC), so the route is a wildcard; anything longer than any token we make is refused
 * before any work.
 */
const TOKEN_PARAM = { type: 'object', required: ['*'], properties: { '*': { type: 'string', maxLength: 800 } } } as const;
type TokenParams = { Params: { '*': string } };

async function callerOf(ctx: AppContext, req: FastifyRequest): Promise<Principal | null> {
  const id = readSessionCookie(req);
  if (!id) return null;
  const s = await touchSession(ctx.db, id, ctx.clock.now(), sessionTimes(ctx));
  if (!s) return null;
  if (s.personId === null) return { kind: 'instance-admin', via: 'session', sessionId: s.idHash };
  return { kind: 'person', personId: s.personId, email: s.email ?? '', via: 'session', idpRoles: s.idpRoles, sessionId: s.idHash };
}

function send(ctx: AppContext, reply: FastifyReply, token: string, state: AckLinkState, method: 'GET' | 'POST') {
  const path = `/ack/${encodeURIComponent(token)}`;
  const base = ctx.config.baseUrl.replace(/\/+$/, '');
  const html = renderAckPage(state, {
    action: path,
    consoleUrl: state.alertId ? `${base}/alerts/${encodeURIComponent(state.alertId)}` : null,
    signInUrl: `/?next=${encodeURIComponent(path)}`,
  });
  return reply.code(ackPageStatus(state, method)).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
}

export async function ackPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  await app.register(cookie);
  // The page's form posts no fields; whatever a browser sends with it is ignored.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_req, _body, done) => done(null, undefined));

  app.get('/ack-assets/ack.css', async (_req, reply) => reply.header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8').send(ACK_CSS));

  app.get<TokenParams>('/ack/*', { schema: { params: TOKEN_PARAM } }, async (req, reply) => {
    const token = req.params['*'];
    return send(ctx, reply, token, await inspectAckLink(ctx, token, await callerOf(ctx, req)), 'GET');
  });

  app.post<TokenParams>('/ack/*', { schema: { params: TOKEN_PARAM } }, async (req, reply) => {
    const token = req.params['*'];
    return send(ctx, reply, token, await useAckLink(ctx, token, await callerOf(ctx, req), req.ip), 'POST');
  });
}

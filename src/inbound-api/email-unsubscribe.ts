/**
 * One-click unsubscribe of an e-mail recipient (RFC 8058; docs/notifications.md, "E-mail"):
 *   GET  /api/inbound/v1/email/unsubscribe?t=<token>  a confirmation page with a button (a mail
 *        scanner that opens the link changes nothing);
 *   POST /api/inbound/v1/email/unsubscribe?t=<token>  takes the recipient off the destination — what
 *        mail clients send for `List-Unsubscribe-Post: List-Unsubscribe=One-Click`, and the page's button.
 * The token (sealed) names the destination and the address; a bad one gets 400 and changes nothing.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { escapeHtml, unsubscribe, unsubscribeView, type UnsubscribeView } from '../delivery/email/index.js';
import { ApiError } from '../http/errors.js';
import type { Language } from '../orgs/language.js';

const PAGES: Record<Language, { title: string; ask: (v: UnsubscribeView) => string; button: string; done: (v: UnsubscribeView) => string; already: (v: UnsubscribeView) => string }> = {
  'pt-BR': {
    title: 'Cancelar inscrição — Vigia',
    ask: (v) => `Deixar de enviar os alertas do destino “${v.destinationName}” para ${v.address}?`,
    button: 'Cancelar inscrição',
    done: (v) => `${v.address} não receberá mais os alertas do destino “${v.destinationName}”.`,
    already: (v) => `${v.address} já não recebe os alertas do destino “${v.destinationName}”.`,
  },
  en: {
    title: 'Unsubscribe — Vigia',
    ask: (v) => `Stop sending the alerts of destination “${v.destinationName}” to ${v.address}?`,
    button: 'Unsubscribe',
    done: (v) => `${v.address} will no longer receive the alerts of destination “${v.destinationName}”.`,
    already: (v) => `${v.address} no longer receives the alerts of destination “${v.destinationName}”.`,
  },
};

const esc = escapeHtml;

function page(reply: FastifyReply, language: Language, body: string): FastifyReply {
  const p = PAGES[language];
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(`<!doctype html><html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${esc(p.title)}</title></head><body><main><h1>${esc(p.title)}</h1>${body}</main></body></html>`);
}

const badToken = () => new ApiError(400, 'invalid_request', 't: not a valid unsubscribe link (it may have been cut short)');
const query = { type: 'object', required: ['t'], additionalProperties: false, properties: { t: { type: 'string', minLength: 1, maxLength: 2000 } } } as const;

export async function emailUnsubscribeRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  // RFC 8058's body (List-Unsubscribe=One-Click) as a form, or multipart: read, never needed (the token is in the URL).
  app.addContentTypeParser(['application/x-www-form-urlencoded', 'multipart/form-data'], { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, _body, done) => done(null, undefined));

  app.get<{ Querystring: { t: string } }>('/unsubscribe', { schema: { querystring: query } }, async (req, reply) => {
    const view = await unsubscribeView(ctx, req.query.t);
    if (!view) throw badToken();
    const p = PAGES[view.language];
    if (!view.listed) return page(reply, view.language, `<p>${esc(p.already(view))}</p>`);
    const action = `unsubscribe?t=${encodeURIComponent(req.query.t)}`;
    return page(
      reply,
      view.language,
      `<p>${esc(p.ask(view))}</p><form method="post" action="${esc(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">${esc(p.button)}</button></form>`,
    );
  });

  app.post<{ Querystring: { t: string } }>('/unsubscribe', { schema: { querystring: query } }, async (req, reply) => {
    const result = await unsubscribe(ctx, req.query.t, req.ip);
    if (!result) throw badToken();
    const p = PAGES[result.view.language];
    return page(reply, result.view.language, `<p>${esc(result.outcome === 'removed' ? p.done(result.view) : p.already(result.view))}</p>`);
  });
}

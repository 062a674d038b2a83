import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * One set of security headers for every response of the server — API JSON, CSV, errors, 404s,
 * the console, its assets, Swagger UI — installed once at the root so no route can miss it.
 *
 * - `X-Content-Type-Options: nosniff`: a browser never reads a JSON or CSV answer as HTML/script.
 * - `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`: no page of this origin can be
 *   framed (clickjacking the console, whose admin token lives in the tab's sessionStorage).
 * - `Referrer-Policy: no-referrer`: paths and query strings never leak to other sites.
 * - Content-Security-Policy by what is sent: HTML pages may load only this origin's scripts and
 *   styles; every other answer (data, assets) may load nothing at all.
 *
 * HSTS is the TLS terminator's job (docs/production.md): this process speaks plain HTTP.
 */

/** The console's pages: everything from this origin, no inline script, no CDN. */
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Data and assets: a document made of this answer may run and load nothing. */
const DATA_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The headers of an answer that is not an HTML page. Also written by the raw answers to requests
 * Node's parser refused (client-errors.ts), which never pass through Fastify's hooks.
 */
export const DATA_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': DATA_CSP,
};

/**
 * Swagger UI (/docs): its bundle, initializer and styles are files of this origin (no inline
 * script). Its React code sets `style` attributes and its syntax highlighter inline styles, hence
 * style 'unsafe-inline' (styles cannot run code); "Try it out" calls the public API at the
 * document's server URL, which may be another origin than the page (VIGIA_BASE_URL).
 */
function docsCsp(apiOrigin: string): string {
  const connect = apiOrigin === '' ? "'self'" : `'self' ${apiOrigin}`;
  return `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src ${connect}; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

const DOCS_PATH = /^\/docs(?:[/?#]|$)/;

function isHtml(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && /^\s*text\/html\b/i.test(type);
}

/** Installs the onSend hook on the root instance; call before registering any route plugin. */
export function installSecurityHeaders(app: FastifyInstance, opts: { baseUrl: string }): void {
  let apiOrigin = '';
  try {
    apiOrigin = new URL(opts.baseUrl).origin;
  } catch {
    // an unparsable base URL is refused by the configuration; 'self' alone is then right
  }
  const docs = docsCsp(apiOrigin);
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply) => {
    reply.headers(DATA_SECURITY_HEADERS);
    if (isHtml(reply)) reply.header('content-security-policy', DOCS_PATH.test(request.url) ? docs : PAGE_CSP);
  });
}

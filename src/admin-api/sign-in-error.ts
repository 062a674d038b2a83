import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A refused sign-in seen by a browser lands on the console, not on a raw JSON page: a failed
 * answer of the OpenID routes to a page navigation (Accept names text/html) becomes a 303 to
 * `/?signInError=<code>`, where the sign-in page says why in the person's language with the code
 * beside it. Scripts (no text/html in Accept) keep the error envelope and its status. The error
 * code is the platform's own, one of a fixed set; nothing else of the answer travels in the URL.
 */
export async function signInErrorToConsole(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.statusCode < 400 || !String(req.headers.accept ?? '').includes('text/html')) return payload;
  let code = 'unknown';
  try {
    const parsed = JSON.parse(String(payload)) as { error?: { code?: unknown } };
    if (typeof parsed.error?.code === 'string' && /^[a-z_]{1,40}$/.test(parsed.error.code)) code = parsed.error.code;
  } catch {
    // Not the envelope: the generic message.
  }
  reply.code(303).header('location', `/?signInError=${code}`).removeHeader('content-type').removeHeader('content-length');
  return '';
}

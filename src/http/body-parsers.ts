import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

/**
 * Request body parsing for every route. An empty body is "no body" whatever the Content-Type says:
 * clients and shell aliases often send `Content-Type: application/json` on every call, and a
 * body-less action (resolve, acknowledge, test, redeliver, rotate-secret, DELETE) must not fail
 * because of it. A route that needs a body still refuses a missing one through its schema.
 * A non-empty body must be JSON (415 otherwise).
 */
export function installBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined);
    parseJson(req, body as string, done);
  });
  // Any other media type: accepted only when the body is empty.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    if (body === '') return done(null, undefined);
    done(new ApiError(415, 'unsupported_media_type', 'send the body as application/json'), undefined);
  });
}

import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { AppContext } from '../context.js';
import { hoistNamedSchemas } from '../public-api/openapi.js';
import { errorSchema } from '../public-api/schemas.js';
import { CSRF_HEADER } from './auth.js';
import { SESSION_COOKIE } from './session-cookie.js';

/**
 * The admin API's OpenAPI 3.1 document, generated from the route schemas of this scope (as the
 * public API's is) and served at /api/admin/v1/openapi.json to any signed-in caller (it describes routes
 * and holds no data). The web
 * console's request and response types are generated from it (`npm run gen:console-types`).
 */
export async function installAdminOpenApi(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vigia admin API',
        version: '1.0.0',
        description:
          'Administration of organizations, API keys, inventory, destinations, alerts and silences, and the read views of the web console. ' +
          'Send the instance admin token or a personal token as `Authorization: Bearer <token>` (or use the console session). Every error answers with the envelope `{"error":{"code","message"}}`.',
      },
      servers: [{ url: `${ctx.config.baseUrl}/api/admin/v1` }],
      components: {
        securitySchemes: {
          adminToken: { type: 'http', scheme: 'bearer', description: 'The instance admin token or a personal token (`vpt_…`).' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description: `The console's session (sign-in with the admin token or the identity provider). Calls that change something also send the \`${CSRF_HEADER}\` header given at sign-in.`,
          },
        },
      },
      // Either one: a bearer token, or the console's session cookie.
      security: [{ adminToken: [] }, { session: [] }],
    },
    transformObject: (document) => ('openapiObject' in document ? hoistNamedSchemas(document.openapiObject) : document.swaggerObject),
  });
  app.get('/openapi.json', { config: { access: 'signed-in' }, schema: { hide: true } }, async () => app.swagger());
}

function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: errorSchema } } };
}

/** Response map of an admin route answering one JSON object, with the error answers every route shares. */
/** The schema of an answer `{ items: [...] }` named `title`, each item of schema `item`. */
export function itemsSchema(title: string, item: object) {
  return { title, type: 'object', required: ['items'], properties: { items: { type: 'array', items: item } } } as const;
}

export function adminResponses(schema: object, status = 200) {
  return {
    [status]: { description: 'OK', content: { 'application/json': { schema } } },
    400: errorResponse('invalid_request: the message names the field.'),
    401: errorResponse('unauthorized: admin token missing or wrong.'),
    404: errorResponse('not_found: no such organization or object.'),
  };
}

/**
 * `POST /orgs/{orgId}/destinations/preview` (docs/notifications.md, "Preview in the console"):
 * a sample incident rendered by the real Teams, Slack and e-mail renderers in the
 * organization's language and time zone. Thin over delivery/preview.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ALERT_EVENTS } from '../outbox/index.js';
import { PREVIEW_KINDS, renderPreview, type PreviewInput } from '../delivery/preview.js';
import { adminResponses } from './openapi.js';

const previewSchema = {
  title: 'MessagePreview',
  type: 'object',
  required: ['kind', 'event', 'language', 'timeZone', 'contentType'],
  properties: {
    kind: { type: 'string', enum: [...PREVIEW_KINDS] },
    event: { type: 'string', enum: [...ALERT_EVENTS] },
    language: { type: 'string' },
    timeZone: { type: 'string' },
    contentType: { type: 'string' },
    body: { type: 'string' },
    email: {
      type: 'object',
      required: ['subject', 'text', 'html'],
      properties: { subject: { type: 'string' }, text: { type: 'string' }, html: { type: 'string' } },
    },
  },
} as const;

export async function destinationPreviewRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.post<{ Params: { orgId: string }; Body: PreviewInput }>(
    '/orgs/:orgId/destinations/preview',
    {
      config: { access: 'viewer' },
      schema: {
        params: { type: 'object', required: ['orgId'], properties: { orgId: { type: 'string', maxLength: 100 } } },
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['kind'],
          properties: {
            kind: { type: 'string', enum: [...PREVIEW_KINDS] },
            event: { type: 'string', enum: [...ALERT_EVENTS] },
            slackButtons: { type: 'boolean' },
          },
        },
        response: adminResponses(previewSchema),
      },
    },
    (req) => renderPreview(ctx, req.params.orgId, req.body),
  );
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { invalidRequest } from '../http/errors.js';
import { principalOf } from './auth.js';
import { maySeeChangeActor } from './change-actor.js';
import { incidentChanges } from '../monitoring/changes/attached.js';
import { acknowledgeAlert, getAlert, ingestSignals, resolveAlert } from '../alerts/lifecycle.js';
import { createSilence, endSilence, listSilences, type SilenceMatchers } from '../alerts/silences.js';
import { parseIsoDateTime } from '../orgs/validation.js';
import { nonEmptyText, orgIdParams } from '../orgs/schemas.js';
import { adminResponses } from './openapi.js';
import { alertSchema, alertWithEventsSchema, signalOutcomesSchema, silenceSchema } from './schemas.js';

const idParam = { type: 'string', minLength: 1, maxLength: 100 } as const;
const alertParams = { type: 'object', required: ['orgId', 'alertId'], properties: { orgId: idParam, alertId: idParam } } as const;
const silenceParams = { type: 'object', required: ['orgId', 'silenceId'], properties: { orgId: idParam, silenceId: idParam } } as const;

/** Optional JSON body limited to the given fields (acknowledge / resolve accept an empty call). */
function optionalBody(body: unknown, allowed: Record<string, number>): Record<string, string> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('body must be an object');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    const max = allowed[k];
    if (max === undefined) throw invalidRequest(`body: unknown field "${k}"`);
    if (v === null) continue;
    if (typeof v !== 'string' || v.length === 0 || v.length > max) throw invalidRequest(`body "${k}" must be a string of 1 to ${max} characters`);
    out[k] = v;
  }
  return out;
}

interface SilenceBody {
  matchers: SilenceMatchers;
  startsAt?: string;
  endsAt: string;
  comment?: string | null;
}

const silenceBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['matchers', 'endsAt'],
  properties: {
    matchers: {
      type: 'object',
      additionalProperties: false,
      properties: { sourceType: nonEmptyText(100), sourceId: nonEmptyText(500), notificationKind: nonEmptyText(200) },
    },
    startsAt: { type: 'string', maxLength: 40 },
    endsAt: { type: 'string', maxLength: 40 },
    comment: { type: ['string', 'null'], maxLength: 1000 },
  },
} as const;

/** Admin routes: signals, alerts (acknowledge, resolve, get) and silences (docs/admin-api.md). */
export async function alertsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  // One object → one outcome object; an array (≤ 1000) → an array of outcomes. The body is
  // validated by hand (see alerts/signals.ts) so batch errors name the item.
  app.post<{ Params: { orgId: string } }>('/orgs/:orgId/signals', { config: { access: 'operator' }, schema: { params: orgIdParams, response: adminResponses(signalOutcomesSchema) } }, async (req) => {
    const { outcomes, single } = await ingestSignals(ctx, req.params.orgId, req.body);
    return single ? outcomes[0] : outcomes;
  });

  app.get<{ Params: { orgId: string; alertId: string } }>('/orgs/:orgId/alerts/:alertId', { config: { access: 'viewer' }, schema: { params: alertParams, response: adminResponses(alertWithEventsSchema) } }, async (req) => {
    const alert = await getAlert(ctx, req.params.orgId, req.params.alertId);
    const withActor = await maySeeChangeActor(ctx, principalOf(req), req.params.orgId);
    return { ...alert, ...(await incidentChanges(ctx.db, req.params.orgId, alert.id, withActor)) };
  });

  app.post<{ Params: { orgId: string; alertId: string } }>(
    '/orgs/:orgId/alerts/:alertId/acknowledge',
    { config: { access: 'operator' }, schema: { params: alertParams, response: adminResponses(alertSchema) } },
    async (req) => {
      const { by, acknowledgedAt } = optionalBody(req.body, { by: 200, acknowledgedAt: 40 });
      const at = acknowledgedAt === undefined ? undefined : parseIsoDateTime(acknowledgedAt, 'acknowledgedAt');
      // A person acknowledges as themselves; only automation (the instance admin token) names someone.
      const p = principalOf(req);
      return acknowledgeAlert(ctx, req.params.orgId, req.params.alertId, p.kind === 'person' ? p.email : (by ?? null), at);
    },
  );

  app.post<{ Params: { orgId: string; alertId: string } }>(
    '/orgs/:orgId/alerts/:alertId/resolve',
    { config: { access: 'operator' }, schema: { params: alertParams, response: adminResponses(alertSchema) } },
    async (req) => {
      optionalBody(req.body, {});
      return resolveAlert(ctx, req.params.orgId, req.params.alertId);
    },
  );

  app.post<{ Params: { orgId: string }; Body: SilenceBody }>(
    '/orgs/:orgId/silences',
    { config: { access: 'operator' },
      schema: {
        params: orgIdParams,
        body: silenceBodySchema,
        response: adminResponses(silenceSchema, 201),
      },
    },
    async (req, reply) => {
      const b = req.body;
      const silence = await createSilence(ctx, req.params.orgId, {
        matchers: b.matchers,
        startsAt: b.startsAt === undefined ? undefined : parseIsoDateTime(b.startsAt, 'startsAt'),
        endsAt: parseIsoDateTime(b.endsAt, 'endsAt'),
        comment: b.comment ?? null,
      });
      return reply.code(201).send(silence);
    },
  );

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId/silences', { config: { access: 'viewer' }, schema: { params: orgIdParams, response: adminResponses({ type: 'array', items: silenceSchema }) } }, async (req) =>
    listSilences(ctx, req.params.orgId),
  );

  app.delete<{ Params: { orgId: string; silenceId: string } }>(
    '/orgs/:orgId/silences/:silenceId',
    { config: { access: 'operator' }, schema: { params: silenceParams } },
    async (req, reply) => {
      await endSilence(ctx, req.params.orgId, req.params.silenceId);
      return reply.code(204).send();
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { ALERT_EVENTS } from '../alerts/events.js';
import { invalidRequest, limitExceeded, notFound } from '../http/errors.js';
import { newId } from '../ids.js';
import { generateSigningSecret } from '../secrets/tokens.js';
import { getConnector } from '../delivery/connectors/index.js';
import { UnsafeDestinationError } from '../delivery/address-policy.js';
import { checkDestinationUrlResolved } from '../delivery/guarded-http.js';
import {
  DESTINATION_COLUMNS,
  DESTINATION_KINDS,
  MAX_DESTINATIONS_PER_ORG,
  toDestinationView,
  type DestinationFilter,
  type DestinationRow,
} from '../delivery/destinations.js';
import { runTestAction } from '../delivery/test-send.js';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../delivery/signing.js';

/** Admin routes: destinations (CONTRACT §2) — delivery engine (issue 3). */

const idParams = {
  type: 'object',
  required: ['orgId', 'id'],
  properties: { orgId: { type: 'string', maxLength: 100 }, id: { type: 'string', maxLength: 100 } },
} as const;
const orgParams = { type: 'object', required: ['orgId'], properties: { orgId: { type: 'string', maxLength: 100 } } } as const;

const filterSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    events: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...ALERT_EVENTS] } },
    severities: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: ['error', 'info'] } },
    sourceTypes: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 100 } },
  },
} as const;

const commonProps = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  url: { type: 'string', minLength: 1, maxLength: 2048 },
  config: { type: 'object', maxProperties: 50 },
  credentials: { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 4096 } },
  filter: filterSchema,
  enabled: { type: 'boolean' },
  signatureScheme: { type: 'string', enum: [...SIGNATURE_SCHEMES] },
} as const;

interface CreateBody {
  name: string;
  kind: (typeof DESTINATION_KINDS)[number];
  url?: string;
  config?: Record<string, unknown>;
  credentials?: Record<string, string>;
  filter?: DestinationFilter | null;
  enabled?: boolean;
  signatureScheme?: SignatureScheme;
}
type PatchBody = Partial<Omit<CreateBody, 'kind'>>;

/** URL-valued config fields of the connector kinds (CONTRACT §2), checked even before a connector is registered. */
const KNOWN_URL_FIELDS = ['apiBaseUrl', 'instanceUrl', 'organizationUrl'];

async function requireOrg(q: Queryable, orgId: string, lock = false): Promise<void> {
  const { rows } = await q.query(`SELECT id FROM orgs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [orgId]);
  if (rows.length === 0) throw notFound('organization');
}

export async function loadDestination(q: Queryable, orgId: string, id: string): Promise<DestinationRow> {
  const { rows } = await q.query<DestinationRow>(
    `SELECT ${DESTINATION_COLUMNS} FROM destinations WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL`,
    [orgId, id],
  );
  if (!rows[0]) throw notFound('destination');
  return rows[0];
}

async function checkUrl(ctx: AppContext, value: string, field: string): Promise<void> {
  try {
    await checkDestinationUrlResolved(ctx, value, field);
  } catch (err) {
    if (err instanceof UnsafeDestinationError) throw invalidRequest(err.message);
    throw err;
  }
}

/**
 * Validates what a destination of `kind` will be saved with. Webhook: an https `url`, no config
 * or credentials. Connector kinds: the connector's own validation (when registered) and the
 * safety rules on every URL field.
 */
async function validateDestination(
  ctx: AppContext,
  kind: string,
  input: { url: string | null; config: Record<string, unknown>; credentials: Record<string, string> | null; signatureScheme?: SignatureScheme },
): Promise<void> {
  if (kind !== 'webhook' && input.signatureScheme !== undefined) {
    throw invalidRequest(`body: "signatureScheme" is used only by webhook destinations (a ${kind} destination is not signed)`);
  }
  if (kind === 'webhook') {
    if (!input.url) throw invalidRequest('body: "url" is required for a webhook destination');
    if (Object.keys(input.config).length > 0) throw invalidRequest('body: "config" is not used by a webhook destination');
    if (input.credentials && Object.keys(input.credentials).length > 0) {
      throw invalidRequest('body: "credentials" is not used by a webhook destination (the signing secret is generated)');
    }
    await checkUrl(ctx, input.url, 'url');
    return;
  }
  if (input.url) throw invalidRequest(`body: "url" is not used by a ${kind} destination; use config`);
  const connector = getConnector(kind);
  const problem = connector?.validate(input.config, input.credentials ?? {});
  if (problem) throw invalidRequest(problem);
  const fields = new Set([...(connector?.urlFields(input.config) ?? []), ...KNOWN_URL_FIELDS]);
  for (const field of fields) {
    const value = input.config[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw invalidRequest(`config.${field} must be a string`);
    await checkUrl(ctx, value, `config.${field}`);
  }
}

export async function destinationsRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.post<{ Params: { orgId: string }; Body: CreateBody }>(
    '/orgs/:orgId/destinations',
    {
      schema: {
        params: orgParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'kind'],
          properties: { ...commonProps, kind: { type: 'string', enum: [...DESTINATION_KINDS] } },
        },
      },
    },
    async (req, reply) => {
      const { orgId } = req.params;
      const b = req.body;
      await requireOrg(ctx.db, orgId);
      const config = b.config ?? {};
      const credentials = b.credentials ?? null;
      await validateDestination(ctx, b.kind, { url: b.url ?? null, config, credentials, signatureScheme: b.signatureScheme });

      const now = ctx.clock.now();
      const id = newId('dst', now);
      const signingSecret = b.kind === 'webhook' ? generateSigningSecret() : undefined;
      const row = await ctx.db.tx(async (q) => {
        await requireOrg(q, orgId, true); // serializes concurrent creates of one org for the limit
        const { rows } = await q.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM destinations WHERE org_id = $1 AND deleted_at IS NULL',
          [orgId],
        );
        if (rows[0]!.n >= MAX_DESTINATIONS_PER_ORG) {
          throw limitExceeded(`an organization may have at most ${MAX_DESTINATIONS_PER_ORG} destinations`);
        }
        const ins = await q.query<DestinationRow>(
          `INSERT INTO destinations (id, org_id, name, kind, url, config, credentials_sealed, signing_secret_sealed, filter, enabled, created_at, updated_at, signature_scheme)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12) RETURNING ${DESTINATION_COLUMNS}`,
          [
            id,
            orgId,
            b.name,
            b.kind,
            b.url ?? null,
            JSON.stringify(config),
            credentials && Object.keys(credentials).length > 0 ? ctx.sealer.sealJson(credentials) : null,
            signingSecret ? ctx.sealer.seal(signingSecret) : null,
            b.filter ? JSON.stringify(b.filter) : null,
            b.enabled ?? true,
            now,
            b.signatureScheme ?? 'service',
          ],
        );
        return ins.rows[0]!;
      });
      return reply.code(201).send({ ...toDestinationView(row), ...(signingSecret ? { signingSecret } : {}) });
    },
  );

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId/destinations', { schema: { params: orgParams } }, async (req) => {
    await requireOrg(ctx.db, req.params.orgId);
    const { rows } = await ctx.db.query<DestinationRow>(
      `SELECT ${DESTINATION_COLUMNS} FROM destinations WHERE org_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
      [req.params.orgId],
    );
    return rows.map(toDestinationView);
  });

  app.get<{ Params: { orgId: string; id: string } }>('/orgs/:orgId/destinations/:id', { schema: { params: idParams } }, async (req) =>
    toDestinationView(await loadDestination(ctx.db, req.params.orgId, req.params.id)),
  );

  app.patch<{ Params: { orgId: string; id: string }; Body: PatchBody }>(
    '/orgs/:orgId/destinations/:id',
    { schema: { params: idParams, body: { type: 'object', additionalProperties: false, minProperties: 1, properties: commonProps } } },
    async (req) => {
      const { orgId, id } = req.params;
      const b = req.body;
      const current = await loadDestination(ctx.db, orgId, id);
      const url = b.url !== undefined ? b.url : current.url;
      const config = b.config ?? current.config ?? {};
      const credentials =
        b.credentials !== undefined
          ? b.credentials
          : current.credentials_sealed
            ? ctx.sealer.openJson<Record<string, string>>(current.credentials_sealed)
            : null;
      if (b.url !== undefined || b.config !== undefined || b.credentials !== undefined || b.signatureScheme !== undefined) {
        await validateDestination(ctx, current.kind, { url, config, credentials, signatureScheme: b.signatureScheme });
      }
      const { rows } = await ctx.db.query<DestinationRow>(
        `UPDATE destinations SET
           name = COALESCE($3, name),
           url = $4,
           config = $5,
           credentials_sealed = CASE WHEN $6::boolean THEN $7 ELSE credentials_sealed END,
           filter = CASE WHEN $8::boolean THEN $9::jsonb ELSE filter END,
           enabled = COALESCE($10, enabled),
           updated_at = $11,
           signature_scheme = COALESCE($12, signature_scheme)
         WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING ${DESTINATION_COLUMNS}`,
        [
          orgId,
          id,
          b.name ?? null,
          url,
          JSON.stringify(config),
          b.credentials !== undefined,
          b.credentials && Object.keys(b.credentials).length > 0 ? ctx.sealer.sealJson(b.credentials) : null,
          b.filter !== undefined,
          b.filter ? JSON.stringify(b.filter) : null,
          b.enabled ?? null,
          ctx.clock.now(),
          b.signatureScheme ?? null,
        ],
      );
      if (!rows[0]) throw notFound('destination');
      return toDestinationView(rows[0]);
    },
  );

  app.delete<{ Params: { orgId: string; id: string } }>('/orgs/:orgId/destinations/:id', { schema: { params: idParams } }, async (req, reply) => {
    const { orgId, id } = req.params;
    const now = ctx.clock.now();
    await ctx.db.tx(async (q) => {
      const { rowCount } = await q.query(
        'UPDATE destinations SET deleted_at = $3, enabled = false, updated_at = $3 WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL',
        [orgId, id, now],
      );
      if (rowCount === 0) throw notFound('destination');
      // Unsent work of a deleted destination stops here and is never sent.
      await q.query(
        `UPDATE deliveries SET status = 'abandoned', last_error = 'destination deleted', completed_at = $3,
                next_attempt_at = NULL, locked_until = NULL, locked_by = NULL
          WHERE org_id = $1 AND destination_id = $2 AND status IN ('pending', 'waiting')`,
        [orgId, id, now],
      );
    });
    return reply.code(204).send();
  });

  app.post<{ Params: { orgId: string; id: string } }>(
    '/orgs/:orgId/destinations/:id/rotate-secret',
    { schema: { params: idParams } },
    async (req) => {
      const current = await loadDestination(ctx.db, req.params.orgId, req.params.id);
      if (current.kind !== 'webhook') throw invalidRequest('only webhook destinations have a signing secret');
      const signingSecret = generateSigningSecret();
      await ctx.db.query(
        'UPDATE destinations SET signing_secret_sealed = $3, updated_at = $4 WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL',
        [req.params.orgId, req.params.id, ctx.sealer.seal(signingSecret), ctx.clock.now()],
      );
      return { signingSecret };
    },
  );

  app.post<{ Params: { orgId: string; id: string } }>(
    '/orgs/:orgId/destinations/:id/test',
    { schema: { params: idParams } },
    async (req) => {
      const destination = await loadDestination(ctx.db, req.params.orgId, req.params.id);
      return runTestAction(ctx, destination);
    },
  );
}

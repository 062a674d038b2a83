/**
 * Destinations as the admin API manages them: create (with the per-organization limit), list,
 * read, change, delete (its unsent work is abandoned), rotate the signing secret, test. The
 * input rules live in destination-input.ts. Secrets are sealed before they are stored and never
 * returned, except a new signing secret once.
 */
import type { AppContext } from '../context.js';
import { DATE_RANGE_TEXT, parseInstant as parseDateRuleInstant } from '../date-rule.js';
import type { Queryable } from '../db/index.js';
import { conflictError, invalidInput, limitError, notFoundError } from '../errors.js';
import { newId } from '../ids.js';
import { abandonDestinationWork, readDestinationHealth, recordDestinationEnabled, requeueForRecovery } from '../outbox/index.js';
import { requireOrg } from '../orgs/orgs.js';
import { generateSigningSecret } from '../secrets/tokens.js';
import {
  DESTINATION_COLUMNS,
  MAX_DESTINATIONS_PER_ORG,
  toDestinationView,
  toHealthView,
  type DestinationHealthView,
  type DestinationFilter,
  type DESTINATION_KINDS,
  type DestinationRow,
} from './destinations.js';
import { validateDestination } from './destination-input.js';
import { isChatKind } from './connectors/chat-urls.js';
import { recordInstanceDomain } from './credential-rule.js';
import type { SignatureScheme } from './signing.js';
import { runTestAction, type TestActionResult } from './test-send.js';
import { auditTarget } from '../access/audit-context.js';
import { hasInboundAddress, readInboundViews, slackRequestUrl, type InboundView } from './inbound-views.js';
import { recipientMarks, type RecipientMark } from './email/index.js';

export interface DestinationInput {
  name: string;
  kind: (typeof DESTINATION_KINDS)[number];
  url?: string;
  config?: Record<string, unknown>;
  credentials?: Record<string, string>;
  filter?: DestinationFilter | null;
  enabled?: boolean;
  /** Webhooks only: "service" (default) or "service+standard". */
  signatureScheme?: SignatureScheme;
  /** Sends per second across all workers; null or absent = unlimited. */
  rateLimitPerSecond?: number | null;
  /** ServiceNow: the custom instance domain (host of config.instanceUrl) the owner allows for the organization, with the credentials. */
  customInstanceDomain?: string;
}
export type DestinationChange = Partial<Omit<DestinationInput, 'kind'>>;
export type DestinationView = ReturnType<typeof toDestinationView> & {
  health: DestinationHealthView;
  inbound: InboundView | null;
  /** Slack destinations: the interactivity Request URL to give the Slack app; null for other kinds. */
  slackRequestUrl: string | null;
  /** E-mail destinations: recipients the relay last refused for good; null for other kinds. */
  refusedRecipients: RecipientMark[] | null;
};

/** Views of destination rows with their health and inbound address (one read each for all of them). */
async function withHealth(ctx: AppContext, orgId: string, rows: DestinationRow[]): Promise<DestinationView[]> {
  const health = await readDestinationHealth(ctx.db, orgId, rows.map((r) => r.id), ctx.clock.now());
  const inbound = await readInboundViews(ctx, orgId, rows.filter((r) => hasInboundAddress(r.kind)).map((r) => r.id));
  const marks = await recipientMarks(ctx.db, orgId, rows.filter((r) => r.kind === 'email').map((r) => r.id));
  return rows.map((r) => ({
    ...toDestinationView(r),
    health: toHealthView(r.enabled, health.get(r.id)),
    inbound: inbound.get(r.id) ?? null,
    slackRequestUrl: r.kind === 'slack' ? slackRequestUrl(ctx.config.baseUrl, r.id) : null,
    refusedRecipients: r.kind === 'email' ? (marks.get(r.id) ?? []) : null,
  }));
}

export async function loadDestination(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<DestinationRow> {
  const { rows } = await q.query<DestinationRow>(
    `SELECT ${DESTINATION_COLUMNS} FROM destinations WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
    [orgId, id],
  );
  if (!rows[0]) throw notFoundError('destination');
  return rows[0];
}

const sealedCredentials = (ctx: AppContext, c: Record<string, string> | null | undefined) =>
  c && Object.keys(c).length > 0 ? ctx.sealer.sealJson(c) : null;

/** Creates a destination; a webhook's signing secret is returned this once. */
export async function createDestination(ctx: AppContext, orgId: string, b: DestinationInput): Promise<DestinationView & { signingSecret?: string }> {
  await requireOrg(ctx.db, orgId);
  const credentials = b.credentials ?? null;
  const { url, config, allowDomain } = await validateDestination(
    ctx,
    b.kind,
    { url: b.url ?? null, config: b.config ?? {}, credentials, signatureScheme: b.signatureScheme },
    { orgId, before: null, credentialsGiven: true, storedCredentialKeys: [], customInstanceDomain: b.customInstanceDomain },
  );
  const now = ctx.clock.now();
  const id = newId('dst', now);
  auditTarget(id);
  const signingSecret = b.kind === 'webhook' ? generateSigningSecret() : undefined;
  const row = await ctx.db.tx(async (q) => {
    await requireOrg(q, orgId, { lock: true }); // serializes concurrent creates of one org for the limit
    const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM destinations WHERE org_id = $1 AND deleted_at IS NULL', [orgId]);
    if (rows[0]!.n >= MAX_DESTINATIONS_PER_ORG) {
      throw limitError(`an organization may have at most ${MAX_DESTINATIONS_PER_ORG} destinations`);
    }
    const ins = await q.query<DestinationRow>(
      `INSERT INTO destinations (id, org_id, name, kind, url, config, credentials_sealed, signing_secret_sealed, filter, enabled, created_at, updated_at, signature_scheme, rate_limit_per_second)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, $13) RETURNING ${DESTINATION_COLUMNS}`,
      [
        id,
        orgId,
        b.name,
        b.kind,
        url,
        JSON.stringify(config),
        sealedCredentials(ctx, credentials),
        signingSecret ? ctx.sealer.seal(signingSecret) : null,
        b.filter ? JSON.stringify(b.filter) : null,
        b.enabled ?? true,
        now,
        b.signatureScheme ?? 'service',
        b.rateLimitPerSecond ?? null,
      ],
    );
    if (b.enabled === false) await recordDestinationEnabled(q, orgId, id, false, now);
    if (allowDomain) await recordInstanceDomain(q, orgId, allowDomain, now);
    return ins.rows[0]!;
  });
  const [view] = await withHealth(ctx, orgId, [row]);
  return { ...view!, ...(signingSecret ? { signingSecret } : {}) };
}

export async function listDestinations(ctx: AppContext, orgId: string): Promise<DestinationView[]> {
  await requireOrg(ctx.db, orgId);
  const { rows } = await ctx.db.query<DestinationRow>(
    `SELECT ${DESTINATION_COLUMNS} FROM destinations WHERE org_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
    [orgId],
  );
  return withHealth(ctx, orgId, rows);
}

export async function getDestination(ctx: AppContext, orgId: string, id: string): Promise<DestinationView> {
  const [view] = await withHealth(ctx, orgId, [await loadDestination(ctx.db, orgId, id)]);
  return view!;
}

/** How many times a change is validated again when the destination changed during validation. */
const UPDATE_ROUNDS = 3;

/**
 * Changes the given fields; url, config and credentials are validated again as a whole. The
 * row is read and written in one transaction under FOR UPDATE, so two concurrent changes never
 * overwrite each other with a stale read. Validation may resolve names (slow), so it runs
 * before that transaction, on a read of the fields it checks; if another change altered them
 * meanwhile, the new state is validated again.
 */
export async function updateDestination(ctx: AppContext, orgId: string, id: string, b: DestinationChange): Promise<DestinationView> {
  const revalidate =
    b.url !== undefined || b.config !== undefined || b.credentials !== undefined || b.signatureScheme !== undefined || b.customInstanceDomain !== undefined;
  for (let round = 1; ; round++) {
    const checked = await loadDestination(ctx.db, orgId, id);
    // Validation normalizes the url and config it accepts; those are what is stored.
    const merged = mergeChange(ctx, checked, b);
    const validated = revalidate
      ? await validateDestination(ctx, checked.kind, { ...merged, signatureScheme: b.signatureScheme }, {
          orgId,
          before: { url: checked.url, config: checked.config },
          credentialsGiven: b.credentials !== undefined,
          storedCredentialKeys: b.credentials !== undefined ? [] : Object.keys(merged.credentials ?? {}),
          customInstanceDomain: b.customInstanceDomain,
        })
      : null;
    const now = ctx.clock.now();
    const row = await ctx.db.tx(async (q) => {
      const current = await loadDestination(q, orgId, id, true);
      if (revalidate && !sameValidatedFields(current, checked)) return null;
      const url = validated ? validated.url : current.url;
      const config = validated ? validated.config : current.config;
      const { rows } = await q.query<DestinationRow>(
        `UPDATE destinations SET
           name = COALESCE($3, name),
           url = $4,
           config = $5,
           credentials_sealed = CASE WHEN $6::boolean THEN $7 ELSE credentials_sealed END,
           filter = CASE WHEN $8::boolean THEN $9::jsonb ELSE filter END,
           enabled = COALESCE($10, enabled),
           updated_at = $11,
           signature_scheme = COALESCE($12, signature_scheme),
           rate_limit_per_second = CASE WHEN $13::boolean THEN $14::int ELSE rate_limit_per_second END
         WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING ${DESTINATION_COLUMNS}`,
        [
          orgId,
          id,
          b.name ?? null,
          url,
          JSON.stringify(config),
          b.credentials !== undefined,
          sealedCredentials(ctx, b.credentials),
          b.filter !== undefined,
          b.filter ? JSON.stringify(b.filter) : null,
          b.enabled ?? null,
          now,
          b.signatureScheme ?? null,
          b.rateLimitPerSecond !== undefined,
          b.rateLimitPerSecond ?? null,
        ],
      );
      if (!rows[0]) throw notFoundError('destination');
      // Disabling records when and why; enabling again resets the health counters.
      if (b.enabled !== undefined && b.enabled !== current.enabled) await recordDestinationEnabled(q, orgId, id, b.enabled, now);
      if (validated?.allowDomain) await recordInstanceDomain(q, orgId, validated.allowDomain, now);
      return rows[0];
    });
    if (row) {
      const [view] = await withHealth(ctx, orgId, [row]);
      return view!;
    }
    if (round >= UPDATE_ROUNDS) throw conflictError('the destination kept changing while this change was validated; try again');
  }
}

/** The url, config and credentials a change leaves on `current` (what validation checks). */
function mergeChange(
  ctx: AppContext,
  current: DestinationRow,
  b: DestinationChange,
): { url: string | null; config: Record<string, unknown>; credentials: Record<string, string> | null } {
  return {
    // A chat kind's `url` column holds the masked webhook URL, which is never validated again.
    url: b.url !== undefined ? b.url : isChatKind(current.kind) ? null : current.url,
    config: b.config ?? current.config,
    credentials:
      b.credentials !== undefined
        ? b.credentials
        : current.credentials_sealed
          ? ctx.sealer.openJson<Record<string, string>>(current.credentials_sealed)
          : null,
  };
}

/** The fields validation looked at are unchanged. */
function sameValidatedFields(a: DestinationRow, b: DestinationRow): boolean {
  return (
    a.url === b.url &&
    JSON.stringify(a.config) === JSON.stringify(b.config) &&
    a.credentials_sealed === b.credentials_sealed &&
    a.signature_scheme === b.signature_scheme
  );
}

/** Soft-deletes the destination; its unsent deliveries are abandoned in the same transaction. */
export async function deleteDestination(ctx: AppContext, orgId: string, id: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.tx(async (q) => {
    const { rowCount } = await q.query(
      'UPDATE destinations SET deleted_at = $3, enabled = false, updated_at = $3 WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL',
      [orgId, id, now],
    );
    if (rowCount === 0) throw notFoundError('destination');
    await abandonDestinationWork(q, orgId, id, now);
  });
}

/**
 * A new signing secret for a webhook, returned this once — and only once it is stored: a
 * destination deleted meanwhile answers 404, never a secret that no delivery will use.
 */
export async function rotateSigningSecret(ctx: AppContext, orgId: string, id: string): Promise<{ signingSecret: string }> {
  const signingSecret = generateSigningSecret();
  await ctx.db.tx(async (q) => {
    const current = await loadDestination(q, orgId, id, true);
    if (current.kind !== 'webhook') throw invalidInput('only webhook destinations have a signing secret');
    const { rowCount } = await q.query(
      'UPDATE destinations SET signing_secret_sealed = $3, updated_at = $4 WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL',
      [orgId, id, ctx.sealer.seal(signingSecret), ctx.clock.now()],
    );
    if (rowCount !== 1) throw notFoundError('destination');
  });
  return { signingSecret };
}

export async function testDestination(ctx: AppContext, orgId: string, id: string): Promise<TestActionResult> {
  return runTestAction(ctx, await loadDestination(ctx.db, orgId, id));
}

/**
 * Sends a destination's failed, abandoned and skipped deliveries of a time window again (same
 * ids and bodies, fresh attempt budgets, original event order). A disabled destination is
 * refused (409): enable it first, so recovered deliveries are not skipped again or stuck.
 */
export async function recoverDeliveries(
  ctx: AppContext,
  orgId: string,
  id: string,
  input: { since: string; until?: string },
): Promise<{ requeued: number }> {
  const since = parseInstant(input.since, 'since');
  const until = input.until === undefined ? null : parseInstant(input.until, 'until');
  if (until && until.getTime() <= since.getTime()) throw invalidInput('body: "until" must be later than "since"');
  const d = await loadDestination(ctx.db, orgId, id);
  if (!d.enabled) throw conflictError('the destination is disabled; enable it, then recover its deliveries');
  const requeued = await ctx.db.tx((q) => requeueForRecovery(q, orgId, id, d.kind !== 'webhook', { since, until }, ctx.clock.now()));
  return { requeued };
}

/** ISO 8601 date-time with a time zone (Z or ±hh:mm) inside the date rule (src/date-rule.ts). */
function parseInstant(text: string, field: string): Date {
  const d = parseDateRuleInstant(text);
  if (!d) {
    throw invalidInput(`body: "${field}" must be an ISO 8601 date-time with a time zone, like 2026-01-31T12:00:00Z, ${DATE_RANGE_TEXT}`);
  }
  return d;
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError, forbidden } from '../http/errors.js';
import { hashToken, parseApiKey, safeEqual } from '../secrets/tokens.js';
import { preparedQuery } from './prepared.js';
import type { PublicApiRateLimiter } from './rate-limit.js';

export const SCOPES = ['ReadAlerts', 'ReadMetrics', 'ReadCapacities', 'ReadWorkspaces', 'ReadCosts', 'ReadSla'] as const;
export type Scope = (typeof SCOPES)[number];

/** The caller, once authenticated: every query is scoped to `orgId`. */
export interface ApiCaller {
  keyId: string;
  orgId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    apiCaller: ApiCaller | null;
  }
  interface FastifyContextConfig {
    /** Scope a public-API route requires (SPEC §5.2). */
    scope?: Scope;
  }
}

/** One text for missing, invalid, expired and revoked keys (SPEC §5.2 rule 4). */
export const UNAUTHORIZED_MESSAGE = 'missing or invalid API key';
const TOO_MANY_INVALID = 'too many attempts with an invalid API key; retry later';
const unauthorized = () => new ApiError(401, 'unauthorized', UNAUTHORIZED_MESSAGE);

export function rateLimited(retryAfter: number, message: string): ApiError {
  return new ApiError(429, 'rate_limited', message, { 'retry-after': String(retryAfter) });
}

/** `X-Api-Key: <key>` or `Authorization: ApiKey <key>`; undefined when neither is sent. */
export function extractKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header.trim();
  const auth = request.headers.authorization;
  if (typeof auth === 'string' && auth !== '') {
    const m = /^ApiKey\s+(\S+)\s*$/i.exec(auth);
    // Any other Authorization scheme is an attempt with an invalid key, not a missing one.
    return m ? m[1]! : auth;
  }
  return undefined;
}

interface KeyRow {
  id: string;
  org_id: string;
  key_hash: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  suspended: boolean;
}

// Compared against when the prefix is unknown, so a miss costs the same hashing and comparison.
const DUMMY_HASH = hashToken('vgk_00000000_not-a-key-not-a-key-not-a-key-00');
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Installs authentication, the invalid-key limit per address, the per-key limit and the scope
 * check as one onRequest hook on the (encapsulated) public routes — no route repeats any of it.
 */
export function installPublicAuth(app: FastifyInstance, ctx: AppContext, limiter: PublicApiRateLimiter): void {
  app.decorateRequest('apiCaller', null);
  app.addHook('onRequest', async (request, reply) => {
    const nowMs = ctx.clock.now().getTime();
    const address = request.ip;
    // A blocked address is refused before its key is looked at, so the limiter reveals nothing
    // about which keys are valid.
    const block = await limiter.addressBlocked(address, nowMs);
    if (block.blocked) throw rateLimited(block.retryAfter, TOO_MANY_INVALID);

    const key = extractKey(request);
    const row = key === undefined ? null : await lookUp(ctx, key, nowMs);
    if (!row) {
      if (key !== undefined) {
        const after = await limiter.recordInvalid(address, nowMs);
        if (after.blocked) throw rateLimited(after.retryAfter, TOO_MANY_INVALID);
      }
      throw unauthorized();
    }

    const decision = await limiter.hitKey(row.id, nowMs);
    reply.header('ratelimit-limit', String(decision.limit));
    reply.header('ratelimit-remaining', String(decision.remaining));
    reply.header('ratelimit-reset', String(decision.resetSeconds));
    if (decision.exceeded) throw rateLimited(decision.resetSeconds, `rate limit of ${decision.limit} requests per minute exceeded`);

    if (row.suspended) throw forbidden('the organization is suspended');
    const scope = request.routeOptions.config.scope;
    if (!scope || !row.scopes.includes(scope)) throw forbidden(`the API key lacks the ${scope ?? 'required'} scope`);

    request.apiCaller = { keyId: row.id, orgId: row.org_id };
    await touch(ctx, row, nowMs);
  });
}

async function lookUp(ctx: AppContext, key: string, nowMs: number): Promise<KeyRow | null> {
  const parsed = key.length <= 200 ? parseApiKey(key) : null;
  const hash = hashToken(key.slice(0, 200));
  if (!parsed) {
    safeEqual(hash, DUMMY_HASH);
    return null;
  }
  const { rows } = await preparedQuery<KeyRow>(ctx.db, 
    `SELECT k.id, k.org_id, k.key_hash, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, o.suspended
       FROM api_keys k JOIN orgs o ON o.id = k.org_id
      WHERE k.prefix = $1`,
    [parsed.prefix],
  );
  const row = rows[0];
  const matches = safeEqual(hash, row ? row.key_hash : DUMMY_HASH);
  if (!row || !matches) return null;
  if (row.revoked_at !== null) return null;
  if (row.expires_at !== null && row.expires_at.getTime() <= nowMs) return null;
  return row;
}

/** last_used_at at minute granularity: at most one write per key per minute. */
async function touch(ctx: AppContext, row: KeyRow, nowMs: number): Promise<void> {
  if (row.last_used_at && nowMs - row.last_used_at.getTime() < LAST_USED_GRANULARITY_MS) return;
  await ctx.db.query(
    `UPDATE api_keys SET last_used_at = $2
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
    [row.id, new Date(nowMs)],
  );
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError, forbidden } from '../http/errors.js';
import { hashToken, parseApiKey, safeEqual } from '../secrets/tokens.js';
import type { ApiKeyCache, CachedKey } from './key-cache.js';
import type { KeyRecheck, KeyState } from './page-statement.js';
import { preparedQuery } from '../db/index.js';
import type { PublicApiRateLimiter } from '../rate-limits/limiters.js';

export const SCOPES = ['ReadAlerts', 'ReadMetrics', 'ReadCapacities', 'ReadWorkspaces', 'ReadCosts', 'ReadSla'] as const;
export type Scope = (typeof SCOPES)[number];

/** The caller, once authenticated: every query is scoped to `orgId`. */
export interface ApiCaller {
  keyId: string;
  orgId: string;
  /**
   * Runs the route's statement and checks its verdict on the key. When the key came from the
   * cache, `run` gets a `KeyRecheck` to put in its statement (page-statement.ts) and must return
   * the state the statement found; a key that no longer holds is answered exactly as a fresh
   * lookup would have answered it (401, or 403 for a suspended organization). A route can only
   * reach the re-check through here, so none can forget to look at the verdict.
   */
  checked<T extends { keyState: KeyState }>(run: (recheck: KeyRecheck | null) => Promise<T>): Promise<T>;
}

declare module 'fastify' {
  interface FastifyRequest {
    apiCaller: ApiCaller | null;
  }
  interface FastifyContextConfig {
    /** Scope a public-API route requires; a key without it gets 403. */
    scope?: Scope;
    /**
     * The route's one statement re-checks the key through `apiCaller.checked`, so the hook may
     * take the key from the key cache instead of looking it up (one round trip per request).
     */
    recheckKey?: boolean;
  }
}

/** One text for missing, invalid, expired and revoked keys: a caller must not learn which case it hit. */
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

/** A key as the hook uses it, from the database or from the cache. */
type Key = Omit<CachedKey, 'cachedAtMs'> & { suspended: boolean };

const RATE_LIMIT_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'] as const;

// Compared against when the prefix is unknown, so a miss costs the same hashing and comparison.
const DUMMY_HASH = hashToken('vgk_00000000_not-a-key-not-a-key-not-a-key-00');
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Installs authentication, the invalid-key limit per address, the per-key limit and the scope
 * check as one onRequest hook on the (encapsulated) public routes — no route repeats any of it.
 * With a `cache`, routes marked `recheckKey` take a key that was valid at its last lookup from
 * the cache and re-check it in their own statement (see ApiCaller.checked).
 */
export function installPublicAuth(
  app: FastifyInstance,
  ctx: AppContext,
  limiter: PublicApiRateLimiter,
  cache: ApiKeyCache | null,
): void {
  app.decorateRequest('apiCaller', null);
  app.addHook('onRequest', async (request, reply) => {
    const nowMs = ctx.clock.now().getTime();
    const address = request.ip;
    // A blocked address is refused before its key is looked at, so the limiter reveals nothing
    // about which keys are valid.
    const block = await limiter.addressBlocked(address, nowMs);
    if (block.blocked) throw rateLimited(block.retryAfter, TOO_MANY_INVALID);

    const refuseInvalid = async (): Promise<never> => {
      const after = await limiter.recordInvalid(address, nowMs);
      if (after.blocked) throw rateLimited(after.retryAfter, TOO_MANY_INVALID);
      throw unauthorized();
    };

    const presented = extractKey(request);
    if (presented === undefined) throw unauthorized();
    const hash = hashToken(presented.slice(0, 200));
    const useCache = cache !== null && request.routeOptions.config.recheckKey === true;
    const cached = useCache ? cache.get(hash, nowMs) : undefined;
    const key: Key | null = cached ? { ...cached, suspended: false } : await lookUp(ctx, presented, hash, nowMs);
    if (!key) return refuseInvalid();

    const decision = await limiter.hitKey(key.id, nowMs);
    reply.header('ratelimit-limit', String(decision.limit));
    reply.header('ratelimit-remaining', String(decision.remaining));
    reply.header('ratelimit-reset', String(decision.resetSeconds));
    if (decision.exceeded) throw rateLimited(decision.resetSeconds, `rate limit of ${decision.limit} requests per minute exceeded`);

    if (key.suspended) throw forbidden('the organization is suspended');
    const scope = request.routeOptions.config.scope;
    if (!scope || !key.scopes.includes(scope)) throw forbidden(`the API key lacks the ${scope ?? 'required'} scope`);

    const recheck: KeyRecheck | null = cached ? { keyId: key.id, at: new Date(nowMs) } : null;
    request.apiCaller = {
      keyId: key.id,
      orgId: key.orgId,
      async checked(run) {
        const result = await run(recheck);
        if (result.keyState === 'ok') return result;
        cache?.dropKey(key.id);
        if (result.keyState === 'suspended') throw forbidden('the organization is suspended');
        // The same answer as for any invalid key: no RateLimit headers, counted against the address.
        for (const h of RATE_LIMIT_HEADERS) reply.removeHeader(h);
        return refuseInvalid();
      },
    };
    await touch(ctx, key, nowMs);
    if (cached) cached.lastUsedAtMs = key.lastUsedAtMs;
    else cache?.set(hash, key);
  });
}

async function lookUp(ctx: AppContext, key: string, hash: string, nowMs: number): Promise<Key | null> {
  const parsed = key.length <= 200 ? parseApiKey(key) : null;
  if (!parsed) {
    safeEqual(hash, DUMMY_HASH);
    return null;
  }
  const { rows } = await preparedQuery<KeyRow>(
    ctx.db,
    'api_key_lookup',
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
  return {
    id: row.id,
    orgId: row.org_id,
    scopes: row.scopes,
    expiresAtMs: row.expires_at?.getTime() ?? null,
    lastUsedAtMs: row.last_used_at?.getTime() ?? null,
    suspended: row.suspended,
  };
}

/** last_used_at at minute granularity: at most one write per key per minute. */
async function touch(ctx: AppContext, key: Key, nowMs: number): Promise<void> {
  if (key.lastUsedAtMs !== null && nowMs - key.lastUsedAtMs < LAST_USED_GRANULARITY_MS) return;
  await ctx.db.query(
    `UPDATE api_keys SET last_used_at = $2
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
    [key.id, new Date(nowMs)],
  );
  key.lastUsedAtMs = nowMs;
}

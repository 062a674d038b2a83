import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { newId } from '../ids.js';
import { invalidInput, notFoundError } from '../errors.js';
import { generateApiKey } from '../secrets/tokens.js';
import { requireOrg } from './orgs.js';
import { auditTarget } from '../access/audit-context.js';

export const API_SCOPES = ['ReadAlerts', 'ReadMetrics', 'ReadCapacities', 'ReadWorkspaces', 'ReadCosts', 'ReadSla'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export interface ApiKeyInfo {
  id: string;
  name: string;
  scopes: string[];
  expiresAt: string | null;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  expires_at: Date | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

function toInfo(r: KeyRow): ApiKeyInfo {
  return {
    id: r.id,
    name: r.name,
    scopes: r.scopes,
    expiresAt: r.expires_at?.toISOString() ?? null,
    prefix: r.prefix,
    createdAt: r.created_at.toISOString(),
    lastUsedAt: r.last_used_at?.toISOString() ?? null,
    revokedAt: r.revoked_at?.toISOString() ?? null,
  };
}

/**
 * Creates a key and returns it in clear exactly once; only its SHA-256 and lookup prefix are
 * stored, so a leaked table reveals no usable key.
 */
export async function createApiKey(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  orgId: string,
  input: { name: string; scopes: readonly string[]; expiresAt?: Date | null },
): Promise<ApiKeyInfo & { key: string }> {
  const now = ctx.clock.now();
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
    throw invalidInput('expiresAt must be in the future');
  }
  return ctx.db.tx(async (q) => {
    await requireOrg(q, orgId);
    const generated = generateApiKey();
    const { rows } = await q.query<KeyRow>(
      `INSERT INTO api_keys (id, org_id, name, prefix, key_hash, scopes, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       RETURNING id, name, prefix, scopes, expires_at, created_at, last_used_at, revoked_at`,
      [newId('key', now), orgId, input.name, generated.prefix, generated.hash, [...new Set(input.scopes)], input.expiresAt ?? null, now],
    );
    auditTarget(rows[0]!.id);
    return { ...toInfo(rows[0]!), key: generated.key };
  });
}

export async function listApiKeys(q: Queryable, orgId: string): Promise<ApiKeyInfo[]> {
  await requireOrg(q, orgId);
  const { rows } = await q.query<KeyRow>(
    `SELECT id, name, prefix, scopes, expires_at, created_at, last_used_at, revoked_at
     FROM api_keys WHERE org_id = $1 ORDER BY created_at DESC, id DESC`,
    [orgId],
  );
  return rows.map(toInfo);
}

/** Revokes at once; revoking twice keeps the first revocation time. */
export async function revokeApiKey(ctx: Pick<AppContext, 'db' | 'clock'>, orgId: string, keyId: string): Promise<void> {
  const now = ctx.clock.now();
  await requireOrg(ctx.db, orgId);
  const { rowCount } = await ctx.db.query(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE id = $1 AND org_id = $2`,
    [keyId, orgId, now],
  );
  if (rowCount === 0) throw notFoundError('api key');
}

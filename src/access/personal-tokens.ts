import type { Queryable } from '../db/index.js';
import { invalidInput, notFoundError } from '../errors.js';
import { newId, randomBase62 } from '../ids.js';
import { hashToken, safeEqual } from '../secrets/tokens.js';
import { atLeast, type Role } from './roles.js';
import { auditTarget } from './audit-context.js';

/** vpt_ + 8-character lookup prefix + _ + 40 random base62 characters; only the hash is stored. */
const PERSONAL_TOKEN = /^vpt_([0-9A-Za-z]{8})_([0-9A-Za-z]{32,})$/;
/** The longest a personal token may live. */
export const MAX_TOKEN_DAYS = 366;

export interface PersonalToken {
  id: string;
  orgId: string;
  name: string;
  role: Role;
  prefix: string;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

interface Row {
  id: string;
  org_id: string;
  name: string;
  role: Role;
  prefix: string;
  created_at: Date;
  expires_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const toToken = (r: Row): PersonalToken => ({
  id: r.id,
  orgId: r.org_id,
  name: r.name,
  role: r.role,
  prefix: r.prefix,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export function looksLikePersonalToken(token: string): boolean {
  return token.startsWith('vpt_');
}

/**
 * A person creates a token for one organization with a role no higher than the one they hold
 * there; the clear token is returned this once.
 */
export async function createPersonalToken(
  db: Queryable,
  input: { personId: string; orgId: string; heldRole: Role | null; name: string; role: Role; expiresAt: Date; now: Date },
): Promise<PersonalToken & { token: string }> {
  if (!atLeast(input.heldRole, input.role)) throw invalidInput(`role must be no higher than your own role in the organization (${input.heldRole ?? 'none'})`);
  if (input.expiresAt.getTime() <= input.now.getTime()) throw invalidInput('expiresAt must be in the future');
  if (input.expiresAt.getTime() > input.now.getTime() + MAX_TOKEN_DAYS * 86_400_000) throw invalidInput(`expiresAt must be within ${MAX_TOKEN_DAYS} days`);
  const id = newId('pat', input.now);
  auditTarget(id);
  const prefix = randomBase62(8);
  const token = `vpt_${prefix}_${randomBase62(40)}`;
  const { rows } = await db.query<Row>(
    `INSERT INTO personal_tokens (id, person_id, org_id, name, role, prefix, token_hash, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [id, input.personId, input.orgId, input.name, input.role, prefix, hashToken(token), input.now, input.expiresAt],
  );
  return { ...toToken(rows[0]!), token };
}

export async function listPersonalTokens(db: Queryable, personId: string): Promise<PersonalToken[]> {
  const { rows } = await db.query<Row>('SELECT * FROM personal_tokens WHERE person_id = $1 ORDER BY created_at DESC, id DESC', [personId]);
  return rows.map(toToken);
}

/** Revokes one of the person's tokens of this organization (a token of another organization is not found here). */
export async function revokePersonalToken(db: Queryable, input: { personId: string; orgId: string; tokenId: string; now: Date }): Promise<void> {
  const { rowCount } = await db.query(
    'UPDATE personal_tokens SET revoked_at = coalesce(revoked_at, $4) WHERE id = $1 AND person_id = $2 AND org_id = $3',
    [input.tokenId, input.personId, input.orgId, input.now],
  );
  if (rowCount === 0) throw notFoundError('token');
}

/** The live token's holder and limits, or null (unknown, wrong, revoked or expired: one answer). Records the use. */
export async function authenticatePersonalToken(
  db: Queryable,
  token: string,
  now: Date,
): Promise<{ tokenId: string; personId: string; email: string; orgId: string; role: Role } | null> {
  const m = PERSONAL_TOKEN.exec(token);
  if (!m) return null;
  const { rows } = await db.query<{ id: string; person_id: string; email: string; org_id: string; role: Role; token_hash: string }>(
    `SELECT t.id, t.person_id, p.email, t.org_id, t.role, t.token_hash FROM personal_tokens t JOIN people p ON p.id = t.person_id
     WHERE t.prefix = $1 AND t.revoked_at IS NULL AND t.expires_at > $2`,
    [m[1], now],
  );
  const row = rows[0];
  if (!row || !safeEqual(hashToken(token), row.token_hash)) return null;
  // Last use at minute precision: one write per token per minute at most.
  await db.query(
    `UPDATE personal_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
    [row.id, now],
  );
  return { tokenId: row.id, personId: row.person_id, email: row.email, orgId: row.org_id, role: row.role };
}

import type { Database, Queryable } from '../db/index.js';
import { conflictError, notFoundError } from '../errors.js';
import { newId } from '../ids.js';
import { validEmail } from './email.js';
import { noteAudit } from './audit-context.js';
import { higherOf, isRole, type Role } from './roles.js';
import type { Principal } from './principal.js';

export interface Person {
  id: string;
  email: string;
  name: string | null;
}

/** Where a member's role comes from: a membership an owner gave, or the identity provider's claim (VIGIA_OIDC_ROLE_MAP). */
export type MemberSource = 'membership' | 'identity-provider';

export interface Member extends Person {
  role: Role;
  since: Date;
  source: MemberSource;
}

/** The address trimmed, or 400 naming the field (rules in ./email.ts). */
export function normalizeEmail(email: string): string {
  return validEmail(email, 'email');
}

/** The person with this e-mail address, created when unknown. */
export async function ensurePerson(db: Queryable, email: string, name: string | null, now: Date): Promise<Person> {
  const e = normalizeEmail(email);
  await db.query(
    `INSERT INTO people (id, email, name, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT ((lower(email))) DO NOTHING`,
    [newId('per', now), e, name, now],
  );
  const { rows } = await db.query<Person>('SELECT id, email, name FROM people WHERE lower(email) = lower($1)', [e]);
  return rows[0]!;
}

/** The role the person holds in the organization through a membership (null: none). */
export async function membershipRole(db: Queryable, orgId: string, personId: string): Promise<Role | null> {
  const { rows } = await db.query<{ role: Role }>('SELECT role FROM memberships WHERE org_id = $1 AND person_id = $2', [orgId, personId]);
  return rows[0]?.role ?? null;
}

/**
 * The role a person-principal holds in an organization right now: membership or the identity
 * provider's grant, whichever is higher; a personal token caps it at the token's role and
 * organization. Read on every request, so a revoked membership takes effect at once.
 */
export async function roleIn(db: Queryable, p: Extract<Principal, { kind: 'person' }>, orgId: string): Promise<Role | null> {
  if (p.token && p.token.orgId !== orgId) return null;
  const fromIdp = p.idpRoles.filter((r) => r.orgId === orgId).reduce<Role | null>((acc, r) => higherOf(acc, r.role), null);
  const held = higherOf(await membershipRole(db, orgId, p.personId), fromIdp);
  if (p.token) {
    if (held === null) return null;
    return p.token.role === 'owner' ? held : p.token.role === 'operator' ? (held === 'viewer' ? 'viewer' : 'operator') : 'viewer';
  }
  return held;
}

/** Organizations where the person holds any role (for the organization list). */
export async function orgIdsOf(db: Queryable, p: Extract<Principal, { kind: 'person' }>): Promise<string[]> {
  const { rows } = await db.query<{ org_id: string }>('SELECT org_id FROM memberships WHERE person_id = $1', [p.personId]);
  const ids = new Set([...rows.map((r) => r.org_id), ...p.idpRoles.map((r) => r.orgId)]);
  if (p.token) return ids.has(p.token.orgId) ? [p.token.orgId] : [];
  return [...ids];
}

/**
 * The organization's members: memberships, then the people who hold a role here only through the
 * identity provider's claim in a live console session (that is where such a role lives: it comes
 * with each sign-in and ends with the session or when the provider stops sending the claim).
 */
export async function listMembers(db: Queryable, orgId: string, now: Date): Promise<Member[]> {
  const { rows } = await db.query<{ id: string; email: string; name: string | null; role: Role; created_at: Date }>(
    `SELECT p.id, p.email, p.name, m.role, m.created_at FROM memberships m JOIN people p ON p.id = m.person_id
     WHERE m.org_id = $1 ORDER BY lower(p.email)`,
    [orgId],
  );
  const members: Member[] = rows.map((r) => ({ id: r.id, email: r.email, name: r.name, role: r.role, since: r.created_at, source: 'membership' }));
  const { rows: granted } = await db.query<{ id: string; email: string; name: string | null; role: string; created_at: Date }>(
    `SELECT p.id, p.email, p.name, g->>'role' AS role, s.created_at
     FROM sessions s JOIN people p ON p.id = s.person_id CROSS JOIN LATERAL jsonb_array_elements(s.idp_roles) AS g
     WHERE g->>'orgId' = $1 AND s.expires_at > $2 AND s.idle_expires_at > $2
       AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = $1 AND m.person_id = p.id)`,
    [orgId, now],
  );
  const byPerson = new Map<string, Member>();
  for (const g of granted) {
    if (!isRole(g.role)) continue;
    const seen = byPerson.get(g.id);
    const since = seen && seen.since < g.created_at ? seen.since : g.created_at;
    byPerson.set(g.id, { id: g.id, email: g.email, name: g.name, role: higherOf(seen?.role ?? null, g.role)!, since, source: 'identity-provider' });
  }
  return [...members, ...byPerson.values()].sort((a, b) => a.email.toLowerCase().localeCompare(b.email.toLowerCase()));
}

/** Adds the person (by e-mail) to the organization, or changes their role there. */
export async function putMember(db: Queryable, orgId: string, email: string, role: Role, now: Date): Promise<Member> {
  const person = await ensurePerson(db, email, null, now);
  const { rows } = await db.query<{ created_at: Date }>(
    `INSERT INTO memberships (org_id, person_id, role, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (org_id, person_id) DO UPDATE SET role = EXCLUDED.role
     RETURNING created_at`,
    [orgId, person.id, role, now],
  );
  await capTokensToRole(db, orgId, person.id, role, now);
  return { ...person, role, since: rows[0]!.created_at, source: 'membership' };
}

/** Side-effect revocations are recorded with the change that caused them (docs/access.md). */
function noteRevokedTokens(orgId: string, personId: string, revoked: Array<{ id: string }>, reason: string): void {
  if (revoked.length === 0) return;
  noteAudit({ action: 'tokens.revoke', orgIds: [orgId], target: personId, changes: { revoked: revoked.map((r) => r.id), reason } });
}

/** A lowered role revokes the person's tokens of that organization that ask for more. */
async function capTokensToRole(db: Queryable, orgId: string, personId: string, role: Role, now: Date): Promise<void> {
  const above = role === 'viewer' ? ['operator', 'owner'] : role === 'operator' ? ['owner'] : [];
  if (above.length === 0) return;
  const { rows } = await db.query<{ id: string }>(
    `UPDATE personal_tokens SET revoked_at = $4
     WHERE org_id = $1 AND person_id = $2 AND role = ANY($3::text[]) AND revoked_at IS NULL RETURNING id`,
    [orgId, personId, above, now],
  );
  noteRevokedTokens(orgId, personId, rows, `role lowered to ${role}`);
}

/**
 * Ends the person's access to this organization, and only to it: the membership, the role their
 * live sessions carry here from the identity provider, and their personal tokens of this
 * organization. Their sessions stay open for the organizations they still belong to (roles are
 * read on every request, so nothing here is held longer); a session left with no role anywhere
 * ends. 404 when they held nothing here.
 * A role from the identity provider comes back at their next sign-in while the provider still
 * sends the claim: it ends for good there (docs/access.md).
 */
export async function removeMember(db: Queryable, orgId: string, personId: string, now: Date): Promise<void> {
  const membership = await db.query('DELETE FROM memberships WHERE org_id = $1 AND person_id = $2', [orgId, personId]);
  const granted = await db.query(
    `UPDATE sessions SET idp_roles = (SELECT coalesce(jsonb_agg(g), '[]'::jsonb) FROM jsonb_array_elements(idp_roles) AS g WHERE g->>'orgId' <> $2)
     WHERE person_id = $1 AND idp_roles @> jsonb_build_array(jsonb_build_object('orgId', $2::text))`,
    [personId, orgId],
  );
  if (membership.rowCount === 0 && granted.rowCount === 0) throw notFoundError('member');
  const { rows: revoked } = await db.query<{ id: string }>(
    'UPDATE personal_tokens SET revoked_at = $3 WHERE org_id = $1 AND person_id = $2 AND revoked_at IS NULL RETURNING id',
    [orgId, personId, now],
  );
  noteRevokedTokens(orgId, personId, revoked, 'membership removed');
  // A session that now grants nothing anywhere ends (the person signs in again if they are added back).
  const { rowCount: ended } = await db.query(
    `DELETE FROM sessions s WHERE s.person_id = $1 AND s.idp_roles = '[]'::jsonb
       AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = $1)`,
    [personId],
  );
  if ((ended ?? 0) > 0) noteAudit({ action: 'sessions.end', orgIds: [orgId], target: personId, changes: { sessions: ended, reason: 'membership removed' } });
}

/**
 * An organization keeps at least one owner unless the instance administrator acts. Call it in
 * the transaction of the change: it locks the organization's row until that commits, so two
 * owners demoting (or removing) each other at once are judged one after the other.
 */
export async function assertNotLastOwner(db: Queryable, orgId: string, personId: string): Promise<void> {
  await db.query('SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE', [orgId]);
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM memberships WHERE org_id = $1 AND role = 'owner' AND person_id <> $2`,
    [orgId, personId],
  );
  const { rows: me } = await db.query<{ role: string }>('SELECT role FROM memberships WHERE org_id = $1 AND person_id = $2', [orgId, personId]);
  if (me[0]?.role === 'owner' && rows[0]!.n === 0) throw conflictError('the organization would have no owner left');
}

/** Every organization where the caller holds a role, with the role (membership or identity provider, the higher). */
export async function rolesOf(db: Queryable, p: Extract<Principal, { kind: 'person' }>): Promise<Array<{ orgId: string; role: Role }>> {
  const { rows } = await db.query<{ org_id: string; role: Role }>('SELECT org_id, role FROM memberships WHERE person_id = $1', [p.personId]);
  const byOrg = new Map<string, Role>();
  for (const r of [...rows.map((x) => ({ orgId: x.org_id, role: x.role })), ...p.idpRoles]) byOrg.set(r.orgId, higherOf(byOrg.get(r.orgId) ?? null, r.role)!);
  return [...byOrg].map(([orgId, role]) => ({ orgId, role }));
}

/**
 * The person an identity provider's sign-in stands for: the one already linked to the issuer's
 * immutable subject (issuer + `sub`), whatever the e-mail says today; else the one invited under
 * this VERIFIED e-mail address and not yet linked (then linked to the subject for good); else,
 * when the provider's claim grants a role, a new person with that verified address. Null: Vigia
 * does not know them. An unverified or missing e-mail never matches an invitation.
 */
export async function personForSignIn(
  db: Database,
  input: { issuer: string; subject: string; verifiedEmail: string | null; name: string | null; grantedByIdp: boolean; now: Date },
): Promise<Person | null> {
  const linked = await db.query<Person>('SELECT id, email, name FROM people WHERE oidc_issuer = $1 AND oidc_subject = $2', [input.issuer, input.subject]);
  if (linked.rows[0]) return linked.rows[0];
  if (input.verifiedEmail === null) return null;
  const email = normalizeEmail(input.verifiedEmail);
  // The link and its audit entries commit together: the note is made before the transaction ends.
  const person = await db.tx(async (q) => {
    const invited = await q.query<Person>(
      `UPDATE people SET oidc_issuer = $2, oidc_subject = $3, name = coalesce(name, $4)
       WHERE lower(email) = lower($1) AND oidc_subject IS NULL RETURNING id, email, name`,
      [email, input.issuer, input.subject, input.name],
    );
    const found = invited.rows[0];
    if (!found) return null;
    // The invitation is now bound to this sign-in's subject: recorded in each organization that invited them.
    const { rows: orgs } = await q.query<{ org_id: string }>('SELECT org_id FROM memberships WHERE person_id = $1', [found.id]);
    noteAudit({
      action: 'members.link',
      orgIds: orgs.map((o) => o.org_id),
      target: found.id,
      changes: { email: found.email, issuer: input.issuer, subject: input.subject },
      actor: { kind: 'person', personId: found.id, email: found.email, via: 'session', idpRoles: [] },
    });
    return found;
  });
  if (person) return person;
  if (!input.grantedByIdp) return null;
  const created = await db.query<Person>(
    `INSERT INTO people (id, email, name, oidc_issuer, oidc_subject, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT DO NOTHING RETURNING id, email, name`,
    [newId('per', input.now), email, input.name, input.issuer, input.subject, input.now],
  );
  return created.rows[0] ?? null;
}

/**
 * The e-mail address of the claims when the provider vouches for it: `email` with
 * `email_verified: true` (OpenID Connect), or Entra ID's `xms_edov: true` (the address's domain
 * is verified as the tenant's; Entra sends no email_verified). Anything else is not trusted to
 * take an invitation.
 */
export function verifiedEmailOf(claims: Record<string, unknown>): string | null {
  if (typeof claims.email !== 'string') return null;
  const yes = (v: unknown) => v === true || v === 'true' || v === 1 || v === '1';
  return yes(claims.email_verified) || yes(claims.xms_edov) ? claims.email : null;
}

/** Roles the provider's groups / roles claim values grant through the configured map. */
export function rolesFromClaims(
  claims: Record<string, unknown>,
  map: Array<{ claimValue: string; orgId: string; role: Role }>,
): Array<{ orgId: string; role: Role }> {
  const values = new Set<string>();
  for (const name of ['groups', 'roles']) {
    const v = claims[name];
    if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') values.add(x);
  }
  return map.filter((m) => values.has(m.claimValue)).map((m) => ({ orgId: m.orgId, role: m.role }));
}

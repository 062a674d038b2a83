import type { Queryable } from '../db/index.js';
import { randomBase62 } from '../ids.js';
import { hashToken, safeEqual } from '../secrets/tokens.js';
import { isRole, type Role } from './roles.js';

/**
 * Console sessions live in the database (every instance sees them; sign-out ends them
 * everywhere). The browser holds only the session id in an HttpOnly cookie; the CSRF token is
 * given to the page and must come back in a header on every state-changing call.
 */
export interface SessionTimes {
  idleMs: number;
  maxMs: number;
}

export interface OpenedSession {
  id: string;
  csrfToken: string;
  expiresAt: Date;
}

export interface LiveSession {
  idHash: string;
  personId: string | null;
  email: string | null;
  csrfHash: string;
  idpRoles: Array<{ orgId: string; role: Role }>;
}

/** A fresh session (a new id at every sign-in: an id known before sign-in is worth nothing after). */
export async function openSession(
  db: Queryable,
  input: { personId: string | null; idpRoles?: Array<{ orgId: string; role: Role }>; now: Date; times: SessionTimes },
): Promise<OpenedSession> {
  const id = randomBase62(43);
  const csrfToken = csrfTokenFor(id);
  const expiresAt = new Date(input.now.getTime() + input.times.maxMs);
  await db.query(
    `INSERT INTO sessions (id_hash, person_id, csrf_hash, idp_roles, created_at, idle_expires_at, expires_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7)`,
    [
      hashToken(id),
      input.personId,
      hashToken(csrfToken),
      JSON.stringify(input.idpRoles ?? []),
      input.now,
      new Date(Math.min(input.now.getTime() + input.times.idleMs, expiresAt.getTime())),
      expiresAt,
    ],
  );
  return { id, csrfToken, expiresAt };
}

/** The live session with this id, its idle deadline pushed forward; null when unknown or expired. */
export async function touchSession(db: Queryable, id: string, now: Date, times: SessionTimes): Promise<LiveSession | null> {
  const { rows } = await db.query<{ id_hash: string; person_id: string | null; email: string | null; csrf_hash: string; idp_roles: unknown }>(
    `UPDATE sessions s SET idle_expires_at = least(s.expires_at, $2::timestamptz + make_interval(secs => $3::double precision))
     WHERE s.id_hash = $1 AND s.idle_expires_at > $2 AND s.expires_at > $2
     RETURNING s.id_hash, s.person_id, (SELECT p.email FROM people p WHERE p.id = s.person_id) AS email, s.csrf_hash, s.idp_roles`,
    [hashToken(id), now, times.idleMs / 1000],
  );
  const r = rows[0];
  if (!r) return null;
  const idpRoles = Array.isArray(r.idp_roles)
    ? (r.idp_roles as Array<{ orgId: unknown; role: unknown }>).flatMap((x) => (typeof x.orgId === 'string' && isRole(x.role) ? [{ orgId: x.orgId, role: x.role }] : []))
    : [];
  return { idHash: r.id_hash, personId: r.person_id, email: r.email, csrfHash: r.csrf_hash, idpRoles };
}

/**
 * The CSRF token of a session is derived from its id, so the page can ask for it again after a
 * reload (GET /session) while a cross-site page, which cannot read the cookie, cannot know it.
 */
export function csrfTokenFor(sessionId: string): string {
  return hashToken(`csrf:${sessionId}`);
}

export function csrfMatches(session: LiveSession, presented: string | undefined): boolean {
  if (!presented) return false;
  return safeEqual(hashToken(presented), session.csrfHash);
}

export async function endSession(db: Queryable, idHash: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
}

/** Ended sessions are deleted; expired ones are removed by the retention job. */
export async function purgeExpiredSessions(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE expires_at <= $1 OR idle_expires_at <= $1', [now]);
  await db.query(`DELETE FROM oidc_logins WHERE created_at <= $1::timestamptz - interval '1 hour'`, [now]);
  return rowCount ?? 0;
}

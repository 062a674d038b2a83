import type { Role } from './roles.js';

/**
 * Who is calling. The instance administrator (the instance admin token, as a Bearer token or
 * through a session it opened) may do everything; a person holds roles per organization; a
 * personal token acts for its person in one organization, with a role no higher than its own.
 */
export type Principal =
  | { kind: 'instance-admin'; via: 'token' | 'session'; sessionId?: string }
  | {
      kind: 'person';
      personId: string;
      email: string;
      via: 'session' | 'token';
      /** Roles granted by the identity provider's claim at sign-in (sessions only). */
      idpRoles: Array<{ orgId: string; role: Role }>;
      sessionId?: string;
      token?: { id: string; orgId: string; role: Role };
    };

/** How the audit log and an acknowledgement name the caller (never a secret). */
export function actorLabel(p: Principal): string {
  if (p.kind === 'instance-admin') return 'instance admin';
  return p.email;
}

export function actorKind(p: Principal): string {
  if (p.kind === 'instance-admin') return p.via === 'token' ? 'admin_token' : 'admin_session';
  return p.via === 'token' ? 'personal_token' : 'person';
}

export function actorId(p: Principal): string | null {
  if (p.kind === 'instance-admin') return null;
  return p.token ? `${p.personId}/${p.token.id}` : p.personId;
}

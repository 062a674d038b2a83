/** The roles a person holds in an organization, lowest first; each includes the ones below it. */
export const ROLES = ['viewer', 'operator', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function atLeast(held: Role | null, needed: Role): boolean {
  return held !== null && roleRank(held) >= roleRank(needed);
}

export function higherOf(a: Role | null, b: Role | null): Role | null {
  if (a === null) return b;
  if (b === null) return a;
  return roleRank(a) >= roleRank(b) ? a : b;
}

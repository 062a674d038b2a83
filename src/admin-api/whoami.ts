import type { AppContext } from '../context.js';
import type { Principal } from '../access/principal.js';
import { rolesOf } from '../access/people.js';
import type { Role } from '../access/roles.js';

/** What the console needs to know about the caller: who, and which role in which organization. */
export async function describeCaller(
  ctx: AppContext,
  p: Principal,
): Promise<{ kind: 'instance-admin' | 'person'; email: string | null; instanceAdmin: boolean; roles: Array<{ orgId: string; role: Role }> }> {
  if (p.kind === 'instance-admin') return { kind: 'instance-admin', email: null, instanceAdmin: true, roles: [] };
  return { kind: 'person', email: p.email, instanceAdmin: false, roles: await rolesOf(ctx.db, p) };
}

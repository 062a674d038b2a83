/**
 * Who may see who made a change read from a tenant's activity log (the actor's UPN, personal):
 * the instance administrator and people (or their personal tokens) with the operator or owner
 * role in the organization — the people who act on incidents. Viewers see the change without
 * the actor; the public API, webhooks and connectors never carry it (docs/access.md).
 */
import type { AppContext } from '../context.js';
import type { Principal } from '../access/principal.js';
import { roleIn } from '../access/people.js';
import { atLeast, type Role } from '../access/roles.js';

export const CHANGE_ACTOR_ROLE: Role = 'operator';

export async function maySeeChangeActor(ctx: Pick<AppContext, 'db'>, p: Principal, orgId: string): Promise<boolean> {
  if (p.kind === 'instance-admin') return true;
  return atLeast(await roleIn(ctx.db, p, orgId), CHANGE_ACTOR_ROLE);
}

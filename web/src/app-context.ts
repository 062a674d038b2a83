import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Call, Role } from './api.js';
import type { Lang, Translate } from './i18n.js';

export interface Console {
  lang: Lang;
  t: Translate;
  call: Call;
  /** The chosen organization (null until one is chosen). */
  orgId: string | null;
  chooseOrg(orgId: string): void;
  /** Whether the signed-in caller holds at least this role in the chosen organization (the console hides the rest). */
  can(role: Role): boolean;
}

const RANK: Record<Role, number> = { viewer: 0, operator: 1, owner: 2 };
export function holds(me: { instanceAdmin: boolean; roles: Array<{ orgId: string; role: Role }> } | null, orgId: string | null, role: Role): boolean {
  if (!me) return false;
  if (me.instanceAdmin) return true;
  const held = me.roles.find((r) => r.orgId === orgId)?.role;
  return held !== undefined && RANK[held] >= RANK[role];
}

export const ConsoleContext = createContext<Console | null>(null);

export function useConsole(): Console {
  const c = useContext(ConsoleContext);
  if (!c) throw new Error('ConsoleContext missing');
  return c;
}

/** `call` for paths under the chosen organization. */
export function orgPath(orgId: string, path: string): string {
  return `/orgs/${encodeURIComponent(orgId)}${path}`;
}

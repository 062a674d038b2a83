/** The simulator's controls — what the principal may reach: tokens, admin APIs, workspaces, Cost Management and ARM scopes. Composed with the other areas in control.ts. */
import type { SimControl } from './control-api.js';
import { type ControlKit, SimControlError } from './control-kit.js';
import { setWorkspaceRole } from './fabric-items.js';
import { workspaceById } from './lazy-tenant.js';
import { TOKEN_REFUSALS } from './token-refusals.js';

export type AccessControls = Pick<SimControl, 'refuseTokens' | 'adminApisForbidden' | 'workspaceMembership' | 'workspaceRole' | 'costScopeForbidden' | 'armReadForbidden'>;

export function accessControls(kit: ControlKit): AccessControls {
  const { s } = kit;
  return {
    refuseTokens({ on, kind }) {
      if (kind !== undefined && !Object.hasOwn(TOKEN_REFUSALS, kind)) throw new SimControlError(`kind must be one of ${Object.keys(TOKEN_REFUSALS).join(', ')}`);
      s().settings.refuseTokens = on ? (kind ?? 'invalid_client') : null;
    },
    adminApisForbidden({ on }) {
      s().settings.adminApisForbidden = on === true;
    },
    workspaceMembership({ workspaceId, member }) {
      const w = workspaceById(s(), workspaceId, { forWrite: true });
      if (!w) throw new SimControlError(`no workspace ${workspaceId}`);
      w.member = member === true;
    },
    workspaceRole({ workspaceId, role }) {
      if (!['Admin', 'Member', 'Contributor', 'Viewer'].includes(role)) throw new SimControlError('role must be Admin, Member, Contributor or Viewer');
      if (!s().workspaces.some((x) => x.id.toLowerCase() === String(workspaceId).toLowerCase())) throw new SimControlError(`no workspace ${workspaceId}`);
      setWorkspaceRole(s(), workspaceId, role);
    },
    costScopeForbidden({ scope, on }) {
      if (typeof scope !== 'string' || scope === '') throw new SimControlError('scope is required');
      const norm = scope.replace(/^\/+|\/+$/g, '').toLowerCase();
      const list = s().settings.costScopesForbidden.filter((x) => x !== norm);
      if (on) list.push(norm);
      s().settings.costScopesForbidden = list;
    },
    armReadForbidden({ scope, on }) {
      if (typeof scope !== 'string' || scope === '') throw new SimControlError('scope is required');
      const norm = scope.replace(/^\/+|\/+$/g, '').toLowerCase();
      const list = (s().settings.armReadForbidden ?? []).filter((x) => x !== norm);
      if (on) list.push(norm);
      s().settings.armReadForbidden = list;
    },
  };
}

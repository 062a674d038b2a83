/** The HTTP control API: `POST /_sim/{operation}` (JSON arguments), `GET /_sim/state`, `GET /_sim/requests`. */
import { type SimControl, SimControlError } from './control.js';
import { ok, type Reply } from './reply.js';
import type { SimRuntime } from './runtime.js';

export function controlRequest(rt: SimRuntime, method: string, path: string, text: string): Reply {
  const name = path.split('/')[2] ?? '';
  if (method === 'GET' && name === 'state') {
    const s = rt.state();
    return ok({
      tenantId: s.tenantId,
      capacities: s.capacities.map((c) => ({ id: c.id, displayName: c.displayName, armName: c.armName, sku: c.sku, state: c.state })),
      workspaces: s.workspaces.length,
      gateways: s.gateways.map((g) => ({ id: g.id, displayName: g.displayName, online: g.online, upgradeRequired: g.upgradeRequired, members: g.members.map((m) => ({ id: m.id, displayName: m.displayName, online: m.online })) })),
      costRows: s.costs.length,
      settings: s.settings,
    });
  }
  if (method === 'GET' && name === 'requests') return ok({ count: rt.requests.length, throttled: rt.requests.filter((r) => r.throttled).length, violations: rt.violations });
  if (method !== 'POST' || !rt.controlOperations.includes(name)) {
    return { status: 404, body: { error: { code: 'UnknownControl', message: `POST /_sim/{${rt.controlOperations.join('|')}}, GET /_sim/state, GET /_sim/requests` } } };
  }
  let args: unknown = {};
  if (text !== '') {
    try {
      args = JSON.parse(text);
    } catch {
      return { status: 400, body: { error: { code: 'BadJson', message: 'The body must be a JSON object.' } } };
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { status: 400, body: { error: { code: 'BadJson', message: 'The body must be a JSON object.' } } };
  try {
    (rt.control[name as keyof SimControl] as (a: unknown) => void)(args);
  } catch (err) {
    if (err instanceof SimControlError) return { status: 400, body: { error: { code: 'BadControl', message: err.message } } };
    throw err;
  }
  return ok({ ok: true });
}

/** Entra ID's endpoints on the simulator: token, OpenID metadata, keys, instance discovery. */
import { ok, type Reply } from './reply.js';
import type { SimRuntime } from './runtime.js';
import { throttled } from './refusals.js';

export function tokenRequest(rt: SimRuntime, method: string, path: string, text: string, contentType: string, violate: (m: string) => void): Reply {
  const segs = path.split('/').filter(Boolean);
  const tenant = segs[0] ?? '';
  if (path.toLowerCase() === '/common/discovery/instance' && method === 'GET') return ok(rt.entra.instanceDiscovery(rt.origin));
  if (path.toLowerCase().endsWith('/v2.0/.well-known/openid-configuration') && method === 'GET') {
    if (tenant.toLowerCase() !== rt.entra.config.tenantId.toLowerCase() && tenant !== 'organizations' && tenant !== 'common') {
      return { status: 400, body: { error: 'invalid_tenant', error_description: `AADSTS90002: Tenant '${tenant}' not found.` } };
    }
    return ok(rt.entra.openIdConfiguration(rt.origin, tenant));
  }
  if (path.toLowerCase().endsWith('/discovery/v2.0/keys') && method === 'GET') return ok({ keys: [] });
  if (path.toLowerCase().endsWith('/oauth2/v2.0/token') && method === 'POST') {
    if (!contentType.startsWith('application/x-www-form-urlencoded')) {
      if (rt.strict) violate('token request must be application/x-www-form-urlencoded');
      return { status: 400, body: { error: 'invalid_request', error_description: "AADSTS900144: The request body must contain the following parameter: 'grant_type'." } };
    }
    const refusal = rt.limits.admit('token', path);
    if (refusal) return throttled('token', refusal);
    const answer = rt.entra.token(tenant, new URLSearchParams(text), `${rt.origin}${path}`, rt.state().settings.refuseTokens);
    return { status: answer.status, body: answer.body, headers: { 'cache-control': 'no-store, no-cache', ...answer.headers } };
  }
  if (rt.strict) violate('no Entra endpoint');
  return { status: 404, body: { error: 'not_found', error_description: `No Entra endpoint ${method} ${path}.` } };
}

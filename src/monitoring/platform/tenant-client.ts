/**
 * A platform client for one action on a tenant outside the collectors' runs (the connection
 * check, the Eventhouse set-up): the connection's credentials and endpoints, the shared hourly
 * budget (token calls included) and Vigia's share of the tenant-wide caps, as a run would have.
 */
import type { AppContext } from '../../context.js';
import { takeCall } from './budget.js';
import { PlatformClient, type RunStats } from './platform-client.js';
import { endpointsOf, openCredentials, type TenantRow } from '../connection/tenant-row.js';
import { TenantTokens } from './tokens.js';
import type { Transport } from './transport.js';

export function clientForTenant(ctx: AppContext, tenant: TenantRow, transport: Transport, timeLimitMs: number): { client: PlatformClient; tokens: TenantTokens } {
  const endpoints = endpointsOf(tenant);
  const tokens = new TenantTokens(
    { tenantId: tenant.tenant_id, clientId: tenant.client_id, authorityHost: endpoints.authorityHost, credentials: openCredentials(ctx, tenant) },
    transport,
    () => takeCall(ctx.db, tenant.tenant_id, 'token', ctx.clock.now()),
    () => ctx.clock.now().getTime(),
  );
  const stats: RunStats = { calls: 0, throttledCalls: 0 };
  const client = new PlatformClient({
    db: ctx.db,
    now: () => ctx.clock.now(),
    transport,
    tokens,
    directoryId: tenant.tenant_id,
    endpoints,
    stats,
    deadline: Date.now() + timeLimitMs,
    capSharePercent: tenant.cap_share_percent,
  });
  return { client, tokens };
}

/**
 * Where a tenant connection's endpoints may point. The client secret (to `authorityHost`) and the
 * bearer tokens (to `powerBi`, `fabric`, `arm`) go wherever the endpoints say, so an endpoint is
 * a place Vigia hands its credentials to: only Microsoft's own hosts, or hosts the operator
 * listed in VIGIA_DESTINATION_ALLOWLIST (the tenant simulator, tests).
 *
 * The hosts are Microsoft's documented service endpoints of the national clouds:
 * - Entra ID authority: "National clouds" (learn.microsoft.com/entra/identity-platform/authentication-national-cloud):
 *   login.microsoftonline.com (global), login.microsoftonline.us (US Government), login.chinacloudapi.cn (China, 21Vianet).
 * - Power BI REST: "Power BI for US Government" and "Power BI China" (learn.microsoft.com/power-bi/enterprise/service-govus-overview,
 *   learn.microsoft.com/power-bi/admin/service-admin-21vianet): api.powerbi.com, api.powerbigov.us (GCC),
 *   api.high.powerbigov.us (GCC High), api.mil.powerbigov.us (DoD), api.powerbi.cn (China).
 * - Fabric REST: api.fabric.microsoft.com; the vendor descriptions Vigia follows document no
 *   US Government or China host for it, so none is accepted (an operator may allowlist one).
 * - Azure Resource Manager: "Azure Government developer guide" and "Azure China developer guide":
 *   management.azure.com, management.usgovcloudapi.net, management.chinacloudapi.cn.
 */
import { invalidInput } from '../../errors.js';
import { Allowlist } from '../../delivery/address-policy.js';
import type { TenantEndpoints } from './endpoints.js';

export const MICROSOFT_CLOUD_HOSTS: Readonly<Record<keyof TenantEndpoints, readonly string[]>> = {
  authorityHost: ['login.microsoftonline.com', 'login.microsoftonline.us', 'login.chinacloudapi.cn'],
  powerBi: ['api.powerbi.com', 'api.powerbigov.us', 'api.high.powerbigov.us', 'api.mil.powerbigov.us', 'api.powerbi.cn'],
  fabric: ['api.fabric.microsoft.com'],
  arm: ['management.azure.com', 'management.usgovcloudapi.net', 'management.chinacloudapi.cn'],
};

/**
 * Whether `url` may be the endpoint `field`: a documented Microsoft host on the https default
 * port, or a host/address the operator allowlisted (any port). Otherwise 400 naming the field.
 * Returns true when the host is Microsoft's own (no further address check is needed).
 */
export function checkEndpointHost(field: keyof TenantEndpoints, url: URL, operatorAllowlist: readonly string[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (url.protocol === 'https:' && url.port === '' && MICROSOFT_CLOUD_HOSTS[field].includes(host)) return true;
  const allowlist = new Allowlist(operatorAllowlist);
  if (allowlist.hasHost(host) || allowlist.hasAddress(host)) return false;
  throw invalidInput(
    `endpoints.${field} must be one of Microsoft's hosts for it (${MICROSOFT_CLOUD_HOSTS[field].join(', ')}) or a host the operator lists in VIGIA_DESTINATION_ALLOWLIST`,
  );
}

/** The endpoints (resolved, with the public cloud's defaults) differ: something new would receive the credentials. */
export function endpointsChanged(before: TenantEndpoints, after: TenantEndpoints): boolean {
  return (Object.keys(before) as (keyof TenantEndpoints)[]).some((k) => before[k] !== after[k]);
}

/**
 * The four origins a tenant connection talks to. `endpoints` on a connection replace them
 * (sovereign clouds, the tenant simulator); the vendors' own paths always follow the origin.
 */
export interface TenantEndpoints {
  authorityHost: string;
  powerBi: string;
  fabric: string;
  arm: string;
}

export const PUBLIC_CLOUD: TenantEndpoints = {
  authorityHost: 'https://login.microsoftonline.com',
  powerBi: 'https://api.powerbi.com',
  fabric: 'https://api.fabric.microsoft.com',
  arm: 'https://management.azure.com',
};

export const ENDPOINT_FIELDS = Object.keys(PUBLIC_CLOUD) as (keyof TenantEndpoints)[];

/** Token audiences (scopes) — the resource identifiers stay Microsoft's whatever the origin. */
export const AUDIENCES = {
  powerbi: 'https://analysis.windows.net/powerbi/api/.default',
  fabric: 'https://api.fabric.microsoft.com/.default',
  arm: 'https://management.azure.com/.default',
  /** Eventhouse / KQL database query endpoints (Kusto REST API): their own audience, not Fabric's. */
  kusto: 'https://kusto.kusto.windows.net/.default',
} as const;
export type Audience = keyof typeof AUDIENCES;

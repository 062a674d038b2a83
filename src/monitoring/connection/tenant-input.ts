/**
 * Input rules of a tenant connection: identifiers are GUIDs, cost scopes are subscription or
 * resource-group paths, credentials are a client secret or a certificate with its private key,
 * and endpoint overrides are origins (their hosts, DNS and the credentials they need are the
 * credential rule's: src/delivery/credential-rule.ts, applied by the tenants service).
 */
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import { invalidInput } from '../../errors.js';
import { isCollectorName } from './collector-names.js';
import { ENDPOINT_FIELDS, type TenantEndpoints } from './endpoints.js';
import type { MirroringLag } from './mirroring-lag.js';
import type { UtilizationInput } from './utilization-settings.js';

export type TenantMode = 'admin' | 'member';

export type TenantCredentials = { clientSecret: string } | { certificatePem: string; privateKeyPem: string };

export interface CollectorSetting {
  enabled?: boolean;
  intervalSeconds?: number;
}

export interface TenantInput {
  name: string;
  tenantId: string;
  clientId: string;
  credentials: TenantCredentials;
  mode: TenantMode;
  workspaces?: string[] | null;
  costScopes?: string[];
  collectors?: Record<string, CollectorSetting>;
  endpoints?: Partial<TenantEndpoints> | null;
  /** Replication lag thresholds of the mirroring collector (defaults 900 / 3600 s). */
  mirroringLag?: Partial<MirroringLag>;
  /** Capacity load sources and thresholds (src/monitoring/connection/utilization-settings.ts). */
  utilization?: UtilizationInput;
  /** Page what the collectors' first passes find instead of opening it silenced "found at connection" (default false). */
  pageFindingsAtConnection?: boolean;
  /**
   * Vigia's share of each documented per-tenant cap of the platform (admin endpoints), in percent,
   * 1–100 (default 50): the rest is left to the customer's other tools (docs/monitoring.md).
   */
  capSharePercent?: number;
  /** Days of changes from the activity log kept, 1–400 (default 30, what the log itself keeps). */
  changeRetentionDays?: number;
  /** How far back before an incident the join of changes looks, in minutes: 10–10080 (default 1440). */
  changeLookbackMinutes?: number;
}

export type TenantChange = Partial<TenantInput>;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COST_SCOPE = /^\/subscriptions\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(\/resourceGroups\/[-\w.()]{1,90})?$/i;

export function checkGuid(value: string, field: string): string {
  if (!GUID.test(value)) throw invalidInput(`${field} must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)`);
  return value.toLowerCase();
}

export function checkWorkspaces(list: string[] | null | undefined): string[] | null {
  if (list === undefined || list === null) return null;
  const out = list.map((w, i) => checkGuid(w, `workspaces[${i}]`));
  if (new Set(out).size !== out.length) throw invalidInput('workspaces: duplicate workspace id');
  return out;
}

export function checkCostScopes(list: string[] | undefined): string[] {
  const out = (list ?? []).map((s, i) => {
    if (!COST_SCOPE.test(s) || s.endsWith('.')) {
      throw invalidInput(`costScopes[${i}] must be "/subscriptions/{id}" or "/subscriptions/{id}/resourceGroups/{name}"`);
    }
    return s;
  });
  if (new Set(out.map((s) => s.toLowerCase())).size !== out.length) throw invalidInput('costScopes: duplicate scope');
  return out;
}

/** The subscription id of a cost scope. */
export function subscriptionOf(scope: string): string {
  return COST_SCOPE.exec(scope)![1]!.toLowerCase();
}

export function checkCollectors(collectors: Record<string, CollectorSetting> | undefined): Record<string, CollectorSetting> {
  for (const [name, setting] of Object.entries(collectors ?? {})) {
    if (!isCollectorName(name)) throw invalidInput(`collectors: unknown collector "${name}"`);
    if (setting.intervalSeconds !== undefined && setting.intervalSeconds < 5) {
      throw invalidInput(`collectors.${name}.intervalSeconds must be at least 5`);
    }
  }
  return collectors ?? {};
}

/** Vigia's share of the per-tenant caps: a whole percent from 1 to 100. */
export function checkCapShare(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > 100) throw invalidInput('capSharePercent must be a whole number from 1 to 100');
  return value;
}

/** Days of changes kept: a whole number from 1 to 400. */
export function checkChangeRetention(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > 400) throw invalidInput('changeRetentionDays must be a whole number from 1 to 400');
  return value;
}

/** The join's look-back: a whole number of minutes from 10 to 10080 (7 days). */
export function checkChangeLookback(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 10 || value > 10080) throw invalidInput('changeLookbackMinutes must be a whole number from 10 to 10080');
  return value;
}

/** A certificate credential: the PEMs must parse and the key must belong to the certificate. */
export function certificateFacts(certificatePem: string, privateKeyPem: string): { thumbprintSha256: string; x5c: string } {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certificatePem);
  } catch {
    throw invalidInput('credentials.certificatePem must be a PEM X.509 certificate');
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch {
    throw invalidInput('credentials.privateKeyPem must be a PEM private key');
  }
  if (!cert.checkPrivateKey(key)) throw invalidInput('credentials.privateKeyPem does not belong to credentials.certificatePem');
  return {
    thumbprintSha256: createHash('sha256').update(cert.raw).digest('hex').toUpperCase(),
    x5c: cert.raw.toString('base64'),
  };
}

export function checkCredentials(c: TenantCredentials): { type: 'secret' | 'certificate'; value: TenantCredentials } {
  if ('clientSecret' in c) {
    if (Object.keys(c).length !== 1) throw invalidInput('credentials: give either { clientSecret } or { certificatePem, privateKeyPem }');
    return { type: 'secret', value: { clientSecret: c.clientSecret } };
  }
  if (Object.keys(c).length !== 2) throw invalidInput('credentials: give either { clientSecret } or { certificatePem, privateKeyPem }');
  certificateFacts(c.certificatePem, c.privateKeyPem);
  return { type: 'certificate', value: { certificatePem: c.certificatePem, privateKeyPem: c.privateKeyPem } };
}

/**
 * Endpoint overrides as origins (scheme, host, port). Where they may point is judged with the
 * other address fields by the credential rule (src/delivery/credential-rule.ts).
 */
export function checkEndpoints(given: Partial<TenantEndpoints> | null | undefined): Partial<TenantEndpoints> {
  const out: Partial<TenantEndpoints> = {};
  for (const field of ENDPOINT_FIELDS) {
    const value = given?.[field];
    if (value === undefined) continue;
    const where = `endpoints.${field}`;
    if (!URL.canParse(value)) throw invalidInput(`${where} must be an absolute https URL`);
    const url = new URL(value);
    if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
      throw invalidInput(`${where} must be an origin (https://host[:port]) without a path; the vendors' paths follow it`);
    }
    // The origin keeps the scheme and any credentials out of the stored text: the rule judges the value as given.
    out[field] = url.protocol === 'https:' && !url.username && !url.password ? url.origin : value;
  }
  return out;
}

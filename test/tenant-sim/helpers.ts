/** Starting the tenant simulator on the test CA's certificate, and calling it like a client. */
import { readFileSync } from 'node:fs';
import { ConfidentialClientApplication } from '@azure/msal-node';
import { type TenantSim, type TenantSimOptions, startTenantSimulator } from '../../src/tenant-sim/index.js';
import { certFiles } from '../fakes/fake-server.js';

export const SCOPES = {
  powerbi: 'https://analysis.windows.net/powerbi/api/.default',
  fabric: 'https://api.fabric.microsoft.com/.default',
  arm: 'https://management.azure.com/.default',
} as const;

export async function startSim(opts: Partial<TenantSimOptions> = {}): Promise<TenantSim> {
  const files = certFiles();
  return startTenantSimulator({ tls: { cert: readFileSync(files.cert), key: readFileSync(files.key) }, strict: true, ...opts });
}

/** A client-secret token from the simulator through msal-node, as the monitoring core gets one. */
export async function msalToken(sim: TenantSim, scope: string, clientSecret = sim.clientSecret): Promise<string> {
  const app = new ConfidentialClientApplication({
    auth: { clientId: sim.clientId, authority: `${sim.origin}/${sim.tenantId}`, clientSecret, knownAuthorities: [new URL(sim.origin).host] },
  });
  const result = await app.acquireTokenByClientCredential({ scopes: [scope] });
  if (!result?.accessToken) throw new Error('no token');
  return result.accessToken;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function call(sim: TenantSim, method: string, pathOrUrl: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const url = pathOrUrl.startsWith('https://') ? pathOrUrl : `${sim.origin}${pathOrUrl}`;
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

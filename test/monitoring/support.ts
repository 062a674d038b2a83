/** Helpers of the monitoring tests: an organization, a certificate pair, a tenant body (made up, or the simulator's). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AppContext } from '../../src/context.js';
import { newId } from '../../src/ids.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';

export async function insertOrg(ctx: AppContext, name = 'Acme'): Promise<string> {
  const id = newId('org');
  const now = ctx.clock.now();
  await ctx.db.query('INSERT INTO orgs (id, name, escalation_minutes, created_at, updated_at) VALUES ($1, $2, NULL, $3, $3)', [id, name, now]);
  return id;
}

/** A self-signed certificate and its private key (PEM), made with openssl. */
export function makeCertificatePair(cn = 'vigia-monitor'): { certificatePem: string; privateKeyPem: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigia-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${cn}`,
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'pipe' });
    return { certificatePem: readFileSync(path.join(dir, 'cert.pem'), 'utf8'), privateKeyPem: readFileSync(path.join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const TENANT_GUID = '11111111-2222-3333-4444-555555555555';
export const CLIENT_GUID = 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';
export const CLIENT_SECRET = 'S3cr3t~monitoring-client-secret-value';

export function tenantBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Contoso BI',
    tenantId: TENANT_GUID,
    clientId: CLIENT_GUID,
    credentials: { clientSecret: CLIENT_SECRET },
    mode: 'admin',
    ...over,
  };
}

/** A tenant connection to the tenant simulator: its ids and secret, every origin its own (admin mode). */
export function simTenantBody(sim: TenantSim, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Contoso BI',
    tenantId: sim.tenantId,
    clientId: sim.clientId,
    credentials: { clientSecret: sim.clientSecret },
    mode: 'admin',
    endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
    ...over,
  };
}

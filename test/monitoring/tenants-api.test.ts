/**
 * Tenant connections admin API: create, list, read, change, delete; credentials sealed and never
 * returned or logged; strict input with the 400 envelope; organization scoping and 404s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { CLIENT_SECRET, insertOrg, makeCertificatePair, tenantBody } from './support.js';

describe('tenant connections admin API', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The operator allowlists the two example hosts; every other non-Microsoft host is refused.
    t = await createTestApp({ config: { destinationAllowlist: ['fabric.example.com', 'arm.example.com'] } });
    setResolver(t.ctx, async (host) => (host === 'evil.example.com' ? [{ address: '10.0.0.5', family: 4 }] : [{ address: '93.184.216.34', family: 4 }]));
  });
  afterAll(() => t.close());

  it('creates a connection: defaults, collectors, sealed secret never returned', async () => {
    const orgId = await insertOrg(t.ctx);
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({
      workspaces: ['AAAAAAAA-0000-0000-0000-000000000001'],
      costScopes: ['/subscriptions/00000000-0000-0000-0000-0000000000aa/resourceGroups/bi-rg'],
      collectors: { capacity: { intervalSeconds: 5 }, inventory: { enabled: false } },
      endpoints: { fabric: 'https://fabric.example.com' },
    }));
    expect(res.statusCode).toBe(201);
    const v = res.json();
    expect(v).toMatchObject({
      name: 'Contoso BI',
      credentialType: 'secret',
      credentialsSet: true,
      mode: 'admin',
      workspaces: ['aaaaaaaa-0000-0000-0000-000000000001'],
      endpoints: {
        authorityHost: 'https://login.microsoftonline.com',
        powerBi: 'https://api.powerbi.com',
        fabric: 'https://fabric.example.com',
        arm: 'https://management.azure.com',
      },
    });
    const capacity = v.collectors.find((c: { name: string }) => c.name === 'capacity');
    expect(capacity).toMatchObject({ enabled: true, intervalSeconds: 5, defaultIntervalSeconds: 60, lastRunAt: null, running: false });
    expect(capacity.nextRunAt).toBe(new Date(t.ctx.clock.now()).toISOString());
    expect(v.collectors.find((c: { name: string }) => c.name === 'inventory')).toMatchObject({ enabled: false, nextRunAt: null });
    expect(v.collectors.map((c: { name: string }) => c.name)).toEqual(['inventory', 'capacity', 'gateway', 'costs', 'refreshes', 'jobs', 'mirroring', 'freshness', 'datasources', 'scanner', 'utilization', 'activity']);
    expect(res.body).not.toContain(CLIENT_SECRET);

    const list = await t.admin('GET', `/orgs/${orgId}/tenants`);
    expect(list.json().value.map((x: { id: string }) => x.id)).toEqual([v.id]);
    expect(list.body).not.toContain(CLIENT_SECRET);
    const { rows } = await t.ctx.db.query('SELECT credentials_sealed FROM tenants WHERE id = $1', [v.id]);
    expect(rows[0].credentials_sealed).not.toContain(CLIENT_SECRET);
    expect(t.ctx.sealer.openJson(rows[0].credentials_sealed)).toEqual({ clientSecret: CLIENT_SECRET });
    expect(t.ctx.logs.text).not.toContain(CLIENT_SECRET);
  });

  it('accepts a certificate with its key and refuses a key of another certificate', async () => {
    const orgId = await insertOrg(t.ctx);
    const a = makeCertificatePair('a');
    const b = makeCertificatePair('b');
    const ok = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ credentials: a }));
    expect(ok.statusCode).toBe(201);
    expect(ok.json().credentialType).toBe('certificate');
    expect(ok.body).not.toContain('PRIVATE KEY');
    const bad = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ credentials: { certificatePem: a.certificatePem, privateKeyPem: b.privateKeyPem } }));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('does not belong');
    expect(bad.body).not.toContain('PRIVATE KEY');
  });

  it('answers 400 with the envelope for bad input', async () => {
    const orgId = await insertOrg(t.ctx);
    const cases: [Record<string, unknown>, string][] = [
      [tenantBody({ tenantId: 'contoso' }), 'tenantId must be a GUID'],
      [tenantBody({ clientId: '1234' }), 'clientId must be a GUID'],
      [tenantBody({ mode: 'owner' }), 'mode'],
      [tenantBody({ workspaces: ['not-a-guid'] }), 'workspaces[0] must be a GUID'],
      [tenantBody({ costScopes: ['/subscriptions/xyz'] }), 'costScopes[0]'],
      [tenantBody({ collectors: { capacity: { intervalSeconds: 4 } } }), 'intervalSeconds'],
      [tenantBody({ collectors: { sniffer: { enabled: true } } }), 'sniffer'],
      [tenantBody({ endpoints: { arm: 'http://arm.example.com' } }), 'endpoints.arm must use https'],
      [tenantBody({ endpoints: { arm: 'https://127.0.0.1:8443' } }), "endpoints.arm must be one of Microsoft's hosts"],
      [tenantBody({ endpoints: { arm: 'https://evil.example.com' } }), "endpoints.arm must be one of Microsoft's hosts"],
      [tenantBody({ endpoints: { arm: 'https://management.azure.com:8443' } }), "endpoints.arm must be one of Microsoft's hosts"],
      [tenantBody({ endpoints: { powerBi: 'https://login.microsoftonline.com' } }), "endpoints.powerBi must be one of Microsoft's hosts"],
      [tenantBody({ endpoints: { arm: 'https://arm.example.com/v1' } }), 'must be an origin'],
      [tenantBody({ credentials: { clientSecret: 'x', certificatePem: 'y' } }), 'credentials'],
      [tenantBody({ credentials: { certificatePem: 'nope', privateKeyPem: 'nope' } }), 'certificatePem must be a PEM'],
      [tenantBody({ extra: 1 }), 'extra'],
    ];
    for (const [body, message] of cases) {
      const res = await t.admin('POST', `/orgs/${orgId}/tenants`, body);
      expect(res.statusCode, message).toBe(400);
      expect(res.json().error.code).toBeTypeOf('string');
      expect(res.json().error.message).toContain(message);
    }
    expect((await t.admin('GET', `/orgs/${orgId}/tenants`)).json().value).toEqual([]);
  });

  it('changes fields, merges endpoints and collectors, and scopes every route to the organization', async () => {
    const orgId = await insertOrg(t.ctx);
    const other = await insertOrg(t.ctx, 'Other');
    const created = (await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ endpoints: { fabric: 'https://fabric.example.com' } }))).json();
    const patched = await t.admin('PATCH', `/orgs/${orgId}/tenants/${created.id}`, {
      name: 'Renamed',
      mode: 'member',
      endpoints: { arm: 'https://arm.example.com' },
      collectors: { capacity: { intervalSeconds: 30 } },
      credentials: { clientSecret: 'another-secret-value' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'Renamed', mode: 'member', endpoints: { fabric: 'https://fabric.example.com', arm: 'https://arm.example.com' } });
    expect(patched.json().collectors.find((c: { name: string }) => c.name === 'capacity').intervalSeconds).toBe(30);
    expect(patched.body).not.toContain('another-secret-value');
    // Moving an endpoint, even back to the public cloud, needs the credentials again.
    const noSecret = await t.admin('PATCH', `/orgs/${orgId}/tenants/${created.id}`, { endpoints: { fabric: null } });
    expect(noSecret.statusCode).toBe(400);
    expect(noSecret.json().error.message).toContain('credentials are required');
    const unchanged = await t.admin('PATCH', `/orgs/${orgId}/tenants/${created.id}`, { endpoints: { arm: 'https://arm.example.com' } });
    expect(unchanged.statusCode).toBe(200);
    const reset = await t.admin('PATCH', `/orgs/${orgId}/tenants/${created.id}`, { endpoints: { fabric: null }, credentials: { clientSecret: 'third-secret-value' } });
    expect(reset.statusCode).toBe(200);
    expect(reset.json().endpoints.fabric).toBe('https://api.fabric.microsoft.com');
    expect(reset.json().endpoints.arm).toBe('https://arm.example.com');

    expect((await t.admin('GET', `/orgs/${other}/tenants/${created.id}`)).statusCode).toBe(404);
    expect((await t.admin('PATCH', `/orgs/${other}/tenants/${created.id}`, { name: 'x' })).statusCode).toBe(404);
    expect((await t.admin('DELETE', `/orgs/${other}/tenants/${created.id}`)).statusCode).toBe(404);
    expect((await t.admin('GET', `/orgs/${other}/tenants`)).json().value).toEqual([]);
    expect((await t.admin('GET', `/orgs/org_missing/tenants`)).statusCode).toBe(404);
    expect((await t.admin('DELETE', `/orgs/${orgId}/tenants/${created.id}`)).statusCode).toBe(204);
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${created.id}`)).statusCode).toBe(404);
    const { rows } = await t.ctx.db.query('SELECT count(*)::int AS n FROM collector_schedules WHERE tenant_ref = $1', [created.id]);
    expect(rows[0].n).toBe(0);
  });
});

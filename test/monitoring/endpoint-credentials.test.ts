/**
 * The stored client secret never follows an endpoint change (docs/monitoring.md, endpoints): a
 * PATCH that moves an endpoint without the credentials is refused, so `/check` still talks to
 * the old host and the new one never hears from Vigia; with the credentials the new (allowlisted)
 * host gets the new secret only; a host neither Microsoft's nor allowlisted is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { CLIENT_SECRET, insertOrg, tenantBody } from './support.js';

describe('tenant endpoints and the stored secret', () => {
  let t: TestApp;
  let legit: TestReceiver;
  let attacker: TestReceiver;
  beforeAll(async () => {
    legit = await startReceiver();
    attacker = await startReceiver();
    const refused = { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' }) };
    legit.handle(() => refused);
    attacker.handle(() => refused);
    t = await createTestApp({ config: { destinationAllowlist: ['127.0.0.1'] } });
    // Microsoft's hosts resolve to a public address, except one whose DNS answers nothing (issue 35).
    setResolver(t.ctx, async (host) => {
      if (host === 'api.powerbi.cn') throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      return [{ address: '93.184.216.34', family: 4 }];
    });
  });
  afterAll(async () => {
    await t.close();
    await legit.close();
    await attacker.close();
  });

  it('moving authorityHost needs the secret again; without it no request reaches the new host', async () => {
    const orgId = await insertOrg(t.ctx);
    const all = { authorityHost: legit.origin, powerBi: legit.origin, fabric: legit.origin, arm: legit.origin };
    const created = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ endpoints: all }));
    expect(created.statusCode).toBe(201);
    const id = created.json().id;

    const moved = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { endpoints: { authorityHost: attacker.origin } });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().error.message).toContain('credentials are required');
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${id}`)).json().endpoints.authorityHost).toBe(legit.origin);

    expect((await t.admin('POST', `/orgs/${orgId}/tenants/${id}/check`)).statusCode).toBe(200);
    expect(attacker.requests).toHaveLength(0);
    expect(legit.requests.length).toBeGreaterThan(0);

    // A bearer-token host too.
    const movedArm = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { endpoints: { arm: attacker.origin } });
    expect(movedArm.statusCode).toBe(400);

    // With the credentials in the same request, an allowlisted host is accepted and gets the new secret only.
    const withSecret = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, {
      endpoints: { authorityHost: attacker.origin },
      credentials: { clientSecret: 'the-new-secret-value' },
    });
    expect(withSecret.statusCode).toBe(200);
    expect(withSecret.json().endpoints.authorityHost).toBe(attacker.origin);
    expect((await t.admin('POST', `/orgs/${orgId}/tenants/${id}/check`)).statusCode).toBe(200);
    const received = attacker.requests.map((r) => r.rawBody.toString('utf8')).join('\n');
    expect(received).toContain('the-new-secret-value');
    expect(received).not.toContain(encodeURIComponent(CLIENT_SECRET));
    expect(received).not.toContain(CLIENT_SECRET);
  });

  it("a host neither Microsoft's nor allowlisted is refused naming the field; Microsoft's national clouds are accepted", async () => {
    const orgId = await insertOrg(t.ctx);
    const id = (await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody())).json().id;
    const secret = { clientSecret: 'another-secret-value' };
    for (const [field, value] of [
      ['authorityHost', 'https://login.example.net'],
      ['powerBi', 'https://api.powerbi.com.example.net'],
      ['fabric', 'https://api.fabric.microsoft.com:8443'],
      ['arm', 'http://management.azure.com'],
    ] as const) {
      const res = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { endpoints: { [field]: value }, credentials: secret });
      expect(res.statusCode, value).toBe(400);
      expect(res.json().error.message).toContain(`endpoints.${field}`);
    }
    const gov = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, {
      endpoints: { authorityHost: 'https://login.microsoftonline.us', powerBi: 'https://api.high.powerbigov.us', arm: 'https://management.usgovcloudapi.net' },
      credentials: secret,
    });
    expect(gov.statusCode).toBe(200);
    expect(gov.json().endpoints).toMatchObject({ authorityHost: 'https://login.microsoftonline.us', powerBi: 'https://api.high.powerbigov.us' });
    // A documented host is still refused when it does not resolve now.
    const unresolved = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { endpoints: { powerBi: 'https://api.powerbi.cn' }, credentials: secret });
    expect(unresolved.statusCode).toBe(400);
    expect(unresolved.json().error.message).toContain('endpoints.powerBi: the host api.powerbi.cn does not resolve');
    const created = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ endpoints: { authorityHost: 'https://evil.example.net' } }));
    expect(created.statusCode).toBe(400);
    expect(created.json().error.message).toContain('endpoints.authorityHost');
  });
});

/**
 * Destinations admin API (docs/delivery.md): CRUD of all five kinds, the 20-per-org limit, strict
 * schemas, URL safety at save time, secrets shown once and never again (responses, logs, rows).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { insertOrg } from './support.js';

describe('destinations admin API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    // Public names resolve to a public address; the rebinding-style names to private ones.
    setResolver(t.ctx, async (host) => {
      if (host === 'evil.example.com') return [{ address: '10.0.0.5', family: 4 }];
      if (host === 'mixed.example.com') return [{ address: '93.184.216.34', family: 4 }, { address: '::1', family: 6 }];
      return [{ address: '93.184.216.34', family: 4 }];
    });
  });
  afterAll(() => t.close());

  const webhook = (over: object = {}) => ({ name: 'Ops hook', kind: 'webhook', url: 'https://hooks.example.com/vigia', ...over });

  it('creates a webhook: the signing secret appears once, sealed at rest, never again', async () => {
    const orgId = await insertOrg(t.ctx);
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, webhook({ filter: { events: ['alert.opened'], severities: ['error'] } }));
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const d = res.json();
    expect(d).toEqual({
      id: expect.any(String),
      name: 'Ops hook',
      kind: 'webhook',
      url: 'https://hooks.example.com/vigia',
      config: {},
      signatureScheme: 'service',
      filter: { events: ['alert.opened'], severities: ['error'] },
      enabled: true,
      rateLimitPerSecond: null,
      credentialsSet: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      health: {
        state: 'healthy',
        consecutiveFailures: 0,
        successRate24h: null,
        lastSuccessAt: null,
        lastFailureAt: null,
        disabledAt: null,
        disabledReason: null,
      },
      // Webhooks have no inbound address (connector kinds do: test/connectors/inbound.test.ts).
      inbound: null,
      slackRequestUrl: null,
      refusedRecipients: null,
      signingSecret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32,}$/),
    });
    const secret = d.signingSecret as string;
    const get = await t.admin('GET', `/orgs/${orgId}/destinations/${d.id}`);
    expect(get.json()).not.toHaveProperty('signingSecret');
    expect(get.body).not.toContain(secret);
    const list = await t.admin('GET', `/orgs/${orgId}/destinations`);
    expect(list.json()).toHaveLength(1);
    expect(list.body).not.toContain(secret);
    const { rows } = await t.ctx.db.query('SELECT signing_secret_sealed FROM destinations WHERE id = $1', [d.id]);
    expect(rows[0].signing_secret_sealed).not.toContain(secret);
    expect(t.ctx.sealer.open(rows[0].signing_secret_sealed)).toBe(secret);

    const rotated = await t.admin('POST', `/orgs/${orgId}/destinations/${d.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect(Object.keys(rotated.json())).toEqual(['signingSecret']);
    expect(rotated.json().signingSecret).not.toBe(secret);
    expect(t.ctx.logs.text).not.toContain(secret);
    expect(t.ctx.logs.text).not.toContain(rotated.json().signingSecret);
  });

  it('accepts the four connector kinds; credentials are sealed and never returned', async () => {
    const orgId = await insertOrg(t.ctx);
    const bodies = [
      { name: 'PD', kind: 'pagerduty', config: { region: 'eu' }, credentials: { routingKey: 'R0UTINGKEYabcdefghijklmnopqrstuv' } },
      { name: 'OG', kind: 'opsgenie', config: { region: 'us', priority: 'P2' }, credentials: { apiKey: 'OPSGENIE-KEY-0123456789abcdef' } },
      { name: 'SN', kind: 'servicenow', config: { instanceUrl: 'https://acme.service-now.com' }, credentials: { username: 'svc', password: 'S3cret-Passw0rd!' } },
      { name: 'ADO', kind: 'azure-devops', config: { organizationUrl: 'https://dev.azure.com/acme', project: 'Ops' }, credentials: { personalAccessToken: 'PAT-0123456789abcdefghijklmnop' } },
    ];
    const secrets = ['R0UTINGKEYabcdefghijklmnopqrstuv', 'OPSGENIE-KEY-0123456789abcdef', 'S3cret-Passw0rd!', 'PAT-0123456789abcdefghijklmnop'];
    for (const b of bodies) {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, b);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ kind: b.kind, config: b.config, credentialsSet: true, url: null });
      expect(res.json()).not.toHaveProperty('signingSecret');
      expect(res.json()).not.toHaveProperty('credentials');
    }
    const list = await t.admin('GET', `/orgs/${orgId}/destinations`);
    const { rows } = await t.ctx.db.query('SELECT credentials_sealed FROM destinations WHERE org_id = $1', [orgId]);
    for (const s of secrets) {
      expect(list.body).not.toContain(s);
      expect(t.ctx.logs.text).not.toContain(s);
      expect(rows.map((r: any) => r.credentials_sealed).join()).not.toContain(s);
    }
    // Patching credentials replaces them, still never shown.
    const sn = list.json().find((d: any) => d.kind === 'servicenow');
    const p = await t.admin('PATCH', `/orgs/${orgId}/destinations/${sn.id}`, { credentials: { username: 'svc', password: 'N3w-Passw0rd!' } });
    expect(p.statusCode, p.body).toBe(200);
    expect(p.body).not.toContain('N3w-Passw0rd!');
    // Connector URL fields pass the same safety rules.
    for (const config of [
      { instanceUrl: 'http://acme.service-now.com' },
      { instanceUrl: 'https://10.1.2.3' },
      { instanceUrl: 'https://user:pw@acme.service-now.com' },
      { instanceUrl: 'https://metadata.internal' },
    ]) {
      const bad = await t.admin('POST', `/orgs/${orgId}/destinations`, { ...bodies[2], config });
      expect(bad.statusCode, JSON.stringify(config)).toBe(400);
      expect(bad.json().error.code).toBe('invalid_request');
    }
  });

  it('refuses unsafe webhook URLs at save time', async () => {
    const orgId = await insertOrg(t.ctx);
    const unsafe = [
      'http://hooks.example.com/x',
      'ftp://hooks.example.com/x',
      'https://user:pass@hooks.example.com/x',
      'https://localhost/x',
      'https://api.localhost/x',
      'https://db.internal/x',
      'https://printer.local/x',
      'https://intranet/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://172.16.0.1/x',
      'https://192.168.1.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/x',
      'https://0.0.0.0/x',
      'https://224.0.0.1/x',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://[::ffff:10.0.0.1]/x',
      'https://[64:ff9b::a9fe:a9fe]/x',
      'https://[2002:c0a8:0101::1]/x',
      'https://[fc00::1]/x',
      'https://[fd12:3456::1]/x',
      'https://[fe80::1]/x',
      'https://evil.example.com/x',
      'https://mixed.example.com/x',
      'not a url',
    ];
    for (const url of unsafe) {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, webhook({ url }));
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    for (const url of ['https://hooks.example.com/x', 'https://93.184.216.34/x', 'https://[2606:4700::1111]/x', 'https://[64:ff9b::5db8:d822]/x']) {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, webhook({ url }));
      expect(res.statusCode, url).toBe(201);
    }
  });

  it('enforces strict schemas and 404s for unknown or foreign ids', async () => {
    const orgId = await insertOrg(t.ctx);
    const bad: object[] = [
      {},
      webhook({ extra: 1 }),
      webhook({ kind: 'email' }),
      webhook({ name: '' }),
      webhook({ name: 5 }),
      webhook({ enabled: 'yes' }),
      webhook({ filter: { events: ['alert.deleted'] } }),
      webhook({ filter: { severities: ['warning'] } }),
      webhook({ filter: { colors: ['red'] } }),
      webhook({ url: undefined }),
      webhook({ credentials: { token: 'x' } }),
      webhook({ config: { a: 1 } }),
      { name: 'PD', kind: 'pagerduty', url: 'https://events.pagerduty.com' },
    ];
    for (const b of bad) {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, b);
      expect(res.statusCode, JSON.stringify(b)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    const d = (await t.admin('POST', `/orgs/${orgId}/destinations`, webhook())).json();
    const other = await insertOrg(t.ctx);
    expect((await t.admin('GET', `/orgs/${other}/destinations/${d.id}`)).statusCode).toBe(404);
    expect((await t.admin('PATCH', `/orgs/${other}/destinations/${d.id}`, { name: 'x' })).statusCode).toBe(404);
    expect((await t.admin('DELETE', `/orgs/${other}/destinations/${d.id}`)).statusCode).toBe(404);
    expect((await t.admin('POST', `/orgs/${other}/destinations/${d.id}/rotate-secret`)).statusCode).toBe(404);
    expect((await t.admin('GET', `/orgs/${orgId}/destinations/dst_nope`)).statusCode).toBe(404);
    expect((await t.admin('GET', `/orgs/org_nope/destinations`)).statusCode).toBe(404);
    expect((await t.admin('POST', `/orgs/org_nope/destinations`, webhook())).statusCode).toBe(404);
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${d.id}`, { kind: 'pagerduty' })).statusCode).toBe(400);
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${d.id}`, {})).statusCode).toBe(400);
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${d.id}`, { url: 'https://10.0.0.1/' })).statusCode).toBe(400);
  });

  it('updates name, url, filter and enabled; delete removes it', async () => {
    const orgId = await insertOrg(t.ctx);
    const d = (await t.admin('POST', `/orgs/${orgId}/destinations`, webhook({ filter: { events: ['alert.opened'] } }))).json();
    const p = await t.admin('PATCH', `/orgs/${orgId}/destinations/${d.id}`, {
      name: 'Renamed',
      url: 'https://other.example.com/h',
      enabled: false,
      filter: null,
    });
    expect(p.statusCode, p.body).toBe(200);
    expect(p.json()).toMatchObject({ name: 'Renamed', url: 'https://other.example.com/h', enabled: false, filter: null });
    expect(p.json()).not.toHaveProperty('signingSecret');
    expect((await t.admin('DELETE', `/orgs/${orgId}/destinations/${d.id}`)).statusCode).toBe(204);
    expect((await t.admin('GET', `/orgs/${orgId}/destinations/${d.id}`)).statusCode).toBe(404);
    expect((await t.admin('GET', `/orgs/${orgId}/destinations`)).json()).toEqual([]);
  });

  it('allows 20 destinations per organization; the 21st is 409 limit_exceeded', async () => {
    const orgId = await insertOrg(t.ctx);
    const results = await Promise.all(
      Array.from({ length: 22 }, (_, i) => t.admin('POST', `/orgs/${orgId}/destinations`, webhook({ name: `d${i}` }))),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(20);
    expect(codes.filter((c) => c === 409)).toHaveLength(2);
    const limited = results.find((r) => r.statusCode === 409)!;
    expect(limited.json().error.code).toBe('limit_exceeded');
    // Deleting one frees a slot.
    const first = results.find((r) => r.statusCode === 201)!.json();
    await t.admin('DELETE', `/orgs/${orgId}/destinations/${first.id}`);
    expect((await t.admin('POST', `/orgs/${orgId}/destinations`, webhook())).statusCode).toBe(201);
    expect((await t.admin('POST', `/orgs/${orgId}/destinations`, webhook())).statusCode).toBe(409);
  });
});

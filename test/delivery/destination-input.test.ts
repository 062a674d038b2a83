/**
 * Destination input rules: a webhook URL is stored as its WHATWG serialization; in every URL,
 * text a person could not have meant (CR/LF, white space, backslashes, a scheme without `//`) is refused; a
 * connector's config refuses keys the connector does not read, naming the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { insertOrg } from './support.js';

describe('destination input rules', () => {
  let t: TestApp;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp();
    setResolver(t.ctx, async () => [{ address: '93.184.216.34', family: 4 }]);
    orgId = await insertOrg(t.ctx);
  });
  afterAll(() => t.close());

  const storedUrl = async (id: string) => (await t.ctx.db.query<{ url: string }>('SELECT url FROM destinations WHERE id = $1', [id])).rows[0]!.url;

  it('stores and returns a webhook URL normalized', async () => {
    const cases: Array<[string, string]> = [
      ['HTTPS://Hooks.Example.COM:443/a/./b/../c', 'https://hooks.example.com/a/c'],
      ['https://hooks.example.com', 'https://hooks.example.com/'],
      ['https://hooks.example.com/caminho/é', 'https://hooks.example.com/caminho/%C3%A9'],
      ['https://bücher.example/hook?x=1', 'https://xn--bcher-kva.example/hook?x=1'],
      ['https://hooks.example.com:8443/x', 'https://hooks.example.com:8443/x'],
    ];
    for (const [typed, normalized] of cases) {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'hook', kind: 'webhook', url: typed });
      expect(res.statusCode, `${typed}: ${res.body}`).toBe(201);
      expect(res.json().url).toBe(normalized);
      expect(await storedUrl(res.json().id)).toBe(normalized);
      await t.admin('DELETE', `/orgs/${orgId}/destinations/${res.json().id}`);
    }
    const created = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'hook', kind: 'webhook', url: 'https://hooks.example.com/a' });
    const patched = await t.admin('PATCH', `/orgs/${orgId}/destinations/${created.json().id}`, { url: 'https://HOOKS.example.com/%7Euser/é' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().url).toBe('https://hooks.example.com/%7Euser/%C3%A9');
    expect(await storedUrl(created.json().id)).toBe('https://hooks.example.com/%7Euser/%C3%A9');
    await t.admin('DELETE', `/orgs/${orgId}/destinations/${created.json().id}`);
  });

  it('refuses URLs with CR, LF, tab, white space or backslashes, and a scheme without //', async () => {
    const refused: Array<[string, RegExp]> = [
      ['https:/hooks.example.com/x', /url must be an absolute https URL starting with https:\/\/ and the host/],
      ['https:hooks.example.com/x', /starting with https:\/\//],
      ['https:///hooks.example.com/x', /starting with https:\/\//],
      ['https://hooks.example.com/a\r\nX-Injected: 1', /url must not contain white space or control characters/],
      ['https://hooks.exa\nmple.com/x', /white space or control characters/],
      ['https://hooks.example.com/\tx', /white space or control characters/],
      [' https://hooks.example.com/x', /white space or control characters/],
      ['https://hooks.example.com/x\u00a0', /white space or control characters/],
      ['https://hooks.example.com/caminho com espaço', /white space or control characters/],
      ['https:\\\\hooks.example.com\\x', /url must not contain a backslash/],
      ['https://hooks.example.com\\@evil.example/x', /backslash/],
    ];
    for (const [url, message] of refused) {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'hook', kind: 'webhook', url });
      expect(res.statusCode, JSON.stringify(url)).toBe(400);
      expect(res.json().error.message, JSON.stringify(url)).toMatch(message);
    }
    const sn = await t.admin('POST', `/orgs/${orgId}/destinations`, {
      name: 'SN',
      kind: 'servicenow',
      config: { instanceUrl: 'https:/acme.service-now.com' },
      credentials: { username: 'u', password: 'p' },
    });
    expect(sn.statusCode).toBe(400);
    expect(sn.json().error.message).toMatch(/^config\.instanceUrl must be an absolute https URL starting with https:\/\//);
    const { rows } = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM destinations WHERE org_id = $1 AND deleted_at IS NULL', [orgId]);
    expect(rows[0]!.n).toBe(0);
  });

  it('connector URL fields pass the same text rules and are stored as typed (the connector appends its paths)', async () => {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, {
      name: 'SN',
      kind: 'servicenow',
      config: { instanceUrl: 'https://acme.service-now.com' },
      credentials: { username: 'u', password: 'p' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().config).toEqual({ instanceUrl: 'https://acme.service-now.com' });
    await t.admin('DELETE', `/orgs/${orgId}/destinations/${res.json().id}`);
  });

  it('refuses config keys the connector does not read, naming the key; known keys are accepted', async () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, string>, string]> = [
      ['pagerduty', { region: 'eu', regoin: 'us' }, { routingKey: '0123456789abcdef0123456789abcdef' }, 'config.regoin'],
      ['opsgenie', { priority: 'P2', team: 'ops' }, { apiKey: 'k' }, 'config.team'],
      ['jsm', { region: 'eu' }, { apiKey: 'k' }, 'config.region'],
      ['servicenow', { instanceUrl: 'https://acme.service-now.com', assignmentGroup: 'x' }, { username: 'u', password: 'p' }, 'config.assignmentGroup'],
      ['azure-devops', { organizationUrl: 'https://dev.azure.com/acme', project: 'Ops', areaPath: 'x' }, { personalAccessToken: 'pat' }, 'config.areaPath'],
    ];
    for (const [kind, config, credentials, key] of cases) {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: kind, kind, config, credentials });
      expect(res.statusCode, `${kind}: ${res.body}`).toBe(400);
      expect(res.json().error.message).toContain(`unknown field "${key}"`);
    }
    const ok = await t.admin('POST', `/orgs/${orgId}/destinations`, {
      name: 'og',
      kind: 'opsgenie',
      config: { region: 'eu', priority: 'P2', apiBaseUrl: 'https://api.eu.opsgenie.com' },
      credentials: { apiKey: 'k' },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    // A change of config is checked by the same rule.
    const patched = await t.admin('PATCH', `/orgs/${orgId}/destinations/${ok.json().id}`, { config: { region: 'eu', extra: true } });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().error.message).toContain('unknown field "config.extra"');
    await t.admin('DELETE', `/orgs/${orgId}/destinations/${ok.json().id}`);
  });
});

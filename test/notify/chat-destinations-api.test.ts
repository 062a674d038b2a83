/**
 * The teams and slack destination kinds through the admin API: the webhook URL is a credential
 * (sealed, shown masked, never whole in an answer or a log line), its accepted shapes, and the
 * refusals that say what to do (legacy Office 365 connectors, retired logic.azure.com URLs,
 * other hosts naming the accepted shapes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';
import { SlackFake, TeamsFake } from '../fakes/chat.js';

describe('chat destinations: the webhook URL is a secret with known shapes', () => {
  let t: TestApp;
  let orgId: string;
  const teams = new TeamsFake();
  const slack = new SlackFake();

  beforeAll(async () => {
    t = await createTestApp({ config: { destinationAllowlist: ['127.0.0.1'] } });
    await Promise.all([teams.start(), slack.start()]);
    orgId = (await createOrg(t)).id;
  });
  afterAll(async () => {
    await Promise.all([teams.stop(), slack.stop()]);
    await t.close();
  });

  const create = (kind: string, webhookUrl: string, extra: Record<string, unknown> = {}) =>
    t.admin('POST', `/orgs/${orgId}/destinations`, { name: `${kind} channel`, kind, credentials: { webhookUrl }, ...extra });

  it('stores the Teams URL sealed and answers it masked, never the signature', async () => {
    const res = await create('teams', teams.webhookUrl(), { config: { groupWaitSeconds: 45 } });
    expect(res.statusCode, res.body).toBe(201);
    const d = res.json();
    expect(d).toMatchObject({ kind: 'teams', config: { groupWaitSeconds: 45 }, credentialsSet: true, signatureScheme: null });
    expect(d.url).toBe(`${teams.url}/powerautomate/automations/direct/workflows/0123456789abcdef0123456789abcdef/triggers/manual/paths/invoke?sig=••••`);
    for (const answer of [res.body, (await t.admin('GET', `/orgs/${orgId}/destinations/${d.id}`)).body, (await t.admin('GET', `/orgs/${orgId}/destinations`)).body]) {
      expect(answer).not.toContain(teams.sig);
    }
    const { rows } = await t.ctx.db.query<{ url: string; credentials_sealed: string }>('SELECT url, credentials_sealed FROM destinations WHERE id = $1', [d.id]);
    expect(rows[0]!.credentials_sealed).not.toContain(teams.sig);
    expect(t.ctx.sealer.openJson<Record<string, string>>(rows[0]!.credentials_sealed)).toEqual({ webhookUrl: teams.webhookUrl() });
    // A change of config alone keeps the stored URL; a new URL replaces it, masked again.
    const patched = await t.admin('PATCH', `/orgs/${orgId}/destinations/${d.id}`, { config: { groupWaitSeconds: 10 } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().url).toBe(d.url);
    expect(t.ctx.logs.text).not.toContain(teams.sig);
  });

  it('stores the Slack URL sealed and shows the team and hook, not the secret', async () => {
    const res = await create('slack', slack.webhookUrl());
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().url).toBe(`${slack.url}/services/T0FAKE01/B0FAKE02/••••`);
    expect(res.body).not.toContain('fakeSecret0123456789abcd');
    expect(res.json().config).toEqual({});
  });

  it('refuses legacy connector and retired Power Automate URLs, saying how to create the workflow', async () => {
    const legacy = await create('teams', 'https://contoso.webhook.office.com/webhookb2/a@b/IncomingWebhook/0123456789abcdef0123456789abcdef/c');
    expect(legacy.statusCode).toBe(400);
    expect(legacy.json().error.code).toBe('invalid_request');
    expect(legacy.json().error.message).toMatch(/legacy Office 365 connector.*Workflows.*When a Teams webhook request is received/);
    const outlook = await create('teams', 'https://outlook.office.com/webhook/abc/IncomingWebhook/def/ghi');
    expect(outlook.json().error.message).toMatch(/legacy Office 365 connector/);
    const retired = await create('teams', 'https://prod-12.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sp=x&sv=1.0&sig=secretsig');
    expect(retired.statusCode).toBe(400);
    expect(retired.json().error.message).toMatch(/stopped working on 2025-11-30.*environment\.api\.powerplatform\.com/);
    expect(retired.body).not.toContain('secretsig');
  });

  it('refuses any other host with 400 naming the accepted shapes', async () => {
    const other = await create('teams', `https://example.com/powerautomate/automations/direct/workflows/0123456789abcdef0123456789abcdef/triggers/manual/paths/invoke?api-version=1&sig=s3cr3tsig`);
    expect(other.statusCode).toBe(400);
    expect(other.json().error.message).toMatch(/credentials\.webhookUrl must be a Teams Workflows webhook URL, https:\/\/<environment>\.environment\.api\.powerplatform\.com/);
    expect(other.body).not.toContain('s3cr3tsig');
    const slackOther = await create('slack', 'https://hooks.example.com/services/T0001/B0002/abcdefghijkl');
    expect(slackOther.statusCode).toBe(400);
    expect(slackOther.json().error.message).toMatch(/Slack incoming-webhook URL, https:\/\/hooks\.slack\.com\/services\//);
    const wrongPath = await create('slack', 'https://hooks.slack.com/workflows/T0001/A0002/123/abcdefghijkl');
    expect(wrongPath.statusCode).toBe(400);
    expect(wrongPath.json().error.message).toMatch(/hooks\.slack\.com\/services/);
    const plainHttp = await create('slack', 'http://hooks.slack.com/services/T0001/B0002/abcdefghijkl');
    expect(plainHttp.statusCode).toBe(400);
  });

  it('answers a Slack destination\'s interactivity Request URL built from the public address (VIGIA_BASE_URL), not the caller\'s; no connector inbound address for chat kinds', async () => {
    const s = await create('slack', slack.webhookUrl());
    const id = s.json().id;
    const expected = `https://vigia.example.test/api/inbound/v1/slack/${id}`;
    expect(s.json()).toMatchObject({ slackRequestUrl: expected, inbound: null });
    // Reached through a proxy under another name: still the configured public address.
    const viaProxy = await t.admin('GET', `/orgs/${orgId}/destinations/${id}`, undefined, { host: 'internal-lb:8080', 'x-forwarded-host': 'other.example.com', 'x-forwarded-proto': 'http' });
    expect(viaProxy.statusCode, viaProxy.body).toBe(200);
    expect(viaProxy.json().slackRequestUrl).toBe(expected);
    const listed = (await t.admin('GET', `/orgs/${orgId}/destinations`)).json().find((d: { id: string }) => d.id === id);
    expect(listed.slackRequestUrl).toBe(expected);
    // The door it names is Slack's: an unsigned post is refused there, not "no such route".
    expect((await t.app.inject({ method: 'POST', url: new URL(expected).pathname, payload: 'payload=%7B%7D', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).statusCode).toBe(401);

    const tm = (await create('teams', teams.webhookUrl())).json();
    expect(tm).toMatchObject({ slackRequestUrl: null, inbound: null });
    // The ITSM connectors' inbound address is not theirs: Teams and Slack have none to turn on.
    for (const d of [id, tm.id]) {
      const on = await t.admin('POST', `/orgs/${orgId}/destinations/${d}/inbound`);
      expect(on.statusCode).toBe(400);
      expect(on.json().error.message).toBe('only connector destinations have an inbound address');
    }
  });

  it('refuses the URL outside credentials, unknown fields and a bad group wait', async () => {
    const asUrl = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'x', kind: 'slack', url: slack.webhookUrl() });
    expect(asUrl.statusCode).toBe(400);
    expect(asUrl.json().error.message).toMatch(/credentials\.webhookUrl/);
    expect(asUrl.body).not.toContain('fakeSecret');
    expect((await create('slack', slack.webhookUrl(), { config: { channel: '#x' } })).json().error.message).toMatch(/unknown field "config.channel"/);
    expect((await create('slack', slack.webhookUrl(), { credentials: { webhookUrl: slack.webhookUrl(), token: 'x' } })).statusCode).toBe(400);
    const wait = await create('teams', teams.webhookUrl(), { config: { groupWaitSeconds: -1 } });
    expect(wait.statusCode).toBe(400);
    expect(wait.json().error.message).toMatch(/groupWaitSeconds/);
    expect((await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'x', kind: 'teams' })).json().error.message).toMatch(/credentials\.webhookUrl is required/);
  });
});

/**
 * Issue 35: one rule for every stored credential (docs/access.md, "Where credentials may go").
 * Reproduces the findings: an owner moved a connector's URL (ServiceNow instanceUrl, PagerDuty
 * restApiBaseUrl, Opsgenie/JSM apiBaseUrl, Azure DevOps organizationUrl) to a host of their own
 * without the credentials, and the stored ones followed (the Test action sent `Basic user:password`
 * there); an Eventhouse query URI was set without the credentials; a host without a DNS answer
 * was waved through. Now: a move needs the credentials again (400 naming them), hosts come from a
 * per-field table (400 naming the field and the hosts), and a host that does not resolve is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { tenantBody } from '../monitoring/support.js';
import { insertOrg } from './support.js';

const ROUTING_KEY = 'R0123456789abcdef0123456789abcde';
const SN = { username: 'vigia-svc', password: 'Sn0w-Passw0rd!' };
const NOWHERE = ['nowhere.service-now.com', 'nowhere.kusto.windows.net'];

describe('the credential rule on destinations and tenant connections', () => {
  let t: TestApp;
  let legit: TestReceiver;
  let attacker: TestReceiver;
  beforeAll(async () => {
    legit = await startReceiver();
    attacker = await startReceiver();
    t = await createTestApp({ config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 1500 } });
    setResolver(t.ctx, async (host) => {
      if (NOWHERE.includes(host)) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return [{ address: '93.184.216.34', family: 4 }];
    });
  });
  afterAll(async () => {
    await t.close();
    await legit.close();
    await attacker.close();
  });

  const create = (orgId: string, body: Record<string, unknown>) => t.admin('POST', `/orgs/${orgId}/destinations`, { name: String(body.kind), ...body });
  const patch = (orgId: string, id: string, body: Record<string, unknown>) => t.admin('PATCH', `/orgs/${orgId}/destinations/${id}`, body);

  it('ServiceNow: moving config.instanceUrl needs username and password again; the Test action never takes the stored ones elsewhere', async () => {
    const orgId = await insertOrg(t.ctx);
    const made = await create(orgId, { kind: 'servicenow', config: { instanceUrl: legit.origin }, credentials: SN });
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json().id;

    const moved = await patch(orgId, id, { config: { instanceUrl: attacker.origin } });
    expect(moved.statusCode, moved.body).toBe(400);
    expect(moved.json().error.message).toContain('credentials.username and credentials.password are required with a change of config.instanceUrl');
    expect((await t.admin('GET', `/orgs/${orgId}/destinations/${id}`)).json().config.instanceUrl).toBe(legit.origin);
    await t.admin('POST', `/orgs/${orgId}/destinations/${id}/test`);
    expect(attacker.requests).toHaveLength(0);
    const basic = `Basic ${Buffer.from(`${SN.username}:${SN.password}`).toString('base64')}`;
    expect(legit.requests.some((r) => r.headers.authorization === basic)).toBe(true);

    const withCredentials = await patch(orgId, id, { config: { instanceUrl: attacker.origin }, credentials: { username: 'other', password: 'New-Passw0rd!' } });
    expect(withCredentials.statusCode, withCredentials.body).toBe(200);
    // A change that leaves the address as it is needs nothing more.
    expect((await patch(orgId, id, { config: { instanceUrl: `${attacker.origin}/`, closeCode: 'Closed' } })).statusCode).toBe(200);
  });

  it('PagerDuty, Opsgenie, JSM and Azure DevOps: moving a URL field without its credential is 400 naming it; with it 200', async () => {
    const orgId = await insertOrg(t.ctx);
    const cases: Array<[string, Record<string, unknown>, Record<string, string>, string, string]> = [
      ['pagerduty', { apiBaseUrl: legit.origin, restApiBaseUrl: legit.origin }, { routingKey: ROUTING_KEY, restApiKey: 'pd-rest-key' }, 'restApiBaseUrl', 'credentials.restApiKey'],
      ['pagerduty', { apiBaseUrl: legit.origin }, { routingKey: ROUTING_KEY }, 'apiBaseUrl', 'credentials.routingKey'],
      ['opsgenie', { apiBaseUrl: legit.origin }, { apiKey: 'genie-key' }, 'apiBaseUrl', 'credentials.apiKey'],
      ['jsm', { apiBaseUrl: legit.origin }, { apiKey: 'jsm-key' }, 'apiBaseUrl', 'credentials.apiKey'],
      ['azure-devops', { organizationUrl: `${legit.origin}/acme`, project: 'Ops' }, { personalAccessToken: 'pat-value' }, 'organizationUrl', 'credentials.personalAccessToken'],
    ];
    for (const [kind, config, credentials, field, credential] of cases) {
      const made = await create(orgId, { kind, config, credentials });
      expect(made.statusCode, made.body).toBe(201);
      const id = made.json().id;
      const to = field === 'organizationUrl' ? `${attacker.origin}/acme` : attacker.origin;
      const moved = await patch(orgId, id, { config: { ...config, [field]: to } });
      expect(moved.statusCode, `${kind} ${field}`).toBe(400);
      expect(moved.json().error.message).toContain(`${credential} is required with a change of config.${field}`);
      const again = await patch(orgId, id, { config: { ...config, [field]: to }, credentials });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json().config[field]).toBe(to);
    }
    // The region moves the default host behind it: the credentials follow only when given again.
    const regional = await create(orgId, { kind: 'opsgenie', config: { region: 'us' }, credentials: { apiKey: 'genie-key' } });
    expect(regional.statusCode).toBe(201);
    const eu = await patch(orgId, regional.json().id, { config: { region: 'eu' } });
    expect(eu.statusCode).toBe(400);
    expect(eu.json().error.message).toContain('credentials.apiKey is required with a change of config.apiBaseUrl');
    expect((await patch(orgId, regional.json().id, { config: { region: 'eu' }, credentials: { apiKey: 'genie-key-eu' } })).statusCode).toBe(200);
    expect(attacker.requests).toHaveLength(0);
  });

  it('hosts come from the per-field table: off it is 400 naming the field and the hosts; the documented ones (EU too) are accepted', async () => {
    const orgId = await insertOrg(t.ctx);
    const refused: Array<[string, Record<string, unknown>, Record<string, string>, string]> = [
      ['pagerduty', { apiBaseUrl: 'https://events.pagerduty.com.example.net' }, { routingKey: ROUTING_KEY }, 'config.apiBaseUrl must be one of PagerDuty\'s Events API hosts (events.pagerduty.com, events.eu.pagerduty.com'],
      ['pagerduty', { restApiBaseUrl: 'https://api.pagerduty.com:8443' }, { routingKey: ROUTING_KEY, restApiKey: 'k' }, 'config.restApiBaseUrl must be one of PagerDuty\'s REST API hosts (api.pagerduty.com, api.eu.pagerduty.com'],
      ['opsgenie', { apiBaseUrl: 'https://opsgenie.example.com' }, { apiKey: 'k' }, 'config.apiBaseUrl must be one of Opsgenie\'s API hosts (api.opsgenie.com, api.eu.opsgenie.com'],
      ['jsm', { apiBaseUrl: 'https://api.atlassian.net' }, { apiKey: 'k' }, 'config.apiBaseUrl must be Atlassian\'s API host (api.atlassian.com'],
      ['azure-devops', { organizationUrl: 'https://dev.azure.com.example.org/acme', project: 'Ops' }, { personalAccessToken: 'p' }, 'config.organizationUrl must be an Azure DevOps host (dev.azure.com, *.visualstudio.com'],
      ['servicenow', { instanceUrl: 'https://servicenow.acme.example' }, SN, 'config.instanceUrl must be a ServiceNow instance host (*.service-now.com'],
    ];
    for (const [kind, config, credentials, message] of refused) {
      const res = await create(orgId, { kind, config, credentials });
      expect(res.statusCode, `${kind} ${JSON.stringify(config)}`).toBe(400);
      expect(res.json().error.message).toContain(message);
    }
    const accepted: Array<[string, Record<string, unknown>, Record<string, string>]> = [
      ['pagerduty', { region: 'eu', apiBaseUrl: 'https://events.eu.pagerduty.com', restApiBaseUrl: 'https://api.eu.pagerduty.com' }, { routingKey: ROUTING_KEY, restApiKey: 'k' }],
      ['opsgenie', { region: 'eu', apiBaseUrl: 'https://api.eu.opsgenie.com' }, { apiKey: 'k' }],
      ['jsm', { apiBaseUrl: 'https://api.atlassian.com' }, { apiKey: 'k' }],
      ['azure-devops', { organizationUrl: 'https://acme.visualstudio.com', project: 'Ops' }, { personalAccessToken: 'p' }],
      ['servicenow', { instanceUrl: 'https://acme.service-now.com' }, SN],
    ];
    for (const [kind, config, credentials] of accepted) {
      const res = await create(orgId, { kind, config, credentials });
      expect(res.statusCode, `${kind}: ${res.body}`).toBe(201);
    }
  });

  it('a host that does not resolve is refused, for a destination and for an Eventhouse query URI', async () => {
    const orgId = await insertOrg(t.ctx);
    const sn = await create(orgId, { kind: 'servicenow', config: { instanceUrl: 'https://nowhere.service-now.com' }, credentials: SN });
    expect(sn.statusCode).toBe(400);
    expect(sn.json().error.message).toContain('config.instanceUrl: the host nowhere.service-now.com does not resolve');
    const eventhouse = { queryUri: 'https://nowhere.kusto.windows.net', database: 'Db', table: 'CapacityEvents' };
    const tenant = await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody({ utilization: { eventhouse } }));
    expect(tenant.statusCode).toBe(400);
    expect(tenant.json().error.message).toContain('utilization.eventhouse.queryUri: the host nowhere.kusto.windows.net does not resolve');
  });

  it('the Eventhouse query URI: setting or moving it needs the credentials again; removing it or re-sending it does not', async () => {
    const orgId = await insertOrg(t.ctx);
    const id = (await t.admin('POST', `/orgs/${orgId}/tenants`, tenantBody())).json().id;
    const eventhouse = { queryUri: 'https://trd-own.z5.kusto.fabric.microsoft.com', database: 'Db', table: 'CapacityEvents' };
    const set = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { utilization: { eventhouse } });
    expect(set.statusCode).toBe(400);
    expect(set.json().error.message).toContain('credentials are required with a change of utilization.eventhouse.queryUri');
    const secret = { clientSecret: 'fresh-secret-value' };
    expect((await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { utilization: { eventhouse }, credentials: secret })).statusCode).toBe(200);
    const resent = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { utilization: { eventhouse, warnPercent: 70 } });
    expect(resent.statusCode, resent.body).toBe(200);
    const moved = await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { utilization: { eventhouse: { ...eventhouse, queryUri: 'https://attacker.westeurope.kusto.windows.net' } } });
    expect(moved.statusCode).toBe(400);
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${id}`)).json().utilization.eventhouse.queryUri).toBe(eventhouse.queryUri);
    expect((await t.admin('PATCH', `/orgs/${orgId}/tenants/${id}`, { utilization: { eventhouse: null } })).statusCode).toBe(200);
  });

  it('ServiceNow custom instance domain: only with the organization\'s allowance, which an owner gives with the credentials', async () => {
    const orgId = await insertOrg(t.ctx);
    const other = await insertOrg(t.ctx, 'Other');
    const config = { instanceUrl: 'https://itsm.acme.example' };
    const without = await create(orgId, { kind: 'servicenow', config, credentials: SN });
    expect(without.statusCode).toBe(400);
    expect(without.json().error.message).toContain('customInstanceDomain');
    const mismatch = await create(orgId, { kind: 'servicenow', config, credentials: SN, customInstanceDomain: 'other.acme.example' });
    expect(mismatch.statusCode).toBe(400);
    const allowed = await create(orgId, { kind: 'servicenow', config, credentials: SN, customInstanceDomain: 'itsm.acme.example' });
    expect(allowed.statusCode, allowed.body).toBe(201);
    const { rows } = await t.ctx.db.query('SELECT org_id, host FROM servicenow_instance_domains ORDER BY org_id');
    expect(rows).toEqual([{ org_id: orgId, host: 'itsm.acme.example' }]);
    // The organization's other ServiceNow destinations may use it; another organization may not.
    expect((await create(orgId, { kind: 'servicenow', config, credentials: SN })).statusCode).toBe(201);
    expect((await create(other, { kind: 'servicenow', config, credentials: SN })).statusCode).toBe(400);
    // The allowance goes with the credentials: a change that gives it alone is refused.
    const sn = (await create(orgId, { kind: 'servicenow', config: { instanceUrl: 'https://acme.service-now.com' }, credentials: SN })).json().id;
    const alone = await patch(orgId, sn, { config: { instanceUrl: 'https://desk.acme.example' }, customInstanceDomain: 'desk.acme.example' });
    expect(alone.statusCode).toBe(400);
    expect(alone.json().error.message).toContain('credentials.username and credentials.password are required');
    expect((await create(orgId, { kind: 'jsm', config: {}, credentials: { apiKey: 'k' }, customInstanceDomain: 'x.example' })).statusCode).toBe(400);
  });
});

// @engine-neutral: the tenant simulator alone, no database
/**
 * The tenant simulator behaves like the vendors towards a client: msal-node gets tokens from it
 * (secret and certificate), each API checks the token's audience, lists page like the vendor,
 * storms and documented caps answer 429 with the vendor's headers, strict mode catches a request
 * outside the published contract, and the same seed gives the same tenant.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfidentialClientApplication } from '@azure/msal-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { call, msalToken, SCOPES, startSim } from './helpers.js';

function makeAppCertificate(dir: string, name: string): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', key, '-out', cert], { stdio: 'pipe' });
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

/** msal-node signs PS256 with `x5t#S256` for a SHA-256 thumbprint, RS256 with `x5t` for a SHA-1 one. */
function certificateApp(sim: TenantSim, c: { cert: string; key: string }, sha1 = false) {
  const x509 = new X509Certificate(c.cert);
  const clientCertificate = sha1
    ? { thumbprint: x509.fingerprint.replace(/:/g, ''), privateKey: c.key }
    : { thumbprintSha256: x509.fingerprint256.replace(/:/g, ''), privateKey: c.key };
  return new ConfidentialClientApplication({
    auth: { clientId: sim.clientId, authority: `${sim.origin}/${sim.tenantId}`, clientCertificate, knownAuthorities: [new URL(sim.origin).host] },
  });
}

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe('tenant simulator: tokens', () => {
  let dir: string;
  let app: { cert: string; key: string };
  let sim: TenantSim;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigia-sim-'));
    app = makeAppCertificate(dir, 'vigia-app');
    sim = await startSim({ certificatePem: app.cert });
  });
  afterAll(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('msal-node gets a token with the client secret, and the API accepts it for its own audience only', async () => {
    const fabric = await msalToken(sim, SCOPES.fabric);
    expect((await call(sim, 'GET', '/v1/workspaces', { token: fabric })).status).toBe(200);
    const wrongAudience = await call(sim, 'GET', '/v1.0/myorg/groups', { token: fabric });
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.json.error.code).toBe('PowerBINotAuthorizedException');
    const arm = await call(sim, 'GET', `/subscriptions/${sim.state.settings.subscriptionId}/providers/Microsoft.Fabric/capacities?api-version=2023-11-01`, { token: fabric });
    expect(arm.json.error.code).toBe('InvalidAuthenticationTokenAudience');
    expect((await call(sim, 'GET', '/v1/workspaces')).status).toBe(401);
    await expect(msalToken(sim, SCOPES.fabric, 'not-the-secret')).rejects.toThrow(/invalid_client|7000215/);
    expect(sim.violations).toEqual([]);
  });

  it('msal-node gets a token with a certificate; another certificate is refused', async () => {
    const result = await certificateApp(sim, app).acquireTokenByClientCredential({ scopes: [SCOPES.powerbi] });
    expect((await call(sim, 'GET', '/v1.0/myorg/groups', { token: result!.accessToken })).status).toBe(200);
    const legacy = await certificateApp(sim, app, true).acquireTokenByClientCredential({ scopes: [SCOPES.fabric] });
    expect((await call(sim, 'GET', '/v1/workspaces', { token: legacy!.accessToken })).status).toBe(200);
    const stranger = makeAppCertificate(dir, 'stranger');
    await expect(certificateApp(sim, stranger).acquireTokenByClientCredential({ scopes: [SCOPES.powerbi] })).rejects.toThrow(/invalid_client|thumbprint/);
  });

  it('refuses tokens when told to (HTTP control), and gives them again', async () => {
    const on = await call(sim, 'POST', '/_sim/refuseTokens', { body: { on: true, kind: 'invalid_client' } });
    expect(on.status).toBe(200);
    await expect(msalToken(sim, SCOPES.arm)).rejects.toThrow(/invalid_client/);
    sim.control.refuseTokens({ on: false });
    expect(await msalToken(sim, SCOPES.arm)).toMatch(/\./);
  });

  it('answers each refusal on the wire as Entra ID does (status, OAuth error, AADSTS code), an outage with 503, throttling with 429 and Retry-After', async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: sim.clientId, client_secret: sim.clientSecret, scope: SCOPES.fabric }).toString();
    const ask = async () => {
      const res = await fetch(`${sim.origin}/${sim.tenantId}/oauth2/v2.0/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
      return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, any> };
    };
    const cases = [
      ['invalid_secret', 401, 'invalid_client', 7000215],
      ['expired_secret', 401, 'invalid_client', 7000222],
      ['certificate', 401, 'invalid_client', 700027],
      ['disabled', 400, 'unauthorized_client', 7000112],
      ['unknown_application', 400, 'unauthorized_client', 700016],
      ['tenant_not_found', 400, 'invalid_request', 90002],
      ['unavailable', 503, 'temporarily_unavailable', 90033],
    ] as const;
    for (const [kind, status, error, code] of cases) {
      expect((await call(sim, 'POST', '/_sim/refuseTokens', { body: { on: true, kind } })).status).toBe(200);
      const res = await ask();
      expect([kind, res.status, res.json.error, res.json.error_codes]).toEqual([kind, status, error, [code]]);
      expect(res.json.error_description).toMatch(new RegExp(`^AADSTS${code}: `));
      if (kind === 'unavailable') expect(res.headers.get('retry-after')).toBe('30');
    }
    expect((await call(sim, 'POST', '/_sim/refuseTokens', { body: { on: true, kind: 'nonsense' } })).status).toBe(400);
    sim.control.refuseTokens({ on: false });
    sim.control.throttle({ family: 'token', count: 1, retryAfterSeconds: 17 });
    const throttled = await ask();
    expect([throttled.status, throttled.headers.get('retry-after')]).toEqual([429, '17']);
    expect((await ask()).status).toBe(200);
    expect(sim.violations).toEqual([]);
  });
});

describe('tenant simulator: APIs', () => {
  let sim: TenantSim;
  let tokens: { fabric: string; powerbi: string; arm: string };
  beforeAll(async () => {
    sim = await startSim({ sizes: { workspaces: 250, capacities: 4, gateways: 3, membersPerGateway: 2, costDays: 40 }, costPageRows: 50, fabricAdminPageSize: 100 });
    tokens = { fabric: await msalToken(sim, SCOPES.fabric), powerbi: await msalToken(sim, SCOPES.powerbi), arm: await msalToken(sim, SCOPES.arm) };
  });
  afterAll(() => sim.stop());

  it('pages Fabric lists by continuationToken / continuationUri, absent on the last page', async () => {
    const ids: string[] = [];
    let next: string | undefined = '/v1/admin/workspaces';
    let pages = 0;
    while (next) {
      const page = await call(sim, 'GET', next, { token: tokens.fabric });
      expect(page.status).toBe(200);
      ids.push(...page.json.workspaces.map((w: { id: string }) => w.id));
      next = page.json.continuationUri;
      if (next) expect(page.json.continuationToken).toBeTruthy();
      pages++;
    }
    expect(pages).toBe(3);
    expect(new Set(ids).size).toBe(250);
    expect((await call(sim, 'GET', '/v1/workspaces?continuationToken=garbage', { token: tokens.fabric })).json.errorCode).toBe('InvalidContinuationToken');
  });

  it('pages Power BI admin groups by $top/$skip and requires $top', async () => {
    const first = await call(sim, 'GET', '/v1.0/myorg/admin/groups?$top=200', { token: tokens.powerbi });
    const second = await call(sim, 'GET', '/v1.0/myorg/admin/groups?$top=200&$skip=200', { token: tokens.powerbi });
    expect(first.json.value).toHaveLength(200);
    expect(second.json.value).toHaveLength(50);
    expect(sim.violations).toEqual([]);
    const missingTop = await call(sim, 'GET', '/v1.0/myorg/admin/groups', { token: tokens.powerbi });
    expect(missingTop.status).toBe(400);
    expect(sim.violations.pop()).toMatch(/query parameter \$top: required/);
  });

  it('Cost Management: POSTs the same body to nextLink, answers 204 when there is nothing, refuses more than 31 days', async () => {
    const scope = `/subscriptions/${sim.state.settings.subscriptionId}`;
    const body = {
      type: 'AmortizedCost',
      timeframe: 'Custom',
      timePeriod: { from: daysAgo(30), to: daysAgo(1) },
      dataset: { granularity: 'Daily', aggregation: { totalCost: { name: 'Cost', function: 'Sum' } }, grouping: [{ type: 'Dimension', name: 'ResourceId' }, { type: 'Dimension', name: 'Meter' }] },
    };
    let url: string | undefined = `${scope}/providers/Microsoft.CostManagement/query?api-version=2025-03-01`;
    const rows: unknown[][] = [];
    let pages = 0;
    while (url) {
      const page = await call(sim, 'POST', url, { token: tokens.arm, body });
      expect(page.status).toBe(200);
      rows.push(...page.json.properties.rows);
      url = page.json.properties.nextLink;
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(rows.every((r) => r[2] === String(r[2]).toLowerCase())).toBe(true);
    const expected = sim.state.costs.filter((c) => c.date >= daysAgo(30) && c.date <= daysAgo(1));
    expect(rows).toHaveLength(expected.length);
    const sum = rows.reduce((s, r) => s + (r[0] as number), 0);
    expect(sum).toBeCloseTo(expected.reduce((s, c) => s + c.amortized, 0), 4);

    const empty = await call(sim, 'POST', `${scope}/providers/Microsoft.CostManagement/query?api-version=2025-03-01`, { token: tokens.arm, body: { ...body, timePeriod: { from: daysAgo(400), to: daysAgo(390) } } });
    expect(empty.status).toBe(204);
    expect(empty.text).toBe('');
    const tooLong = await call(sim, 'POST', `${scope}/providers/Microsoft.CostManagement/query?api-version=2025-03-01`, { token: tokens.arm, body: { ...body, timePeriod: { from: daysAgo(40), to: daysAgo(1) } } });
    expect(tooLong.status).toBe(400);
    sim.control.costScopeForbidden({ scope, on: true });
    expect((await call(sim, 'POST', `${scope}/providers/Microsoft.CostManagement/query?api-version=2025-03-01`, { token: tokens.arm, body })).status).toBe(401);
    sim.control.costScopeForbidden({ scope, on: false });
    expect(sim.violations).toEqual([]);
  });

  it('a 429 storm answers with Retry-After (Cost Management: its x-ms-ratelimit headers) and then passes', async () => {
    sim.control.throttle({ family: 'fabric', count: 3, retryAfterSeconds: 7 });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call(sim, 'GET', '/v1/capacities', { token: tokens.fabric }));
    expect(answers.map((a) => a.status)).toEqual([429, 429, 429, 200]);
    expect(answers[0]!.headers.get('retry-after')).toBe('7');
    expect(answers[0]!.json).toMatchObject({ errorCode: 'RequestBlocked', isRetriable: true });
    expect(sim.countCalls({ family: 'fabric', throttled: true })).toBe(3);

    sim.control.throttle({ family: 'cost', count: 1, retryAfterSeconds: 9 });
    const cost = await call(sim, 'POST', `/subscriptions/${sim.state.settings.subscriptionId}/providers/Microsoft.CostManagement/query?api-version=2025-03-01`, {
      token: tokens.arm,
      body: { type: 'ActualCost', timeframe: 'MonthToDate', dataset: { granularity: 'Daily' } },
    });
    expect(cost.status).toBe(429);
    const waits = ['qpu', 'entity', 'tenant', 'clienttype'].map((w) => Number(cost.headers.get(`x-ms-ratelimit-microsoft.costmanagement-${w}-retry-after`)));
    expect(Math.max(...waits)).toBe(9);
  });

  it('strict mode records and refuses requests outside the contracts', async () => {
    const before = sim.violations.length;
    const unknown = await call(sim, 'GET', '/v1/workspaces/abc/notAnOperation', { token: tokens.fabric });
    expect(unknown.status).toBe(400);
    const badBody = await call(sim, 'POST', `/subscriptions/${sim.state.settings.subscriptionId}/providers/Microsoft.CostManagement/query?api-version=2025-03-01`, {
      token: tokens.arm,
      body: { type: 'Bogus', timeframe: 'MonthToDate', dataset: {} },
    });
    expect(badBody.status).toBe(400);
    const badVersion = await call(sim, 'GET', `/subscriptions/${sim.state.settings.subscriptionId}/providers/Microsoft.Fabric/capacities?api-version=2020-01-01`, { token: tokens.arm });
    expect(badVersion.status).toBe(400);
    const found = sim.violations.slice(before);
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/no vendor operation/);
    expect(found[1]).toMatch(/body\.type/);
    expect(found[2]).toMatch(/api-version must be 2023-11-01/);
    sim.violations.length = before;
  });

  it('control: a gateway goes offline (also through a long-running status check), admin APIs forbidden, membership removed', async () => {
    const g = sim.state.gateways[0]!;
    expect((await call(sim, 'POST', '/_sim/gatewayOffline', { body: { gatewayId: g.id } })).status).toBe(200);
    const status = await call(sim, 'POST', `/v1/gateways/${g.id}/checkStatus`, { token: tokens.fabric });
    expect(status.json.status).toBe('Offline');
    sim.control.gatewayOffline({ gatewayId: g.id, offline: false });
    sim.control.longRunningStatusChecks({ on: true });
    const accepted = await call(sim, 'POST', `/v1/gateways/${g.id}/members/${g.members[1]!.id}/checkStatus`, { token: tokens.fabric });
    expect(accepted.status).toBe(202);
    let location = accepted.headers.get('location')!;
    expect(accepted.headers.get('x-ms-operation-id')).toBeTruthy();
    let state = await call(sim, 'GET', location, { token: tokens.fabric });
    for (let i = 0; i < 5 && state.json.status !== 'Succeeded'; i++) state = await call(sim, 'GET', location, { token: tokens.fabric });
    expect(state.json.status).toBe('Succeeded');
    location = state.headers.get('location')!;
    expect((await call(sim, 'GET', location, { token: tokens.fabric })).json.status).toBe('Online');
    sim.control.longRunningStatusChecks({ on: false });

    sim.control.adminApisForbidden({ on: true });
    expect((await call(sim, 'GET', '/v1.0/myorg/admin/capacities', { token: tokens.powerbi })).status).toBe(401);
    expect((await call(sim, 'GET', '/v1/admin/workspaces', { token: tokens.fabric })).status).toBe(403);
    sim.control.adminApisForbidden({ on: false });

    const w = sim.state.workspaces[0]!;
    sim.control.workspaceMembership({ workspaceId: w.id, member: false });
    expect((await call(sim, 'GET', `/v1/workspaces/${w.id}/items`, { token: tokens.fabric })).status).toBe(403);
    sim.control.workspaceMembership({ workspaceId: w.id, member: true });

    expect((await call(sim, 'POST', '/_sim/capacityState', { body: { capacityId: 'nope', state: 'Suspended' } })).status).toBe(400);
    sim.control.capacityState({ capacityId: sim.state.capacities[0]!.id, state: 'Paused' });
    const arm = await call(sim, 'GET', `/subscriptions/${sim.state.settings.subscriptionId}/providers/Microsoft.Fabric/capacities?api-version=2023-11-01`, { token: tokens.arm });
    expect(arm.json.value[0].properties.state).toBe('Paused');
    const fabric = await call(sim, 'GET', `/v1/capacities/${sim.state.capacities[0]!.id}`, { token: tokens.fabric });
    expect(fabric.json.state).toBe('Inactive');
    // Each service spells the same capacity id in its own case.
    expect(fabric.json.id).toBe(sim.state.capacities[0]!.id.toLowerCase());
    const pbi = await call(sim, 'GET', '/v1.0/myorg/admin/capacities', { token: tokens.powerbi });
    expect(pbi.json.value[0]).toMatchObject({ id: sim.state.capacities[0]!.id.toUpperCase(), state: 'Suspended' });
    expect(sim.violations).toEqual([]);
  });

  it('a gateway whose members are all offline is offline in Fabric and Power BI; one member offline is a member incident only', async () => {
    const g = sim.state.gateways[1]!;
    sim.control.memberOffline({ gatewayId: g.id, memberId: g.members[0]!.id });
    const member = await call(sim, 'POST', `/v1/gateways/${g.id}/members/${g.members[0]!.id}/checkStatus`, { token: tokens.fabric });
    expect(member.json).toMatchObject({ status: 'Offline', errorDetails: [{ errorCode: 'GatewayMemberNotReachable' }] });
    expect((await call(sim, 'POST', `/v1/gateways/${g.id}/checkStatus`, { token: tokens.fabric })).json.status).toBe('Online');
    sim.control.memberOffline({ gatewayId: g.id, memberId: g.members[1]!.id });
    expect((await call(sim, 'POST', `/v1/gateways/${g.id}/checkStatus`, { token: tokens.fabric })).json.status).toBe('Offline');
    expect((await call(sim, 'GET', `/v1.0/myorg/gateways/${g.id}`, { token: tokens.powerbi })).json.gatewayStatus).toBe('NotReachable');
    sim.control.gatewayUpgradeRequired({ gatewayId: g.id });
    expect((await call(sim, 'POST', `/v1/gateways/${g.id}/checkStatus`, { token: tokens.fabric })).json.gatewayUpgradeState).toBe('UpgradeRequired');
    for (const m of g.members) sim.control.memberOffline({ gatewayId: g.id, memberId: m.id, offline: false });
    sim.control.gatewayUpgradeRequired({ gatewayId: g.id, on: false });
    expect((await call(sim, 'GET', `/v1.0/myorg/gateways/${g.id}`, { token: tokens.powerbi })).json.gatewayStatus).toBe('Live');
    expect(sim.violations).toEqual([]);
  });

  it('workload endpoints: refresh history, job instances, mirroring, data sources follow the control', async () => {
    const w = sim.state.workspaces.find((x) => x.items.some((i) => i.type === 'MirroredDatabase'))!;
    const model = w.items.find((i) => i.type === 'SemanticModel')!;
    sim.control.refreshResult({ datasetId: model.id, status: 'Failed', errorCode: 'ModelRefresh_ShortMessage_ProcessingError' });
    const history = await call(sim, 'GET', `/v1.0/myorg/groups/${w.id}/datasets/${model.id}/refreshes?$top=5`, { token: tokens.powerbi });
    expect(history.json.value[0].status).toBe('Failed');
    expect(JSON.parse(history.json.value[0].serviceExceptionJson).errorCode).toBe('ModelRefresh_ShortMessage_ProcessingError');
    expect((await call(sim, 'GET', `/v1.0/myorg/groups/${w.id}/datasets/${model.id}/refreshSchedule`, { token: tokens.powerbi })).json.enabled).toBe(true);
    expect((await call(sim, 'GET', `/v1/workspaces/${w.id}/semanticModels`, { token: tokens.fabric })).json.value[0].id).toBe(model.id);

    const mirror = w.items.find((i) => i.type === 'MirroredDatabase')!;
    sim.control.mirroringStatus({ itemId: mirror.id, table: 'table_2', tableStatus: 'Failed' });
    const tables = await call(sim, 'POST', `/v1/workspaces/${w.id}/mirroredDatabases/${mirror.id}/getTablesMirroringStatus`, { token: tokens.fabric });
    expect(tables.json.data.find((t: { sourceTableName: string }) => t.sourceTableName === 'table_2')).toMatchObject({ status: 'Failed', error: { errorCode: 'SourceTableNotAccessible' } });
    expect((await call(sim, 'POST', `/v1/workspaces/${w.id}/mirroredDatabases/${mirror.id}/getMirroringStatus`, { token: tokens.fabric })).json.status).toBe('Running');

    const pw = sim.state.workspaces.find((x) => x.items.some((i) => i.type === 'DataPipeline'))!;
    const pipeline = pw.items.find((i) => i.type === 'DataPipeline')!;
    sim.control.jobResult({ itemId: pipeline.id, status: 'Failed' });
    const jobs = await call(sim, 'GET', `/v1/workspaces/${pw.id}/items/${pipeline.id}/jobs/instances`, { token: tokens.fabric });
    expect(jobs.json.value[0]).toMatchObject({ status: 'Failed', failureReason: { errorCode: 'JobInstanceStatusFailed' } });
    const one = await call(sim, 'GET', `/v1/workspaces/${pw.id}/items/${pipeline.id}/jobs/instances/${jobs.json.value[0].id}`, { token: tokens.fabric });
    expect(one.json.status).toBe('Failed');

    const g = sim.state.gateways[2]!;
    const ds = g.datasources[0]!;
    expect((await call(sim, 'GET', `/v1.0/myorg/gateways/${g.id}/datasources/${ds.id}/status`, { token: tokens.powerbi })).status).toBe(200);
    sim.control.datasourceReachable({ datasourceId: ds.id, reachable: false });
    const failing = await call(sim, 'GET', `/v1.0/myorg/gateways/${g.id}/datasources/${ds.id}/status`, { token: tokens.powerbi });
    expect(failing.status).toBe(400);
    expect(failing.json.error.code).toBe('DM_GWPipeline_Gateway_DataSourceAccessError');
    expect((await call(sim, 'GET', `/v1.0/myorg/gateways/${g.id}/datasources`, { token: tokens.powerbi })).json.value).toHaveLength(2);
    expect((await call(sim, 'GET', '/v1/connections', { token: tokens.fabric })).json.value.length).toBeGreaterThan(0);
    expect(sim.violations).toEqual([]);
  });

  it('huge and garbage answers when told to', async () => {
    sim.control.hugeResponse({ target: '/v1/connections', bytes: 3_000_000 });
    const huge = await call(sim, 'GET', '/v1/connections', { token: tokens.fabric });
    expect(huge.text.length).toBeGreaterThan(3_000_000);
    sim.control.hugeResponse({ target: '/v1/connections', bytes: null });
    sim.control.garbageResponse({ path: '/v1/gateways', on: true });
    const garbage = await call(sim, 'GET', '/v1/gateways', { token: tokens.fabric });
    expect(garbage.status).toBe(200);
    expect(() => JSON.parse(garbage.text)).toThrow();
    sim.control.reset();
    expect((await call(sim, 'GET', '/v1/gateways', { token: tokens.fabric })).json.value).toHaveLength(3);
  });
});

describe('tenant simulator: documented caps', () => {
  it('Power BI admin groups: the 51st call within an hour is 429, the next hour it passes', async () => {
    let clock = Date.parse('2026-03-01T12:00:00Z');
    const sim = await startSim({ now: () => clock, sizes: { workspaces: 5 }, tokenLifetimeSeconds: 86_400 });
    try {
      const token = await msalToken(sim, SCOPES.powerbi);
      for (let i = 0; i < 50; i++) {
        clock += 1000;
        expect((await call(sim, 'GET', '/v1.0/myorg/admin/groups?$top=10', { token })).status).toBe(200);
      }
      const refused = await call(sim, 'GET', '/v1.0/myorg/admin/groups?$top=10', { token });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
      expect(sim.requests.at(-1)?.throttleReason).toBe('cap:powerbi-admin-groups');
      clock += 3_600_000;
      expect((await call(sim, 'GET', '/v1.0/myorg/admin/groups?$top=10', { token })).status).toBe(200);
      expect(sim.countCalls({ family: 'powerbi-admin', throttled: true })).toBe(1);
    } finally {
      await sim.stop();
    }
  });
});

describe('tenant simulator: ARM read bucket', () => {
  it('250 reads at once pass, the next is 429 until the bucket refills at 25 per second', async () => {
    let clock = Date.parse('2026-03-01T12:00:00Z');
    const sim = await startSim({ now: () => clock, sizes: { capacities: 2 } });
    try {
      const token = await msalToken(sim, SCOPES.arm);
      const url = `/subscriptions/${sim.state.settings.subscriptionId}/providers/Microsoft.Fabric/capacities?api-version=2023-11-01`;
      for (let i = 0; i < 250; i++) expect((await call(sim, 'GET', url, { token })).status).toBe(200);
      const refused = await call(sim, 'GET', url, { token });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.json.error.code).toBe('TooManyRequests');
      clock += 1000;
      for (let i = 0; i < 25; i++) expect((await call(sim, 'GET', url, { token })).status).toBe(200);
      expect((await call(sim, 'GET', url, { token })).status).toBe(429);
      expect(sim.requests.filter((r) => r.throttled).map((r) => r.throttleReason)).toEqual(['arm-bucket', 'arm-bucket']);
    } finally {
      await sim.stop();
    }
  });
});

describe('tenant simulator: its own answers', () => {
  it('strict mode flags an answer outside the response schema', async () => {
    const sim = await startSim({ sizes: { capacities: 1, workspaces: 1 } });
    try {
      const token = await msalToken(sim, SCOPES.fabric);
      sim.state.capacities[0]!.region = 'Atlantis';
      sim.state.workspaces[0]!.capacityId = sim.state.capacities[0]!.id;
      expect((await call(sim, 'GET', '/v1/workspaces', { token })).status).toBe(200);
      expect(sim.violations).toHaveLength(1);
      expect(sim.violations[0]).toMatch(/simulator answered out of contract: response.value\[0\].capacityRegion/);
    } finally {
      await sim.stop();
    }
  });
});

describe('tenant simulator: chaos', () => {
  it('changes gateway, member or capacity state by itself', async () => {
    const sim = await startSim({ chaos: { everySeconds: 0.05 } });
    try {
      const before = JSON.stringify([sim.state.gateways, sim.state.capacities]);
      const deadline = Date.now() + 10_000;
      while (JSON.stringify([sim.state.gateways, sim.state.capacities]) === before && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(JSON.stringify([sim.state.gateways, sim.state.capacities])).not.toBe(before);
    } finally {
      await sim.stop();
    }
  });
});

describe('tenant simulator: generation', () => {
  it('is deterministic by seed', async () => {
    const now = () => Date.parse('2026-03-01T12:00:00Z');
    const [a, b, c] = await Promise.all([startSim({ seed: 7, now }), startSim({ seed: 7, now }), startSim({ seed: 8, now })]);
    try {
      expect(a.state).toEqual(b.state);
      expect(a.tenantId).toBe(b.tenantId);
      expect(c.state.gateways[0]!.id).not.toBe(a.state.gateways[0]!.id);
    } finally {
      await Promise.all([a.stop(), b.stop(), c.stop()]);
    }
  });
});

/**
 * The on-call loop (issue 28): acknowledgements, un-acknowledgements and resolutions made in
 * PagerDuty, Opsgenie, ServiceNow and Azure DevOps come back over real HTTPS to the inbound
 * address, shaped and authenticated as each tool sends them. The incidents are first delivered
 * to the vendor fakes by the real dispatcher, so matching uses the references deliveries stored.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher } from '../../src/delivery/dispatcher.js';
import { clearAzureDevOpsStateCache } from '../../src/delivery/connectors/azure-devops.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createApiKey, createOrg, openAlert, resolveAlert } from '../helpers/fixtures.js';
import { until } from '../delivery/support.js';
import { certFiles } from '../fakes/fake-server.js';
import { PagerDutyFake } from '../fakes/pagerduty.js';
import { OpsgenieFake } from '../fakes/opsgenie.js';
import { ServiceNowFake } from '../fakes/servicenow.js';
import { AzureDevOpsFake } from '../fakes/azure-devops.js';

const T0 = '2026-06-15T12:00:00.000Z';
const ROUTING_KEY = 'INB0UNDKEY0123456789abcdefABCDEF';
const PD_REST_KEY = 'pd-rest-api-key-u+Ht0ken';
const GENIE_KEY = 'genie-inbound-key-0123456789';
const SN_PASSWORD = 'sn-inbound-password-42';
const PAT = 'ado-inbound-pat-0123456789abcdef';
const PD_SUBSCRIPTION_SECRET = 'pd-subscription-secret-AAAA1111BBBB2222';
const ADO_EXAMPLE = JSON.parse(readFileSync(new URL('../fakes/payloads/azure-devops-workitem.updated.json', import.meta.url), 'utf8').replace(/^\uFEFF/, ''));

interface Answer {
  status: number;
  json: any;
  text: string;
}

describe('inbound events from the ITSM tools', () => {
  let t: TestApp;
  let clock: ManualClock;
  let server: Server;
  let base: string;
  const pd = new PagerDutyFake(ROUTING_KEY);
  const og = new OpsgenieFake(GENIE_KEY);
  const sn = new ServiceNowFake('vigia', SN_PASSWORD);
  const ado = new AzureDevOpsFake('acme', PAT, 'Scrum');
  const fakes = [pd, og, sn, ado];
  pd.restApiKeys.add(PD_REST_KEY);

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 1500 } });
    await Promise.all(fakes.map((f) => f.start()));
    const files = certFiles();
    server = createServer({ cert: readFileSync(files.cert), key: readFileSync(files.key) }, (req, res) => t.app.routing(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `https://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    clock.set(T0);
    clearAzureDevOpsStateCache();
    for (const f of fakes) expect(f.violations).toEqual([]);
    for (const s of [PD_REST_KEY, PD_SUBSCRIPTION_SECRET, SN_PASSWORD, PAT, GENIE_KEY]) expect(t.ctx.logs.text).not.toContain(s);
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await Promise.all(fakes.map((f) => f.stop()));
    await t.close();
  });

  /** A real HTTPS POST to the inbound address. */
  function post(destinationId: string, body: string, headers: Record<string, string>): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        `${base}/api/inbound/v1/destinations/${destinationId}`,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode!, json, text });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async function destination(orgId: string, kind: string, config: Record<string, unknown>, credentials: Record<string, string>): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: kind, kind, config, credentials });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }
  const pdDest = (orgId: string, rest = false) =>
    destination(orgId, 'pagerduty', { region: 'us', apiBaseUrl: pd.url, ...(rest ? { restApiBaseUrl: pd.url } : {}) }, { routingKey: ROUTING_KEY, ...(rest ? { restApiKey: PD_REST_KEY } : {}) });
  const ogDest = (orgId: string) => destination(orgId, 'opsgenie', { region: 'us', apiBaseUrl: og.url }, { apiKey: GENIE_KEY });
  const snDest = (orgId: string) => destination(orgId, 'servicenow', { instanceUrl: sn.url }, { username: 'vigia', password: SN_PASSWORD });
  const adoDest = (orgId: string) => destination(orgId, 'azure-devops', { organizationUrl: ado.organizationUrl, project: 'Dados' }, { personalAccessToken: PAT });

  async function enableInbound(orgId: string, destId: string): Promise<{ url: string; secret: string }> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations/${destId}/inbound`);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }

  /** Runs the dispatcher until every delivery to these destinations has ended. */
  async function deliver(destIds: string[]): Promise<void> {
    const worker = await startDispatcher(t.ctx);
    try {
      await until(async () => {
        const { rows } = await t.ctx.db.query<{ status: string }>('SELECT status FROM deliveries WHERE destination_id = ANY($1::text[]) AND NOT test', [destIds]);
        return rows.length > 0 && rows.every((r) => ['succeeded', 'failed', 'abandoned'].includes(r.status));
      }, 30_000, 'deliveries to end');
    } finally {
      await worker.stop();
    }
  }

  async function alert(orgId: string, alertId: string) {
    const res = await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`);
    expect(res.statusCode).toBe(200);
    return res.json();
  }

  async function deliveriesOf(destId: string, alertId: string): Promise<string[]> {
    const { rows } = await t.ctx.db.query<{ event: string }>('SELECT event FROM deliveries WHERE destination_id = $1 AND alert_id = $2 AND NOT test ORDER BY event_seq', [destId, alertId]);
    return rows.map((r) => r.event);
  }

  async function inboundView(orgId: string, destId: string) {
    return (await t.admin('GET', `/orgs/${orgId}/destinations/${destId}`)).json().inbound;
  }

  const iso = (offsetMs: number) => new Date(clock.now().getTime() + offsetMs).toISOString();
  let seq = 0;

  /** A PagerDuty V3 webhook body (developer docs, "Webhooks v3 overview"), as PagerDuty sends it. */
  function pdEvent(type: string, incidentId: string, incidentKey: string | null, at = iso(-30_000)) {
    const id = `01${String(++seq).padStart(10, '0')}EVT`;
    return {
      id,
      body: JSON.stringify({
        event: {
          id,
          event_type: type,
          resource_type: 'incident',
          occurred_at: at,
          agent: { html_url: 'https://acme.pagerduty.com/users/PLH1HKV', id: 'PLH1HKV', self: 'https://api.pagerduty.com/users/PLH1HKV', summary: 'Tenex Engineer', type: 'user_reference' },
          client: null,
          data: {
            id: incidentId,
            type: 'incident',
            self: `https://api.pagerduty.com/incidents/${incidentId}`,
            html_url: `https://acme.pagerduty.com/incidents/${incidentId}`,
            number: 2,
            status: type === 'incident.resolved' ? 'resolved' : type === 'incident.acknowledged' ? 'acknowledged' : 'triggered',
            incident_key: incidentKey,
            created_at: iso(-600_000),
            title: 'Gateway offline',
            service: { id: 'PF9KMXH', type: 'service_reference', summary: 'Vigia' },
            assignees: [{ id: 'PTUXL6G', type: 'user_reference', summary: 'Tenex Engineer' }],
            escalation_policy: { id: 'PUS0KTE', type: 'escalation_policy_reference', summary: 'Default' },
            teams: [],
            priority: null,
            urgency: 'high',
            conference_bridge: null,
            resolve_reason: null,
          },
        },
      }),
    };
  }
  const sign = (secret: string, body: string) => `v1=${createHmac('sha256', secret).update(body).digest('hex')}`;

  it('turns the address on, shows it on the destination, and refuses webhooks', async () => {
    const org = await createOrg(t);
    const pdId = await pdDest(org.id);
    expect(await inboundView(org.id, pdId)).toEqual({ url: `https://vigia.example.test/api/inbound/v1/destinations/${pdId}`, enabled: false, lastEventAt: null, applied: 0, ignored: 0, refused: 0, lastRefusal: null });
    const on = await enableInbound(org.id, pdId);
    expect(on.url).toBe(`https://vigia.example.test/api/inbound/v1/destinations/${pdId}`);
    expect(on.secret).toMatch(/^vgin_[0-9A-Za-z]{40}$/);
    expect((await inboundView(org.id, pdId)).enabled).toBe(true);
    // The secret is shown once: never in a view, and the audit entry has no secret.
    expect((await t.admin('GET', `/orgs/${org.id}/destinations/${pdId}`)).body).not.toContain(on.secret);
    const put = await t.admin('PUT', `/orgs/${org.id}/destinations/${pdId}/inbound`, { secret: PD_SUBSCRIPTION_SECRET });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.body).not.toContain(PD_SUBSCRIPTION_SECRET);
    const { rows: audit } = await t.ctx.db.query<{ action: string; changes: unknown }>("SELECT action, changes FROM audit_log WHERE org_id = $1 AND action LIKE 'destinations.inbound%' ORDER BY action", [org.id]);
    expect(audit.map((a) => a.action)).toEqual(['destinations.inbound', 'destinations.inbound.put']);
    expect(JSON.stringify(audit)).not.toContain(PD_SUBSCRIPTION_SECRET);
    const hook = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'w', kind: 'webhook', url: 'https://127.0.0.1:9/' });
    const refused = await t.admin('POST', `/orgs/${org.id}/destinations/${hook.json().id}/inbound`);
    expect(refused.statusCode).toBe(400);
    expect(hook.json().inbound).toBeNull();
  });

  it('PagerDuty: acknowledge, un-acknowledge and resolve come back signed; no echo to PagerDuty, the other destination hears', async () => {
    const org = await createOrg(t);
    const pdId = await pdDest(org.id);
    const ogId = await ogDest(org.id);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-pd-1', title: 'Gateway gw-pd-1 offline' });
    await deliver([pdId, ogId]);
    await enableInbound(org.id, pdId);
    await t.admin('PUT', `/orgs/${org.id}/destinations/${pdId}/inbound`, { secret: PD_SUBSCRIPTION_SECRET });
    const incident = pd.alerts.get(alertId)!.incidentId;

    clock.advance(120_000);
    const ack = pdEvent('incident.acknowledged', incident, alertId);
    // Two signatures (PagerDuty rotating its secret): one matching is enough.
    const res = await post(pdId, ack.body, { 'x-pagerduty-signature': `v1=${'0'.repeat(64)},${sign(PD_SUBSCRIPTION_SECRET, ack.body)}`, 'x-webhook-id': ack.id });
    expect(res.status, res.text).toBe(202);
    expect(res.json).toEqual({ status: 'applied' });
    const acked = await alert(org.id, alertId);
    expect(acked).toMatchObject({ acknowledged: true, acknowledgedAt: iso(-30_000), acknowledgedBy: 'Tenex Engineer' });
    // The lifecycle event goes to Opsgenie, never back to PagerDuty.
    expect(await deliveriesOf(pdId, alertId)).toEqual(['alert.opened']);
    expect(await deliveriesOf(ogId, alertId)).toEqual(['alert.opened', 'alert.acknowledged']);

    // The same webhook again (PagerDuty's at-least-once retry): applied once.
    const again = await post(pdId, ack.body, { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, ack.body), 'x-webhook-id': ack.id });
    expect(again.json).toEqual({ status: 'ignored', reason: 'event already received' });

    clock.advance(60_000);
    const unack = pdEvent('incident.unacknowledged', incident, alertId);
    expect((await post(pdId, unack.body, { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, unack.body), 'x-webhook-id': unack.id })).json).toEqual({ status: 'applied' });
    expect(await alert(org.id, alertId)).toMatchObject({ acknowledged: false, acknowledgedAt: null, acknowledgedBy: null });

    clock.advance(60_000);
    const resolve = pdEvent('incident.resolved', incident, alertId);
    expect((await post(pdId, resolve.body, { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, resolve.body), 'x-webhook-id': resolve.id })).json).toEqual({ status: 'applied' });
    expect(await alert(org.id, alertId)).toMatchObject({ status: 'resolved', resolvedAt: iso(-30_000) });
    expect(await deliveriesOf(pdId, alertId)).toEqual(['alert.opened']);
    expect(await deliveriesOf(ogId, alertId)).toEqual(['alert.opened', 'alert.acknowledged', 'alert.recovered']);

    // The audit log names the tool and the person, no e-mail address.
    const { rows: audit } = await t.ctx.db.query<any>("SELECT actor_kind, actor_id, actor_label, action, target FROM audit_log WHERE org_id = $1 AND actor_kind = 'integration' ORDER BY at, id", [org.id]);
    expect(audit.map((a) => [a.actor_kind, a.actor_id, a.actor_label, a.action, a.target])).toEqual([
      ['integration', pdId, 'PagerDuty: Tenex Engineer', 'alerts.acknowledge', alertId],
      ['integration', pdId, 'PagerDuty: Tenex Engineer', 'alerts.unacknowledge', alertId],
      ['integration', pdId, 'PagerDuty: Tenex Engineer', 'alerts.resolve', alertId],
    ]);
    expect(await inboundView(org.id, pdId)).toMatchObject({ applied: 3, ignored: 1, refused: 0, lastEventAt: clock.now().toISOString() });
  });

  it('PagerDuty: wrong or missing signature and unknown destination get the same 401; stale, unknown incident and poison are 2xx', async () => {
    const org = await createOrg(t);
    const pdId = await pdDest(org.id);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-pd-2' });
    await deliver([pdId]);
    await enableInbound(org.id, pdId);
    await t.admin('PUT', `/orgs/${org.id}/destinations/${pdId}/inbound`, { secret: PD_SUBSCRIPTION_SECRET });
    const incident = pd.alerts.get(alertId)!.incidentId;
    const ack = pdEvent('incident.acknowledged', incident, alertId);

    const wrong = await post(pdId, ack.body, { 'x-pagerduty-signature': sign('not-the-secret-0000000000', ack.body) });
    const missing = await post(pdId, ack.body, {});
    const unknown = await post('dst_does_not_exist', ack.body, { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, ack.body) });
    const tampered = await post(pdId, ack.body.replace('Tenex', 'Mallory'), { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, ack.body) });
    for (const r of [wrong, missing, unknown, tampered]) {
      expect(r.status).toBe(401);
      expect(r.text).toBe(wrong.text);
    }
    expect((await alert(org.id, alertId)).acknowledged).toBe(false);
    // The refusals are counted after the answer (so a known and an unknown destination answer alike).
    await until(async () => (await inboundView(org.id, pdId)).refused === 3, 5_000, 'refusals counted');
    expect(await inboundView(org.id, pdId)).toMatchObject({ refused: 3, lastRefusal: 'authentication failed (signature or secret does not match)' });

    // Stale (older than any tool retries): refused but answered 2xx, so PagerDuty does not disable the subscription.
    const stale = pdEvent('incident.acknowledged', incident, alertId, iso(-73 * 3_600_000));
    const staleRes = await post(pdId, stale.body, { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, stale.body) });
    expect(staleRes.status).toBe(202);
    expect(staleRes.json.status).toBe('refused');
    // Malformed JSON and a ping: 2xx, nothing changes.
    const poison = '{"event": {';
    expect((await post(pdId, poison, { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, poison) })).status).toBe(202);
    const ping = JSON.stringify({ event: { id: 'PING1', event_type: 'pagey.ping', resource_type: 'pagey', occurred_at: iso(0), agent: null, client: null, data: { message: 'Hello from your friend Pagey!', type: 'ping' } } });
    expect((await post(pdId, ping, { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, ping) })).json.status).toBe('ignored');
    // An incident Vigia did not open: 2xx, ignored.
    const foreign = pdEvent('incident.acknowledged', 'Q999999', 'someone-elses-key');
    expect((await post(pdId, foreign.body, { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, foreign.body) })).json.status).toBe('ignored');
    // A body over the limit is refused before any work.
    const huge = JSON.stringify({ pad: 'x'.repeat(600 * 1024) });
    expect((await post(pdId, huge, { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, huge) })).status).toBe(413);
    expect((await alert(org.id, alertId)).acknowledged).toBe(false);
    expect(await inboundView(org.id, pdId)).toMatchObject({ applied: 0, ignored: 2, refused: 5 });
  });

  it('PagerDuty with a REST API key: a grouped incident resolves every Vigia alert in it (alert_key), not what incident_key says', async () => {
    const org = await createOrg(t);
    const pdId = await pdDest(org.id, true);
    const a = await openAlert(t, org.id, { sourceId: 'gw-grp-a' });
    const b = await openAlert(t, org.id, { sourceId: 'gw-grp-b' });
    await deliver([pdId]);
    await enableInbound(org.id, pdId);
    await t.admin('PUT', `/orgs/${org.id}/destinations/${pdId}/inbound`, { secret: PD_SUBSCRIPTION_SECRET });
    const incident = pd.alerts.get(a)!.incidentId;
    pd.groupInto(incident, b);
    // Incidents with child alerts have no incident key.
    const ev = pdEvent('incident.resolved', incident, null);
    expect((await post(pdId, ev.body, { 'x-pagerduty-signature': sign(PD_SUBSCRIPTION_SECRET, ev.body) })).json).toEqual({ status: 'applied' });
    expect((await alert(org.id, a)).status).toBe('resolved');
    expect((await alert(org.id, b)).status).toBe('resolved');
    expect(pd.requests.some((r) => r.path === `/incidents/${incident}/alerts` && r.headers.authorization === `Token token=${PD_REST_KEY}`)).toBe(true);
  });

  it('secret rotation: the previous secret works for the overlap, then no longer; DELETE turns the address off', async () => {
    const org = await createOrg(t);
    const ogId = await ogDest(org.id);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-rot' });
    await deliver([ogId]);
    const first = await enableInbound(org.id, ogId);
    const second = await enableInbound(org.id, ogId);
    expect(second.secret).not.toBe(first.secret);
    const genie = og.byAlias(alertId)!;
    const body = (action: string, updatedAtNs: bigint) =>
      JSON.stringify({ action, alert: { alertId: genie.id, alias: alertId, tinyId: '7', message: genie.message, tags: ['Vigia'], source: 'Vigia', username: 'ops@acme.example', userId: 'u-1', createdAt: Date.parse(T0), updatedAt: updatedAtNs.toString() }, source: { name: 'web', type: 'web' }, integrationId: 'int-1', integrationName: 'Vigia' });
    const ns = (offsetMs: number) => BigInt(clock.now().getTime() + offsetMs) * 1_000_000n;
    expect((await post(ogId, body('AddNote', ns(-5_000)), { 'x-vigia-token': first.secret })).json).toMatchObject({ status: 'ignored' });
    expect((await post(ogId, body('AddNote', ns(-4_000)), { 'x-vigia-token': second.secret })).json).toMatchObject({ status: 'ignored' });
    clock.advance(25 * 60 * 60_000);
    expect((await post(ogId, body('AddNote', ns(-3_000)), { 'x-vigia-token': first.secret })).status).toBe(401);
    expect((await post(ogId, body('Acknowledge', ns(-2_000)), { authorization: `Bearer ${second.secret}` })).json).toEqual({ status: 'applied' });
    // An e-mail address as the Opsgenie user name is not stored: the tool is named instead.
    expect(await alert(org.id, alertId)).toMatchObject({ acknowledged: true, acknowledgedBy: 'Opsgenie' });
    expect((await t.admin('DELETE', `/orgs/${org.id}/destinations/${ogId}/inbound`)).statusCode).toBe(204);
    expect((await post(ogId, body('Close', ns(-1_000)), { 'x-vigia-token': second.secret })).status).toBe(401);
    expect((await inboundView(org.id, ogId)).enabled).toBe(false);
  });

  it('Opsgenie: acknowledge, un-acknowledge, close; an acknowledge older than the close changes nothing; malformed is 400', async () => {
    const org = await createOrg(t);
    const ogId = await ogDest(org.id);
    const pdId = await pdDest(org.id);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-og' });
    await deliver([ogId, pdId]);
    const { secret } = await enableInbound(org.id, ogId);
    clock.advance(120_000);
    const genie = og.byAlias(alertId)!;
    const ns = (offsetMs: number) => (BigInt(clock.now().getTime() + offsetMs) * 1_000_000n + 123_456n).toString();
    const send = (action: string, updatedAt: string) =>
      post(ogId, JSON.stringify({ action, alert: { alertId: genie.id, alias: alertId, tinyId: '8', message: genie.message, tags: ['Vigia'], source: 'Vigia', username: 'Ana Lima', userId: 'u-2', createdAt: Date.parse(T0), updatedAt }, source: { name: '', type: 'mobile' }, integrationId: 'int-2', integrationName: 'Vigia' }), { 'x-vigia-token': secret });
    const ackAt = ns(-50_000);
    expect((await send('Acknowledge', ackAt)).json).toEqual({ status: 'applied' });
    expect(await alert(org.id, alertId)).toMatchObject({ acknowledged: true, acknowledgedBy: 'Ana Lima', acknowledgedAt: iso(-50_000) });
    // The public API's MTTA counts the tool's acknowledgement at the tool's time (opened at T0, acknowledged 70 s later).
    const { key } = await createApiKey(t, org.id, ['ReadMetrics']);
    const metrics = await t.app.inject({ method: 'GET', url: '/api/public/v1/alerts/metrics?from=2026-06-15&to=2026-06-15', headers: { 'x-api-key': key } });
    expect(metrics.statusCode, metrics.body).toBe(200);
    expect(metrics.json()).toMatchObject({ totals: { incidents: 1, acknowledged: 1 }, mtta: { medianSeconds: 70, samples: 1 } });
    expect((await send('UnAcknowledge', ns(-40_000))).json).toEqual({ status: 'applied' });
    expect((await alert(org.id, alertId)).acknowledged).toBe(false);
    expect((await send('Close', ns(-10_000))).json).toEqual({ status: 'applied' });
    // Out of order: an acknowledge made before the close arrives after it.
    expect((await send('Acknowledge', ns(-20_000))).json.status).toBe('ignored');
    expect(await alert(org.id, alertId)).toMatchObject({ status: 'resolved', acknowledged: false });
    expect(await deliveriesOf(ogId, alertId)).toEqual(['alert.opened']);
    expect(await deliveriesOf(pdId, alertId)).toEqual(['alert.opened', 'alert.acknowledged', 'alert.recovered']);
    const bad = await post(ogId, '{"action": 1}', { 'x-vigia-token': secret });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/alert action data/);
  });

  it('ServiceNow: the business rule body with basic auth acknowledges, un-acknowledges and resolves; a foreign sys_id does not match', async () => {
    const org = await createOrg(t);
    const snId = await snDest(org.id);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-sn' });
    await deliver([snId]);
    const { secret } = await enableInbound(org.id, snId);
    clock.advance(120_000);
    const [inc] = sn.byCorrelation(alertId);
    const basic = `Basic ${Buffer.from(`servicenow:${secret}`).toString('base64')}`;
    let mod = 3;
    const update = (state: string, previous: string, offsetMs: number, sysId = inc!.sys_id) =>
      post(snId, JSON.stringify({
        sys_id: sysId, number: inc!.number, correlation_id: alertId, state, previous_state: previous,
        assigned_to: 'Bruno Souza', updated_by_name: 'Bruno Souza', resolved_by: state === '6' ? 'Bruno Souza' : '', resolved_at: '',
        close_code: '', close_notes: '', sys_updated_by: 'bruno.souza', sys_updated_on: iso(offsetMs).replace('T', ' ').slice(0, 19), sys_mod_count: String(++mod),
      }), { authorization: basic });
    expect((await update('2', '1', -60_000, 'ffffffffffffffffffffffffffffffff')).json.status).toBe('ignored');
    expect((await update('2', '1', -50_000)).json).toEqual({ status: 'applied' });
    expect(await alert(org.id, alertId)).toMatchObject({ acknowledged: true, acknowledgedBy: 'Bruno Souza', acknowledgedAt: iso(-50_000) });
    expect((await update('1', '2', -40_000)).json).toEqual({ status: 'applied' });
    expect((await alert(org.id, alertId)).acknowledged).toBe(false);
    expect((await update('6', '1', -30_000)).json).toEqual({ status: 'applied' });
    expect((await alert(org.id, alertId)).status).toBe('resolved');
    expect(await deliveriesOf(snId, alertId)).toEqual(['alert.opened']);
  });

  it('Azure DevOps: workitem.updated (the vendor example, with a real work item) acknowledges, un-acknowledges and resolves', async () => {
    const org = await createOrg(t);
    const adoId = await adoDest(org.id);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-ado' });
    await deliver([adoId]);
    const { secret } = await enableInbound(org.id, adoId);
    const [item] = ado.byTag(`vigia-alert-${alertId}`);
    let notification = 100;
    const update = (from: string, to: string, offsetMs: number) => {
      const ev = structuredClone(ADO_EXAMPLE);
      ev.subscriptionId = '9b8c7d6e-0000-4000-8000-000000000001';
      ev.notificationId = ++notification;
      ev.id = `27646e0e-b520-4d2b-9411-${String(notification).padStart(12, '0')}`;
      ev.createdDate = iso(offsetMs);
      ev.resource.workItemId = item!.id;
      ev.resource.revisedBy = { id: 'd6245f20-2af8-44f4-9451-8107cb2767db', displayName: 'Carla Dias', uniqueName: 'carla@acme.example' };
      ev.resource.fields['System.State'] = { oldValue: from, newValue: to };
      ev.resource.fields['System.ChangedDate'] = { oldValue: iso(offsetMs - 1000), newValue: iso(offsetMs) };
      ev.resource.revision.id = item!.id;
      ev.resource.revision.fields['System.WorkItemType'] = 'Task';
      ev.resource.revision.fields['System.Tags'] = `Vigia; vigia-alert-${alertId}`;
      return post(adoId, JSON.stringify(ev), { authorization: `Basic ${Buffer.from(`vigia:${secret}`).toString('base64')}` });
    };
    expect((await update('To Do', 'In Progress', -50_000)).json).toEqual({ status: 'applied' });
    expect(await alert(org.id, alertId)).toMatchObject({ acknowledged: true, acknowledgedBy: 'Carla Dias' });
    expect((await update('In Progress', 'To Do', -40_000)).json).toEqual({ status: 'applied' });
    expect((await alert(org.id, alertId)).acknowledged).toBe(false);
    expect((await update('To Do', 'Done', -30_000)).json).toEqual({ status: 'applied' });
    expect((await alert(org.id, alertId)).status).toBe('resolved');
    // A poison event (not JSON) from Azure DevOps: 2xx so the hook is not put on probation.
    expect((await post(adoId, 'not json', { authorization: `Basic ${Buffer.from(`vigia:${secret}`).toString('base64')}` })).status).toBe(202);
    expect(await deliveriesOf(adoId, alertId)).toEqual(['alert.opened']);
  });

  it('a resolution in Vigia after a tool acknowledgement still goes to the tool (only the tool\'s own change is not echoed)', async () => {
    const org = await createOrg(t);
    const ogId = await ogDest(org.id);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-mix' });
    await deliver([ogId]);
    const { secret } = await enableInbound(org.id, ogId);
    const genie = og.byAlias(alertId)!;
    const updatedAt = (BigInt(clock.now().getTime() - 5_000) * 1_000_000n).toString();
    await post(ogId, JSON.stringify({ action: 'Acknowledge', alert: { alertId: genie.id, alias: alertId, username: 'Ana Lima', updatedAt }, source: { type: 'web' } }), { 'x-vigia-token': secret });
    await resolveAlert(t, org.id, alertId);
    expect(await deliveriesOf(ogId, alertId)).toEqual(['alert.opened', 'alert.recovered']);
  });
  it('a flood of failed authentications from one address is limited (429) without writes; the right secret still gets through', async () => {
    const org = await createOrg(t);
    const ogId = await ogDest(org.id);
    const { secret } = await enableInbound(org.id, ogId);
    clock.advance(7 * 24 * 60 * 60_000); // a minute window of its own
    const body = JSON.stringify({ action: 'AddNote', alert: { alertId: 'x', alias: 'y', updatedAt: String(clock.now().getTime() * 1_000_000) } });
    const answers: number[] = [];
    for (let i = 0; i < 21; i++) answers.push((await post(ogId, body, { 'x-vigia-token': `wrong-${i}` })).status);
    expect(answers.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(answers[20]).toBe(429);
    const blocked = await post(ogId, body, { 'x-vigia-token': 'wrong-again' });
    expect(blocked.status).toBe(429);
    expect(blocked.json.error.code).toBe('rate_limited');
    // The tool posts from addresses others can post from too: its own events are never refused.
    expect((await post(ogId, body, { 'x-vigia-token': secret })).status).toBe(202);
    // Failures beyond the limit are not written: 20 refusals counted, not 22.
    await until(async () => (await inboundView(org.id, ogId)).refused >= 20, 5_000, 'refusals counted');
    expect((await inboundView(org.id, ogId)).refused).toBe(20);
  });
  it('PagerDuty: Vigia creates the webhook subscription with the REST API key and stores its secret; events signed with it apply', async () => {
    const org = await createOrg(t);
    const pdId = await pdDest(org.id, true);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-sub' });
    await deliver([pdId]);
    const res = await t.admin('POST', `/orgs/${org.id}/destinations/${pdId}/inbound/pagerduty-subscription`, { serviceId: 'PF9KMXH' });
    expect(res.statusCode, res.body).toBe(201);
    const sub = pd.subscriptions.at(-1)!;
    expect(res.json()).toEqual({ subscriptionId: sub.id, url: `https://vigia.example.test/api/inbound/v1/destinations/${pdId}` });
    expect(sub).toMatchObject({ url: res.json().url, events: ['incident.acknowledged', 'incident.unacknowledged', 'incident.resolved'], filter: { type: 'service_reference', id: 'PF9KMXH' } });
    expect(res.body).not.toContain(sub.secret);
    expect((await inboundView(org.id, pdId)).enabled).toBe(true);
    clock.advance(120_000);
    const ack = pdEvent('incident.acknowledged', pd.alerts.get(alertId)!.incidentId, alertId);
    expect((await post(pdId, ack.body, { 'x-pagerduty-signature': sign(sub.secret, ack.body), 'x-webhook-id': ack.id })).json).toEqual({ status: 'applied' });
    // Without a REST API key it says what is missing.
    const plain = await pdDest(org.id);
    const refused = await t.admin('POST', `/orgs/${org.id}/destinations/${plain}/inbound/pagerduty-subscription`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toMatch(/credentials\.restApiKey/);
  });
  it('Azure DevOps: Vigia creates the service hook with the PAT; its basic-auth secret authenticates the work item updates', async () => {
    const org = await createOrg(t);
    const adoId = await adoDest(org.id);
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-hook' });
    await deliver([adoId]);
    const res = await t.admin('POST', `/orgs/${org.id}/destinations/${adoId}/inbound/azure-devops-hook`);
    expect(res.statusCode, res.body).toBe(201);
    const hook = ado.hooks.at(-1)!;
    expect(res.json()).toEqual({ subscriptionId: hook.id, url: `https://vigia.example.test/api/inbound/v1/destinations/${adoId}` });
    expect(hook.publisherInputs).toMatchObject({ projectId: ado.projectId('Dados'), workItemType: 'Task', changedFields: 'System.State' });
    expect(hook.consumerInputs).toMatchObject({ url: res.json().url, basicAuthUsername: 'vigia' });
    expect(res.body).not.toContain(hook.consumerInputs.basicAuthPassword);
    clock.advance(120_000);
    const [item] = ado.byTag(`vigia-alert-${alertId}`);
    const ev = structuredClone(ADO_EXAMPLE);
    ev.notificationId = 501;
    ev.resource.workItemId = item!.id;
    ev.resource.revisedBy = { displayName: 'Carla Dias' };
    ev.resource.fields['System.State'] = { oldValue: 'To Do', newValue: 'Done' };
    ev.resource.fields['System.ChangedDate'] = { oldValue: iso(-20_000), newValue: iso(-10_000) };
    ev.resource.revision.id = item!.id;
    const auth = `Basic ${Buffer.from(`${hook.consumerInputs.basicAuthUsername}:${hook.consumerInputs.basicAuthPassword}`).toString('base64')}`;
    expect((await post(adoId, JSON.stringify(ev), { authorization: auth })).json).toEqual({ status: 'applied' });
    expect((await alert(org.id, alertId)).status).toBe('resolved');
  });
});

/**
 * What the connectors plan without a vendor fake: region endpoints, auth headers and texts.
 * `send` here is a recording stand-in for the pipeline's guarded client (the seam's own type).
 */
import { describe, expect, it } from 'vitest';
import { getConnector, connectors } from '../../src/delivery/connectors/index.js';
import type { OutboundRequest, Send } from '../../src/delivery/connectors/types.js';
import { texts } from '../../src/delivery/connectors/texts.js';
import { truncate } from '../../src/delivery/connectors/shared.js';
import { body, sampleAlert } from './helpers.js';

function recorder(status = 202, responseBody = '{}'): { send: Send; sent: OutboundRequest[] } {
  const sent: OutboundRequest[] = [];
  return { sent, send: async (r) => (sent.push(r), { statusCode: status, headers: { 'content-type': 'application/json' }, body: responseBody }) };
}

const d = (config: Record<string, unknown>, credentials: Record<string, string>, event = 'alert.opened' as const) => ({
  body: body(event, sampleAlert()),
  destination: { id: 'x', config, credentials },
  ref: null,
  attempt: 1,
  previousOutcomeUnknown: false,
});

describe('connector planning', () => {
  it('registers the five ITSM kinds and the two chat kinds, and nothing else', () => {
    expect(Object.keys(connectors).sort()).toEqual(['azure-devops', 'jsm', 'opsgenie', 'pagerduty', 'servicenow', 'slack', 'teams']);
    expect(getConnector('webhook')).toBeUndefined();
    expect(getConnector('toString')).toBeUndefined();
  });

  it('PagerDuty: us/eu default endpoints', async () => {
    const r = recorder();
    await getConnector('pagerduty')!.deliver(d({ region: 'eu' }, { routingKey: 'k'.repeat(32) }), r.send);
    await getConnector('pagerduty')!.deliver(d({}, { routingKey: 'k'.repeat(32) }), r.send);
    expect(r.sent.map((s) => s.url)).toEqual(['https://events.eu.pagerduty.com/v2/enqueue', 'https://events.pagerduty.com/v2/enqueue']);
  });

  it('Opsgenie: us/eu default endpoints and GenieKey auth; default priority by severity', async () => {
    const r = recorder();
    await getConnector('opsgenie')!.deliver(d({ region: 'eu' }, { apiKey: 'abc' }), r.send);
    await getConnector('opsgenie')!.deliver(d({ region: 'us' }, { apiKey: 'abc' }), r.send);
    expect(r.sent.map((s) => s.url)).toEqual(['https://api.eu.opsgenie.com/v2/alerts', 'https://api.opsgenie.com/v2/alerts']);
    expect(r.sent[0]!.headers.authorization).toBe('GenieKey abc');
    expect(JSON.parse(r.sent[0]!.body!).priority).toBe('P3');
  });

  it('Jira Service Management: api.atlassian.com by default, the same body as Opsgenie under /jsm/ops/integration', async () => {
    const j = recorder();
    const o = recorder();
    const delivery = d({ priority: 'P2' }, { apiKey: 'abc' }, 'alert.opened');
    await getConnector('jsm')!.deliver(delivery, j.send);
    await getConnector('opsgenie')!.deliver(delivery, o.send);
    await getConnector('jsm')!.deliver(d({ apiBaseUrl: 'https://gw.example.com/' }, { apiKey: 'abc' }), j.send);
    expect(j.sent.map((s) => s.url)).toEqual([
      'https://api.atlassian.com/jsm/ops/integration/v2/alerts',
      'https://gw.example.com/jsm/ops/integration/v2/alerts',
    ]);
    expect(j.sent[0]!.headers.authorization).toBe('GenieKey abc');
    expect(j.sent[0]!.body).toBe(o.sent[0]!.body);
    expect(JSON.parse(j.sent[0]!.body!).priority).toBe('P2');
  });

  it('ServiceNow and Azure DevOps: Basic auth (Azure: empty user, PAT as password)', async () => {
    const sn = recorder(201, '{"result":{"sys_id":"0123456789abcdef0123456789abcdef","number":"INC0000001"}}');
    const r1 = await getConnector('servicenow')!.deliver(d({ instanceUrl: 'https://acme.service-now.com/' }, { username: 'u', password: 'p' }), sn.send);
    expect(r1).toMatchObject({ outcome: 'succeeded', ref: { sysId: '0123456789abcdef0123456789abcdef', number: 'INC0000001' } });
    expect(sn.sent[0]!.url).toBe('https://acme.service-now.com/api/now/table/incident');
    expect(sn.sent[0]!.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    const ado = recorder(200, '{"id":7}');
    await getConnector('azure-devops')!.deliver(d({ organizationUrl: 'https://dev.azure.com/acme', project: 'My Project' }, { personalAccessToken: 'tok' }), ado.send);
    expect(ado.sent[0]!.url).toBe('https://dev.azure.com/acme/My%20Project/_apis/wit/workitems/$Task?api-version=7.1');
    expect(ado.sent[0]!.headers.authorization).toBe(`Basic ${Buffer.from(':tok').toString('base64')}`);
  });

  it('texts are Portuguese and truncation never splits a surrogate pair', () => {
    const a = sampleAlert();
    expect(texts.recovered(a)).toMatch(/resolvido/);
    expect(texts.escalated(a)).toMatch(/ESCALADO/);
    expect(texts.testCloseFailed('x', 'INC1')).toMatch(/feche manualmente/);
    const cut = truncate('a'.repeat(9) + '😀😀', 11);
    expect(cut.endsWith('…')).toBe(true);
    expect(/[\uD800-\uDBFF]…$/.test(cut)).toBe(false);
    expect(cut.length).toBeLessThanOrEqual(11);
  });
});

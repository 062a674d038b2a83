import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runConnectorTest } from '../../src/delivery/connectors/test-action.js';
import { getConnector } from '../../src/delivery/connectors/index.js';
import { ServiceNowFake } from '../fakes/servicenow.js';
import { AzureDevOpsFake } from '../fakes/azure-devops.js';
import { PagerDutyFake } from '../fakes/pagerduty.js';
import { OpsgenieFake } from '../fakes/opsgenie.js';
import { undiciSend } from './helpers.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const send = undiciSend(500);
const sn = new ServiceNowFake('vigia', 'pw-123456');
const ado = new AzureDevOpsFake('acme', 'pat-abcdef-123456');
const pd = new PagerDutyFake('R0UT1NGKEY0123456789abcdefABCDEF');
const og = new OpsgenieFake('genie-key-123456');

beforeAll(async () => {
  await Promise.all([sn.start(), ado.start(), pd.start(), og.start()]);
});
afterAll(async () => {
  await Promise.all([sn.stop(), ado.stop(), pd.stop(), og.stop()]);
  await send.agent.close();
});
afterEach(() => {
  for (const f of [sn, ado, pd, og]) expect(f.violations).toEqual([]);
});

const snDest = () => ({ id: 'dst_sn', config: { instanceUrl: sn.url }, credentials: { username: 'vigia', password: 'pw-123456' } });

describe('connector test action', () => {
  it('opens and closes a sample incident (ServiceNow)', async () => {
    const r = await runConnectorTest(getConnector('servicenow')!, snDest(), send, NOW);
    expect(r).toMatchObject({ ok: true, manualCloseRequired: false, steps: [{ action: 'open', ok: true, statusCode: 201 }, { action: 'close', ok: true, statusCode: 200 }] });
    expect(r.message).toMatch(/aberto e fechado/);
    const inc = sn.incidents.at(-1)!;
    expect(inc.state).toBe('6');
    expect(inc.short_description).toMatch(/^\[TESTE Vigia\]/);
  });

  it('when the close fails: manualCloseRequired and a Portuguese message asking to close by hand', async () => {
    sn.failNext(5, { kind: 'reply', reply: { status: 503, body: 'down' } }, (r) => r.method === 'PATCH');
    const r = await runConnectorTest(getConnector('servicenow')!, snDest(), send, NOW);
    expect(r.ok).toBe(false);
    expect(r.manualCloseRequired).toBe(true);
    expect(r.steps).toEqual([
      { action: 'open', ok: true, statusCode: 201 },
      { action: 'close', ok: false, statusCode: 503, error: expect.any(String) },
    ]);
    const inc = sn.incidents.at(-1)!;
    expect(inc.state).toBe('1');
    expect(r.message).toMatch(/feche manualmente/);
    expect(r.message).toContain(inc.number);
  });

  it('when the open fails nothing needs closing', async () => {
    const r = await runConnectorTest(getConnector('servicenow')!, { ...snDest(), credentials: { username: 'vigia', password: 'nope-nope' } }, send, NOW);
    expect(r).toMatchObject({ ok: false, manualCloseRequired: false, steps: [{ action: 'open', ok: false, statusCode: 401 }] });
    expect(r.message).toMatch(/não foi possível abrir/);
    expect(JSON.stringify(r)).not.toContain('nope-nope');
  });

  it('a close that times out also asks for a manual close', async () => {
    ado.failNext(1, { kind: 'delay', ms: 2000 }, (r) => r.method === 'PATCH');
    const r = await runConnectorTest(getConnector('azure-devops')!, { id: 'd', config: { organizationUrl: ado.organizationUrl, project: 'Ops' }, credentials: { personalAccessToken: 'pat-abcdef-123456' } }, send, NOW);
    expect(r).toMatchObject({ ok: false, manualCloseRequired: true, steps: [{ action: 'open', ok: true }, { action: 'close', ok: false }] });
    expect(r.message).toMatch(/feche manualmente/);
  });

  it('works for Azure DevOps, PagerDuty and Opsgenie', async () => {
    const a = await runConnectorTest(getConnector('azure-devops')!, { id: 'd', config: { organizationUrl: ado.organizationUrl, project: 'Ops' }, credentials: { personalAccessToken: 'pat-abcdef-123456' } }, send, NOW);
    expect(a.ok).toBe(true);
    expect(ado.workItems.at(-1)!.fields['System.State']).toBe('Closed');
    const p = await runConnectorTest(getConnector('pagerduty')!, { id: 'd', config: { apiBaseUrl: pd.url }, credentials: { routingKey: 'R0UT1NGKEY0123456789abcdefABCDEF' } }, send, NOW);
    expect(p.ok).toBe(true);
    expect([...pd.alerts.values()].at(-1)!.status).toBe('resolved');
    const o = await runConnectorTest(getConnector('opsgenie')!, { id: 'd', config: { apiBaseUrl: og.url }, credentials: { apiKey: 'genie-key-123456' } }, send, NOW);
    expect(o.ok).toBe(true);
    expect(og.alerts.at(-1)!.status).toBe('closed');
  });
});

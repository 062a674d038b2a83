/** The fakes themselves catch what the vendor would refuse (so "zero violations" means something). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagerDutyFake } from '../fakes/pagerduty.js';
import { OpsgenieFake } from '../fakes/opsgenie.js';
import { JsmFake } from '../fakes/jsm.js';
import { ServiceNowFake } from '../fakes/servicenow.js';
import { AzureDevOpsFake } from '../fakes/azure-devops.js';
import { undiciSend } from './helpers.js';

const send = undiciSend(1000);
const KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
const pd = new PagerDutyFake(KEY);
const og = new OpsgenieFake('k1');
const jsm = new JsmFake('k2');
const sn = new ServiceNowFake('u', 'p');
const ado = new AzureDevOpsFake('acme', 'pat');
const json = { 'content-type': 'application/json' };
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

beforeAll(async () => {
  await Promise.all([pd.start(), og.start(), jsm.start(), sn.start(), ado.start()]);
});
afterAll(async () => {
  await Promise.all([pd.stop(), og.stop(), jsm.stop(), sn.stop(), ado.stop()]);
  await send.agent.close();
});

describe('vendor fakes validate requests', () => {
  it('PagerDuty: bad enum, missing payload, long summary → 400 and recorded', async () => {
    const post = (b: unknown) => send({ method: 'POST', url: `${pd.url}/v2/enqueue`, headers: json, body: JSON.stringify(b) });
    expect((await post({ routing_key: KEY, event_action: 'escalate', dedup_key: 'a' })).statusCode).toBe(400);
    expect((await post({ routing_key: KEY, event_action: 'trigger' })).statusCode).toBe(400);
    expect((await post({ routing_key: KEY, event_action: 'trigger', payload: { summary: 'x'.repeat(1025), source: 's', severity: 'error' } })).statusCode).toBe(400);
    expect((await post({ routing_key: KEY, event_action: 'trigger', payload: { summary: 's', source: 's', severity: 'fatal' } })).statusCode).toBe(400);
    expect(pd.violations).toHaveLength(4);
    expect(pd.violations.flatMap((v) => v.errors).join('\n')).toMatch(/event_action[\s\S]*payload[\s\S]*1024[\s\S]*severity/);
  });

  it('Opsgenie: missing message, long message, bad priority, action without identifierType → violation', async () => {
    const h = { ...json, authorization: 'GenieKey k1' };
    const post = (path: string, b: unknown) => send({ method: 'POST', url: `${og.url}${path}`, headers: h, body: JSON.stringify(b) });
    expect((await post('/v2/alerts', { alias: 'a' })).statusCode).toBe(422);
    expect((await post('/v2/alerts', { message: 'm'.repeat(131) })).statusCode).toBe(422);
    expect((await post('/v2/alerts', { message: 'm', priority: 'P0' })).statusCode).toBe(422);
    expect((await post('/v2/alerts/a/close', {})).statusCode).toBe(422);
    expect((await post('/v2/alerts/a/notes?identifierType=alias', {})).statusCode).toBe(422);
    expect(og.violations).toHaveLength(5);
    expect((await send({ method: 'POST', url: `${og.url}/v2/alerts`, headers: { ...json, authorization: 'GenieKey nope' }, body: '{"message":"m"}' })).statusCode).toBe(401);
  });

  it('JSM: the Opsgenie contract under /jsm/ops/integration only; the same violations; 202 with a requestId', async () => {
    const h = { ...json, authorization: 'GenieKey k2' };
    const post = (path: string, b: unknown) => send({ method: 'POST', url: `${jsm.url}${path}`, headers: h, body: JSON.stringify(b) });
    expect((await post('/v2/alerts', { message: 'm' })).statusCode).toBe(404);
    expect((await post('/jsm/ops/integration/v2/alerts', { alias: 'a' })).statusCode).toBe(422);
    expect((await post('/jsm/ops/integration/v2/alerts/a/close', {})).statusCode).toBe(422);
    expect(jsm.violations).toHaveLength(2);
    const ok = await post('/jsm/ops/integration/v2/alerts', { message: 'm', alias: 'a' });
    expect(ok.statusCode).toBe(202);
    expect(Object.keys(JSON.parse(ok.body))).toEqual(['result', 'took', 'requestId']);
    expect((await send({ method: 'POST', url: `${jsm.url}/jsm/ops/integration/v2/alerts`, headers: { ...json, authorization: 'GenieKey k1' }, body: '{"message":"m"}' })).statusCode).toBe(401);
  });

  it('ServiceNow: unknown field, bad state, resolving without close fields → refused and recorded', async () => {
    const h = { ...json, authorization: basic('u', 'p') };
    const created = await send({ method: 'POST', url: `${sn.url}/api/now/table/incident`, headers: h, body: '{"short_description":"x"}' });
    expect(created.statusCode).toBe(201);
    const id = JSON.parse(created.body).result.sys_id;
    expect((await send({ method: 'POST', url: `${sn.url}/api/now/table/incident`, headers: h, body: '{"nonsense":"x"}' })).statusCode).toBe(400);
    expect((await send({ method: 'PATCH', url: `${sn.url}/api/now/table/incident/${id}`, headers: h, body: '{"state":"9"}' })).statusCode).toBe(400);
    expect((await send({ method: 'PATCH', url: `${sn.url}/api/now/table/incident/${id}`, headers: h, body: '{"state":"6"}' })).statusCode).toBe(403);
    expect(sn.violations).toHaveLength(3);
  });

  it('Azure DevOps: wrong api-version, wrong content type, missing title, long title → violation', async () => {
    const h = { authorization: basic('', 'pat'), 'content-type': 'application/json-patch+json' };
    const base = `${ado.url}/acme/P/_apis/wit/workitems/$Task`;
    const title = (t: string) => JSON.stringify([{ op: 'add', path: '/fields/System.Title', value: t }]);
    expect((await send({ method: 'POST', url: `${base}?api-version=6.0`, headers: h, body: title('t') })).statusCode).toBe(400);
    expect((await send({ method: 'POST', url: `${base}?api-version=7.1`, headers: { ...h, 'content-type': 'application/json' }, body: title('t') })).statusCode).toBe(400);
    expect((await send({ method: 'POST', url: `${base}?api-version=7.1`, headers: h, body: '[]' })).statusCode).toBe(400);
    expect((await send({ method: 'POST', url: `${base}?api-version=7.1`, headers: h, body: title('t'.repeat(256)) })).statusCode).toBe(400);
    expect((await send({ method: 'POST', url: `${base}?api-version=7.1`, headers: h, body: JSON.stringify([{ op: 'frobnicate', path: '/fields/System.Title', value: 't' }]) })).statusCode).toBe(400);
    expect(ado.violations).toHaveLength(5);
    const ok = await send({ method: 'POST', url: `${base}?api-version=7.1`, headers: h, body: title('t') });
    expect(ok.statusCode).toBe(200);
    const bad = await send({ method: 'POST', url: `${base}?api-version=7.1`, headers: { ...h, authorization: basic('', 'wrong') }, body: title('t') });
    expect(bad.statusCode).toBe(203);
    expect(bad.body).toMatch(/Sign In/);
  });
});

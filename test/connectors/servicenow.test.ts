import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { servicenow } from '../../src/delivery/connectors/servicenow.js';
import { ServiceNowFake } from '../fakes/servicenow.js';
import { body, deliverWithRetries, lifecycle, sampleAlert, undiciSend, type Destination } from './helpers.js';

const USER = 'vigia.integration';
const PASSWORD = 'S3cr3t-Passw0rd!';
let fake: ServiceNowFake;
const send = undiciSend(500);
let dest: Destination;

beforeAll(async () => {
  fake = await new ServiceNowFake(USER, PASSWORD).start();
  dest = { id: 'dst_sn', config: { instanceUrl: `${fake.url}/` }, credentials: { username: USER, password: PASSWORD } };
});
afterAll(async () => {
  await fake.stop();
  await send.agent.close();
});
afterEach(() => {
  fake.hibernating = false;
  expect(fake.violations).toEqual([]);
});

describe('ServiceNow connector', () => {
  it('runs a full incident lifecycle on one incident correlated by alert id', async () => {
    const alert = sampleAlert();
    const { results, ref } = await lifecycle(servicenow, dest, alert, send);
    expect(results.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    const [inc, ...more] = fake.byCorrelation(alert.id);
    expect(more).toHaveLength(0);
    expect(ref).toEqual({ sysId: inc!.sys_id, number: inc!.number });
    expect(inc).toMatchObject({ state: '6', urgency: '1', close_code: 'Solution provided', active: 'false' });
    expect(inc!.short_description).toContain(alert.title);
    expect(inc!.close_notes).toMatch(/resolvido/);
    expect(inc!.work_notes).toHaveLength(2);
    expect(inc!.work_notes[1]).toMatch(/ESCALADO/);
    const wire = fake.requests.slice(-4);
    expect(wire.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/now/table/incident',
      `PATCH /api/now/table/incident/${inc!.sys_id}`,
      `PATCH /api/now/table/incident/${inc!.sys_id}`,
      `PATCH /api/now/table/incident/${inc!.sys_id}`,
    ]);
    expect(wire[1]!.json).toMatchObject({ state: '2' });
    expect(wire[2]!.json).toMatchObject({ urgency: '1' });
  });

  it('uses the configured close code', async () => {
    const alert = sampleAlert();
    const d = { ...dest, config: { ...dest.config, closeCode: 'Workaround provided' } };
    const { results } = await lifecycle(servicenow, d, alert, send);
    expect(results.every((r) => r.outcome === 'succeeded')).toBe(true);
    expect(fake.byCorrelation(alert.id)[0]!.close_code).toBe('Workaround provided');
  });

  it('a timed-out create that did happen is found by correlation_id and reused: exactly one incident', async () => {
    const alert = sampleAlert();
    fake.failNext(1, { kind: 'delay', ms: 3000, afterHandling: true }, (r) => r.method === 'POST');
    const { result, attempts } = await deliverWithRetries(servicenow, dest, body('alert.opened', alert), null, send);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'succeeded']);
    const incs = fake.byCorrelation(alert.id);
    expect(incs).toHaveLength(1);
    expect(result).toMatchObject({ outcome: 'succeeded', ref: { sysId: incs[0]!.sys_id } });
    const lookup = fake.requests.at(-1)!;
    expect(lookup.method).toBe('GET');
    expect(lookup.query.get('sysparm_query')).toBe(`correlation_id=${alert.id}`);
  });

  it('a timed-out create that did NOT happen is created on the retry', async () => {
    const alert = sampleAlert();
    fake.failNext(1, { kind: 'drop' }, (r) => r.method === 'POST');
    const { attempts } = await deliverWithRetries(servicenow, dest, body('alert.opened', alert), null, send);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'succeeded']);
    expect(fake.byCorrelation(alert.id)).toHaveLength(1);
  });

  it('a 200 HTML page (hibernating instance) is not a success: retried', async () => {
    const alert = sampleAlert();
    fake.hibernating = true;
    const first = await servicenow.deliver({ body: body('alert.opened', alert), destination: dest, ref: null, attempt: 1, previousOutcomeUnknown: false }, send);
    expect(first).toMatchObject({ outcome: 'retry', statusCode: 200 });
    expect(fake.byCorrelation(alert.id)).toHaveLength(0);
    fake.hibernating = false;
    const second = await servicenow.deliver({ body: body('alert.opened', alert), destination: dest, ref: null, attempt: 2, previousOutcomeUnknown: false }, send);
    expect(second.outcome).toBe('succeeded');
  });

  it('retries 429 and 503, then succeeds', async () => {
    const alert = sampleAlert();
    fake.failNext(1, { kind: 'reply', reply: { status: 429, headers: { 'retry-after': '60' }, body: { error: { message: 'Rate limit', detail: '' }, status: 'failure' } } });
    fake.failNext(1, { kind: 'reply', reply: { status: 503, body: 'Service Unavailable' } });
    const { attempts } = await deliverWithRetries(servicenow, dest, body('alert.opened', alert), null, send);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'retry', 'succeeded']);
    expect(attempts[0]).toMatchObject({ retryAfterMs: 60000 });
  });

  it('abandons 401 (wrong password) and 403 without leaking credentials', async () => {
    const bad = { ...dest, credentials: { username: USER, password: 'wrong-password-123' } };
    const r1 = await deliverWithRetries(servicenow, bad, body('alert.opened', sampleAlert()), null, send);
    expect(r1.attempts).toHaveLength(1);
    expect(r1.result).toMatchObject({ outcome: 'abandon', statusCode: 401 });
    expect(JSON.stringify(r1.result)).not.toContain('wrong-password-123');
    fake.failNext(1, { kind: 'reply', reply: { status: 403, body: { error: { message: `ACL denies ${USER}:${PASSWORD}`, detail: '' }, status: 'failure' } } });
    const r2 = await deliverWithRetries(servicenow, dest, body('alert.opened', sampleAlert()), null, send);
    expect(r2.result).toMatchObject({ outcome: 'abandon', statusCode: 403 });
    expect(JSON.stringify(r2.result)).not.toContain(PASSWORD);
  });

  it('abandons a 400 with the vendor explanation, redacting an echoed password', async () => {
    fake.failNext(1, { kind: 'reply', reply: { status: 400, body: { error: { message: 'Invalid', detail: `password ${PASSWORD} rejected` }, status: 'failure' } } });
    const { result } = await deliverWithRetries(servicenow, dest, body('alert.opened', sampleAlert()), null, send);
    expect(result).toMatchObject({ outcome: 'abandon', statusCode: 400 });
    expect(result.outcome === 'abandon' && result.error).toMatch(/Invalid/);
    expect(JSON.stringify(result)).not.toContain(PASSWORD);
  });

  it('a later event without a stored reference finds the incident by correlation_id, or abandons', async () => {
    const alert = sampleAlert();
    expect((await deliverWithRetries(servicenow, dest, body('alert.opened', alert), null, send)).result.outcome).toBe('succeeded');
    const found = await deliverWithRetries(servicenow, dest, body('alert.acknowledged', alert), null, send);
    expect(found.result).toMatchObject({ outcome: 'succeeded', ref: { sysId: fake.byCorrelation(alert.id)[0]!.sys_id } });
    expect(fake.byCorrelation(alert.id)[0]!.state).toBe('2');
    const none = await deliverWithRetries(servicenow, dest, body('alert.recovered', sampleAlert()), null, send);
    expect(none.result.outcome).toBe('abandon');
    expect(none.result.outcome === 'abandon' && none.result.error).toMatch(/No ServiceNow incident/);
  });

  it('validates config and credentials naming the field', () => {
    expect(servicenow.validate({ instanceUrl: 'https://acme.service-now.com' }, { username: 'u', password: 'p' })).toBeNull();
    expect(servicenow.validate({}, { username: 'u', password: 'p' })).toMatch(/config\.instanceUrl/);
    expect(servicenow.validate({ instanceUrl: 'http://acme.service-now.com' }, { username: 'u', password: 'p' })).toMatch(/config\.instanceUrl/);
    expect(servicenow.validate({ instanceUrl: 'https://u:p@acme.service-now.com' }, { username: 'u', password: 'p' })).toMatch(/config\.instanceUrl/);
    expect(servicenow.validate({ instanceUrl: 'https://acme.service-now.com' }, { username: 'u' })).toMatch(/credentials\.password/);
    expect(servicenow.urlFields({})).toEqual(['instanceUrl']);
  });
});

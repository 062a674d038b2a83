import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pagerduty } from '../../src/delivery/connectors/pagerduty.js';
import { PagerDutyFake } from '../fakes/pagerduty.js';
import { body, deliverWithRetries, lifecycle, sampleAlert, undiciSend, type Destination } from './helpers.js';

const ROUTING_KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
let fake: PagerDutyFake;
const send = undiciSend(1000);
let dest: Destination;

beforeAll(async () => {
  fake = await new PagerDutyFake(ROUTING_KEY).start();
  dest = { id: 'dst_pd', config: { region: 'us', apiBaseUrl: fake.url }, credentials: { routingKey: ROUTING_KEY } };
});
afterAll(async () => {
  await fake.stop();
  await send.agent.close();
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
});

describe('PagerDuty connector', () => {
  it('runs a full incident lifecycle keyed by the alert id', async () => {
    const alert = sampleAlert();
    const { results } = await lifecycle(pagerduty, dest, alert, send);
    expect(results.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    const pd = fake.alerts.get(alert.id)!;
    expect(pd.status).toBe('resolved');
    expect(pd.incarnations).toBe(1);
    expect(pd.events.map((e) => e.action)).toEqual(['trigger', 'acknowledge', 'trigger', 'resolve']);
    expect(pd.events[0]!.severity).toBe('error');
    expect(pd.events[2]!.summary!.startsWith('[ESCALADO] ')).toBe(true);
    expect(pd.events[2]!.severity).toBe('critical');
    const wire = fake.requests.filter((r) => (r.json as any)?.dedup_key === alert.id);
    expect(wire.every((r) => r.path === '/v2/enqueue' && r.method === 'POST')).toBe(true);
    expect((wire[0]!.json as any).routing_key).toBe(ROUTING_KEY);
  });

  it('cuts the summary to 1024 characters and keeps the dedup key ≤ 255', async () => {
    const alert = sampleAlert({ title: 'x'.repeat(3000) });
    const { result } = await deliverWithRetries(pagerduty, dest, body('alert.escalated', alert), null, send);
    expect(result.outcome).toBe('succeeded');
    expect(fake.alerts.get(alert.id)!.summary.length).toBe(1024);
  });

  it('retries 429 (with Retry-After) and 5xx, then succeeds', async () => {
    const alert = sampleAlert();
    fake.failNext(1, { kind: 'reply', reply: { status: 429, headers: { 'retry-after': '7' }, body: { status: 'throttled', message: 'Too many requests' } } });
    fake.failNext(1, { kind: 'reply', reply: { status: 503, body: { status: 'unavailable', message: 'try later' } } });
    const { result, attempts } = await deliverWithRetries(pagerduty, dest, body('alert.opened', alert), null, send);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'retry', 'succeeded']);
    expect(attempts[0]).toMatchObject({ statusCode: 429, retryAfterMs: 7000 });
    expect(attempts[1]).toMatchObject({ statusCode: 503 });
    expect(result.outcome).toBe('succeeded');
    expect(fake.alerts.get(alert.id)!.status).toBe('triggered');
  });

  it('abandons a 400 (unknown routing key) without leaking the key', async () => {
    const other = 'ZZZZNGKEY0123456789abcdefABCDEF9';
    const d = { ...dest, credentials: { routingKey: other } };
    const { result, attempts } = await deliverWithRetries(pagerduty, d, body('alert.opened', sampleAlert()), null, send);
    expect(attempts).toHaveLength(1);
    expect(result).toMatchObject({ outcome: 'abandon', statusCode: 400 });
    expect(JSON.stringify(result)).not.toContain(other);
  });

  it('abandons 401/403 with a secret-free reason', async () => {
    fake.failNext(1, { kind: 'reply', reply: { status: 403, body: { status: 'forbidden', message: `key ${ROUTING_KEY} is disabled` } } });
    const { result } = await deliverWithRetries(pagerduty, dest, body('alert.opened', sampleAlert()), null, send);
    expect(result).toMatchObject({ outcome: 'abandon', statusCode: 403 });
    expect(JSON.stringify(result)).not.toContain(ROUTING_KEY);
  });

  it('validates config and credentials naming the field', () => {
    expect(pagerduty.validate({ region: 'us' }, { routingKey: ROUTING_KEY })).toBeNull();
    expect(pagerduty.validate({ region: 'br' }, { routingKey: ROUTING_KEY })).toMatch(/config\.region/);
    expect(pagerduty.validate({ region: 'eu', apiBaseUrl: 'http://x.example.test' }, { routingKey: ROUTING_KEY })).toMatch(/config\.apiBaseUrl/);
    expect(pagerduty.validate({}, {})).toMatch(/credentials\.routingKey/);
    expect(pagerduty.urlFields({ apiBaseUrl: 'https://x' })).toEqual(['apiBaseUrl']);
  });
});

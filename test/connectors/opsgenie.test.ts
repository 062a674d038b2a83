import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { opsgenie } from '../../src/delivery/connectors/opsgenie.js';
import { OpsgenieFake } from '../fakes/opsgenie.js';
import { body, deliverWithRetries, lifecycle, sampleAlert, undiciSend, type Destination } from './helpers.js';

const API_KEY = 'og-key-5f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b';
let fake: OpsgenieFake;
const send = undiciSend(1000);
let dest: Destination;

beforeAll(async () => {
  fake = await new OpsgenieFake(API_KEY).start();
  dest = { id: 'dst_og', config: { region: 'eu', apiBaseUrl: fake.url, priority: 'P2' }, credentials: { apiKey: API_KEY } };
});
afterAll(async () => {
  await fake.stop();
  await send.agent.close();
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
});

describe('Opsgenie connector', () => {
  it('runs a full incident lifecycle by alias, treating the asynchronous 202 as success', async () => {
    const alert = sampleAlert();
    const { results } = await lifecycle(opsgenie, dest, alert, send);
    expect(results.map((r) => [r.outcome, r.statusCode])).toEqual([
      ['succeeded', 202], ['succeeded', 202], ['succeeded', 202], ['succeeded', 202],
    ]);
    const og = fake.byAlias(alert.id)!;
    expect(og).toMatchObject({ status: 'closed', acknowledged: true, priority: 'P2', count: 1 });
    expect(og.message).toContain(alert.title);
    expect(og.notes).toHaveLength(3);
    expect(og.notes[1]).toMatch(/ESCALADO/);
    const paths = fake.requests.slice(-4).map((r) => `${r.path}?${r.query}`);
    expect(paths).toEqual([
      '/v2/alerts?',
      `/v2/alerts/${alert.id}/acknowledge?identifierType=alias`,
      `/v2/alerts/${alert.id}/notes?identifierType=alias`,
      `/v2/alerts/${alert.id}/close?identifierType=alias`,
    ]);
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`GenieKey ${API_KEY}`);
    // Every accepted request really succeeded at Opsgenie (its asynchronous status).
    expect([...fake.requestStatus.values()].slice(-4).every((s) => s.isSuccess)).toBe(true);
  });

  it('truncates message (130), description (15000) and note (25000)', async () => {
    const alert = sampleAlert({ title: 'T'.repeat(500), message: 'M'.repeat(1000) });
    const long = { ...alert, title: 'N'.repeat(30000) };
    expect((await deliverWithRetries(opsgenie, dest, body('alert.opened', alert), null, send)).result.outcome).toBe('succeeded');
    expect((await deliverWithRetries(opsgenie, dest, body('alert.escalated', long), null, send)).result.outcome).toBe('succeeded');
    const og = fake.byAlias(alert.id)!;
    expect(og.message.length).toBe(130);
    expect(og.notes[0]!.length).toBe(25000);
  });

  it('a repeated create (retry after a lost answer) is deduplicated by alias', async () => {
    const alert = sampleAlert();
    fake.failNext(1, { kind: 'drop', afterHandling: true });
    const { result, attempts } = await deliverWithRetries(opsgenie, dest, body('alert.opened', alert), null, send);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'succeeded']);
    expect(result.outcome).toBe('succeeded');
    expect(fake.alerts.filter((a) => a.alias === alert.id)).toHaveLength(1);
    expect(fake.byAlias(alert.id)!.count).toBe(2);
  });

  it('retries 429 and 500, then succeeds', async () => {
    const alert = sampleAlert();
    fake.failNext(1, { kind: 'reply', reply: { status: 429, headers: { 'retry-after': '3' }, body: { message: 'Rate limit', took: 0, requestId: 'x' } } });
    fake.failNext(1, { kind: 'reply', reply: { status: 500, body: { message: 'Internal error', took: 0, requestId: 'y' } } });
    const { attempts } = await deliverWithRetries(opsgenie, dest, body('alert.opened', alert), null, send);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'retry', 'succeeded']);
    expect(attempts[0]).toMatchObject({ statusCode: 429, retryAfterMs: 3000 });
    expect(fake.byAlias(alert.id)!.status).toBe('open');
  });

  it('abandons 401 (wrong key) and 403 with secret-free reasons', async () => {
    const wrong = 'og-wrong-key-0000000000000000';
    const r1 = await deliverWithRetries(opsgenie, { ...dest, credentials: { apiKey: wrong } }, body('alert.opened', sampleAlert()), null, send);
    expect(r1.attempts).toHaveLength(1);
    expect(r1.result).toMatchObject({ outcome: 'abandon', statusCode: 401 });
    expect(JSON.stringify(r1.result)).not.toContain(wrong);
    fake.failNext(1, { kind: 'reply', reply: { status: 403, body: { message: `Key ${API_KEY} lacks create permission`, took: 0, requestId: 'z' } } });
    const r2 = await deliverWithRetries(opsgenie, dest, body('alert.opened', sampleAlert()), null, send);
    expect(r2.result).toMatchObject({ outcome: 'abandon', statusCode: 403 });
    expect(JSON.stringify(r2.result)).not.toContain(API_KEY);
  });

  it('abandons a 422 and redacts an echoed key', async () => {
    fake.failNext(1, { kind: 'reply', reply: { status: 422, body: { message: `bad request for GenieKey ${API_KEY}`, took: 0, requestId: 'q' } } });
    const { result } = await deliverWithRetries(opsgenie, dest, body('alert.opened', sampleAlert()), null, send);
    expect(result).toMatchObject({ outcome: 'abandon', statusCode: 422 });
    expect(JSON.stringify(result)).not.toContain(API_KEY);
  });

  it('validates config and credentials naming the field', () => {
    expect(opsgenie.validate({ region: 'eu', priority: 'P1' }, { apiKey: 'k' })).toBeNull();
    expect(opsgenie.validate({ region: 'sa' }, { apiKey: 'k' })).toMatch(/config\.region/);
    expect(opsgenie.validate({ priority: 'P9' }, { apiKey: 'k' })).toMatch(/config\.priority/);
    expect(opsgenie.validate({ apiBaseUrl: 'ftp://x' }, { apiKey: 'k' })).toMatch(/config\.apiBaseUrl/);
    expect(opsgenie.validate({}, {})).toMatch(/credentials\.apiKey/);
  });
});

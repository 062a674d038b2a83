/**
 * Standard Webhooks, opt-in: a webhook destination with `signatureScheme: "service+standard"`
 * also sends `webhook-id`, `webhook-timestamp` and `webhook-signature`, which the standard's own
 * library (`standardwebhooks` on npm) verifies with the `whsec_…` secret shown at creation — on
 * the first attempt and on a retry — while Vigia's own signature still verifies. The field is set
 * and changed through the admin API; the default scheme sends no standard headers.
 *
 * The standard's library checks the timestamp against the real clock, so the injected clock
 * starts at the real time; the retry moves it one minute, well inside the 5-minute tolerance.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { verifyWebhook } from '../../src/receiver/verify.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { emit, insertOrg, until } from './support.js';

const STANDARD_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

describe('Standard Webhooks signature scheme', () => {
  let t: TestApp;
  let rx: TestReceiver;
  let clock: ManualClock;
  let worker: Dispatcher | undefined;
  const start = () => new Date(Math.floor(Date.now() / 1000) * 1000);

  beforeAll(async () => {
    clock = new ManualClock(start());
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 1500 } });
    rx = await startReceiver();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await t.ctx.db.query(`UPDATE deliveries SET status = 'abandoned' WHERE status IN ('pending', 'waiting')`);
    rx.reset();
    clock.set(start());
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  async function webhook(orgId: string, extra: Record<string, unknown> = {}) {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'Hook', kind: 'webhook', url: `${rx.origin}/hook`, ...extra });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; signingSecret: string; signatureScheme: string };
  }

  async function row(destId: string, pred: (r: any) => boolean, what: string) {
    return until(async () => {
      const { rows } = await t.ctx.db.query<any>('SELECT * FROM deliveries WHERE destination_id = $1 ORDER BY created_at', [destId]);
      return rows[0] && pred(rows[0]) ? rows[0] : undefined;
    }, 30_000, what);
  }

  it('is set, shown and changed through the admin API; bad values and connector kinds get a 400', async () => {
    const orgId = await insertOrg(t.ctx);
    const plain = await webhook(orgId);
    expect(plain.signatureScheme).toBe('service');
    const std = await webhook(orgId, { signatureScheme: 'service+standard' });
    expect(std.signatureScheme).toBe('service+standard');
    expect((await t.admin('GET', `/orgs/${orgId}/destinations/${std.id}`)).json().signatureScheme).toBe('service+standard');

    const patched = await t.admin('PATCH', `/orgs/${orgId}/destinations/${plain.id}`, { signatureScheme: 'service+standard' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().signatureScheme).toBe('service+standard');
    const back = await t.admin('PATCH', `/orgs/${orgId}/destinations/${plain.id}`, { signatureScheme: 'service' });
    expect(back.json().signatureScheme).toBe('service');
    // Changing another field keeps the scheme.
    const renamed = await t.admin('PATCH', `/orgs/${orgId}/destinations/${std.id}`, { name: 'Renamed' });
    expect(renamed.json()).toMatchObject({ name: 'Renamed', signatureScheme: 'service+standard' });

    const bad = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'x', kind: 'webhook', url: `${rx.origin}/hook`, signatureScheme: 'standard' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/signatureScheme/) });
    const badPatch = await t.admin('PATCH', `/orgs/${orgId}/destinations/${std.id}`, { signatureScheme: null });
    expect(badPatch.statusCode).toBe(400);
    expect(badPatch.json().error.message).toMatch(/signatureScheme/);

    const pd = { name: 'PD', kind: 'pagerduty', config: {}, credentials: { routingKey: 'R0UTINGKEYabcdefghijklmnopqrstuv' } };
    const conn = await t.admin('POST', `/orgs/${orgId}/destinations`, { ...pd, signatureScheme: 'service+standard' });
    expect(conn.statusCode).toBe(400);
    expect(conn.json().error.message).toMatch(/signatureScheme.*webhook/);
    const created = await t.admin('POST', `/orgs/${orgId}/destinations`, pd);
    expect(created.json().signatureScheme).toBeNull();
    const connPatch = await t.admin('PATCH', `/orgs/${orgId}/destinations/${created.json().id}`, { signatureScheme: 'service' });
    expect(connPatch.statusCode).toBe(400);
  });

  it('real deliveries verify with the standardwebhooks library on the first attempt and on a retry, beside the service signature', async () => {
    const orgId = await insertOrg(t.ctx);
    const { id: destId, signingSecret } = await webhook(orgId, { signatureScheme: 'service+standard' });
    rx.script([{ status: 503 }, { status: 200 }]);
    worker = await startDispatcher(t.ctx, { retentionEveryMs: 0 });
    await emit(t.ctx, orgId, 'alert.opened');
    await rx.waitFor(1);
    const first = await row(destId, (r) => r.attempts === 1 && r.locked_by === null, 'first attempt');
    expect(first).toMatchObject({ status: 'pending', last_status_code: 503 });

    clock.advance(60_000);
    worker.poke();
    await rx.waitFor(2);
    const done = await row(destId, (r) => r.status === 'succeeded', 'retry to succeed');
    expect(done.attempts).toBe(2);

    const wh = new Webhook(signingSecret);
    const [a1, a2] = rx.requests;
    for (const req of [a1!, a2!]) {
      const h = req.headers as Record<string, string>;
      // The standard's library accepts the delivery and returns the body Vigia stored.
      expect(wh.verify(req.rawBody.toString('utf8'), h)).toEqual(JSON.parse(done.body));
      expect(h['webhook-id']).toBe(done.id);
      expect(h['webhook-timestamp']).toBe(h['x-service-timestamp']);
      expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      // Vigia's own signature (whole secret text as the key) still verifies, unchanged.
      expect(verifyWebhook({ rawBody: req.rawBody, headers: h, secret: signingSecret, now: Number(h['x-service-timestamp']) * 1000 }).id).toBe(done.id);
      expect(h['idempotency-key']).toBe(done.id);
    }
    // Fresh timestamp and signature on the retry; same message id and bytes.
    expect(Number(a2!.headers['webhook-timestamp'])).toBe(Number(a1!.headers['webhook-timestamp']) + 60);
    expect(a2!.headers['webhook-signature']).not.toBe(a1!.headers['webhook-signature']);
    expect(a2!.rawBody.equals(a1!.rawBody)).toBe(true);

    // The library refuses a changed byte, another secret, and Vigia's own key used the standard's way.
    const h1 = a1!.headers as Record<string, string>;
    const tampered = a1!.rawBody.toString('utf8').replace('"open"', '"opem"');
    expect(() => wh.verify(tampered, h1)).toThrow(/signature/i);
    expect(() => new Webhook(`whsec_${Buffer.from('another-secret-of-thirty-bytes').toString('base64')}`).verify(a1!.rawBody.toString('utf8'), h1)).toThrow(/signature/i);
    expect(() => new Webhook(Buffer.from(signingSecret, 'utf8'), { format: 'raw' }).verify(a1!.rawBody.toString('utf8'), h1)).toThrow(/signature/i);
  });

  it('the Test action of an opted-in webhook sends verifiable standard headers too', async () => {
    const orgId = await insertOrg(t.ctx);
    const { id, signingSecret } = await webhook(orgId, { signatureScheme: 'service+standard' });
    const res = await t.admin('POST', `/orgs/${orgId}/destinations/${id}/test`);
    expect(res.json()).toMatchObject({ ok: true, steps: [{ action: 'send', ok: true, statusCode: 200 }] });
    const [req] = rx.requests;
    const body = new Webhook(signingSecret).verify(req!.rawBody.toString('utf8'), req!.headers as Record<string, string>) as { test: boolean };
    expect(body.test).toBe(true);
  });

  it('the default scheme sends exactly the service headers, and switching back stops the standard ones', async () => {
    const orgId = await insertOrg(t.ctx);
    const { id: destId, signingSecret } = await webhook(orgId, { signatureScheme: 'service+standard' });
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${destId}`, { signatureScheme: 'service' })).statusCode).toBe(200);
    worker = await startDispatcher(t.ctx, { retentionEveryMs: 0 });
    await emit(t.ctx, orgId, 'alert.opened');
    const [req] = await rx.waitFor(1);
    await row(destId, (r) => r.status === 'succeeded', 'success');
    for (const name of STANDARD_HEADERS) expect(req!.headers).not.toHaveProperty(name);
    expect(verifyWebhook({ rawBody: req!.rawBody, headers: req!.headers, secret: signingSecret, now: clock.now() }).event).toBe('alert.opened');
  });
});

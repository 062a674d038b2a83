/**
 * The acknowledge link inside a real e-mail (issue 37 item 4): the message for an open incident
 * carries "Reconhecer" in both parts; following it (GET) changes nothing, the page's POST
 * acknowledges; the other destination is told, the e-mail destination gets no echo; the
 * acknowledged update carries no link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher } from '../../src/delivery/dispatcher.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert } from '../helpers/fixtures.js';
import { SmtpFake } from '../fakes/smtp.js';

describe('acknowledge link in an e-mail', () => {
  const smtp = new SmtpFake({ user: 'vigia', pass: 'smtp-pass-ack' });
  let t: TestApp;

  beforeAll(async () => {
    await smtp.start();
    t = await createTestApp({
      clock: new ManualClock('2026-06-15T12:00:00.000Z'),
      env: { VIGIA_SMTP_URL: smtp.url(), VIGIA_SMTP_FROM: 'Vigia <alertas@vigia.example.test>' },
      config: { destinationAllowlist: ['127.0.0.1'] },
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('carries Reconhecer; GET does not act, POST does; the webhook is told, the e-mail destination is not', async () => {
    const org = await createOrg(t);
    const email = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'BI team', kind: 'email', config: { recipients: ['bi@example.com'], groupWaitSeconds: 0 } });
    expect(email.statusCode, email.body).toBe(201);
    const hook = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'hook', kind: 'webhook', url: 'https://127.0.0.1:9/hook', filter: { events: ['alert.acknowledged'] } });
    expect(hook.statusCode, hook.body).toBe(201);
    const alertId = await openAlert(t, org.id, { sourceId: 'ds-ack' });
    const worker = await startDispatcher(t.ctx);
    try {
      await worker.pass();
      const [m] = await smtp.waitFor(1);
      const html = m!.parsed.html as string;
      const ackUrl = /href="(https:\/\/vigia\.example\.test\/ack\/[^"]+)"[^>]*>Reconhecer</.exec(html)?.[1];
      expect(ackUrl).toBeDefined();
      expect(m!.parsed.text).toContain(`Reconhecer: ${ackUrl}`);
      expect(html).toContain('Ver no Vigia');
      const path = new URL(ackUrl!).pathname;
      expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
      expect((await t.admin('GET', `/orgs/${org.id}/alerts/${alertId}`)).json().acknowledged).toBe(false);
      const done = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
      expect(done.statusCode, done.body).toBe(200);
      expect((await t.admin('GET', `/orgs/${org.id}/alerts/${alertId}`)).json()).toMatchObject({ acknowledged: true, acknowledgedBy: 'BI team' });
      const events = async (d: string) =>
        (await t.ctx.db.query<{ event: string }>('SELECT event FROM deliveries WHERE destination_id = $1 ORDER BY event_seq', [d])).rows.map((r) => r.event);
      expect(await events(hook.json().id)).toEqual(['alert.acknowledged']);
      expect(await events(email.json().id)).toEqual(['alert.opened']);
    } finally {
      await worker.stop();
    }
  });
});

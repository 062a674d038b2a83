/**
 * E-mail destinations end to end: created through the admin API, incidents driven through the
 * signals/alerts API, the real dispatcher sending through nodemailer's pooled connection to a real
 * SMTP server on loopback (STARTTLS with the test CA, AUTH), each message parsed with mailparser:
 * headers, both parts, threading, the one-click unsubscribe, a refused recipient, the relay down
 * then up, and the Test action.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { acknowledgeAlert, createOrg, openAlert, resolveAlert } from '../helpers/fixtures.js';
import { SmtpFake, type ReceivedMail } from '../fakes/smtp.js';

const PASS = 'smtp-p@ss word/42';

/** A header's raw value (unfolded) as it came over the wire. */
function header(m: ReceivedMail, name: string): string | undefined {
  const line = m.parsed.headerLines.find((l) => l.key === name.toLowerCase())?.line;
  return line?.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim();
}
/** The https URL of a message's List-Unsubscribe header. */
function unsubscribeLink(m: ReceivedMail): string {
  return /<(https:[^>]+)>/.exec(header(m, 'list-unsubscribe') ?? '')?.[1] ?? '';
}
const T0 = '2026-06-15T12:00:00.000Z';

describe('email destinations through a real SMTP server (STARTTLS, AUTH)', () => {
  const smtp = new SmtpFake({ user: 'vigia', pass: PASS });
  let t: TestApp;
  let clock: ManualClock;
  let worker: Dispatcher | undefined;

  beforeAll(async () => {
    await smtp.start();
    clock = new ManualClock(T0);
    t = await createTestApp({
      clock,
      env: { VIGIA_SMTP_URL: smtp.url(), VIGIA_SMTP_FROM: 'Vigia Alertas <alertas@vigia.example.test>' },
      config: { retryScheduleMs: [1000, 1000] },
    });
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    smtp.clear();
    smtp.refuse.clear();
    expect(t.ctx.logs.text).not.toContain(PASS);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  /** Each opening on its own and at once (groupWaitSeconds 0): grouping has its own tests (email-grouping.test.ts). */
  async function emailDestination(orgId: string, recipients: string[]): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'BI team', kind: 'email', config: { recipients, groupWaitSeconds: 0 } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }
  async function pass(): Promise<void> {
    worker ??= await startDispatcher(t.ctx);
    await worker.pass();
  }
  async function deliveries(destId: string) {
    const res = await t.admin('GET', `/orgs/${(await orgOf(destId))}/destinations/${destId}/deliveries?pageSize=50`);
    return (res.json().value as any[]).reverse();
  }
  async function orgOf(destId: string): Promise<string> {
    const { rows } = await t.ctx.db.query<{ org_id: string }>('SELECT org_id FROM destinations WHERE id = $1', [destId]);
    return rows[0]!.org_id;
  }

  it('refuses malformed recipients with 400 and the error envelope', async () => {
    const org = await createOrg(t);
    for (const recipients of [[], ['not-an-address'], ['a@b.example', 'A@B.EXAMPLE'], ['x@example.com\r\nBcc: evil@example.com'], ['Name <x@example.com>']]) {
      const res = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'bad', kind: 'email', config: { recipients } });
      expect(res.statusCode, JSON.stringify(recipients)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.message).toMatch(/config\.recipients/);
    }
    const digest = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'bad', kind: 'email', config: { recipients: ['a@example.com'], digest: 'weekly' } });
    expect(digest.statusCode).toBe(400);
    expect(digest.json().error.message).toMatch(/config\.digest/);
    for (const groupWaitSeconds of [-1, 3601, 1.5, '30']) {
      const res = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'bad', kind: 'email', config: { recipients: ['a@example.com'], groupWaitSeconds } });
      expect(res.statusCode, JSON.stringify(groupWaitSeconds)).toBe(400);
      expect(res.json().error.message).toMatch(/config\.groupWaitSeconds must be an integer from 0 to 3600/);
    }
    const ok = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'ok', kind: 'email', config: { recipients: ['a@example.com'], groupWaitSeconds: 120 } });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().config).toEqual({ recipients: ['a@example.com'], groupWaitSeconds: 120 });
  });

  it('sends multipart text + HTML over STARTTLS with AUTH, one thread per incident, escaped and header-safe', async () => {
    const org = await createOrg(t);
    const dest = await emailDestination(org.id, ['bi-team@example.com', 'owner@example.com']);
    const title = 'Refresh <b>failed</b>: Vendas & Co\r\nBcc: evil@example.com';
    const alertId = await openAlert(t, org.id, { sourceId: 'ds-1', sourceType: 'Dataset', title, message: 'Credenciais <expiradas>' });
    await pass();
    const opened = await smtp.waitFor(2);
    expect(opened.map((m) => m.to)).toEqual([['bi-team@example.com'], ['owner@example.com']]);
    const m = opened[0]!;
    expect(m.secure).toBe(true);
    expect(m.user).toBe('vigia');
    expect(m.from).toBe('alertas@vigia.example.test');
    // The title's CR/LF did not start a header: no Bcc, and the subject carries the words.
    expect(m.parsed.headers.has('bcc')).toBe(false);
    expect(m.raw.split("\r\n\r\n")[0]).not.toMatch(/^Bcc:/im);
    expect(m.parsed.subject).toBe('[Vigia][ERRO] Refresh <b>failed</b>: Vendas & Co Bcc: evil@example.com');
    expect(m.parsed.text).toContain('Incidente aberto');
    expect(m.parsed.text).toContain('Credenciais <expiradas>');
    // When it started, in the organization's time zone (default America/Sao_Paulo).
    expect(m.parsed.text).toMatch(/15\/06\/2026,? 09:00/);
    expect(m.parsed.html).toContain('Refresh &lt;b&gt;failed&lt;/b&gt;: Vendas &amp; Co');
    expect(m.parsed.html).not.toContain('<expiradas>');
    expect(m.parsed.html).toContain(`https://vigia.example.test/alerts/${alertId}`);
    expect(m.raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(m.parsed.headers.get('auto-submitted')).toBe('auto-generated');
    expect(header(m, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const unsub = unsubscribeLink(m);
    expect(unsub).toMatch(/^https:\/\/vigia\.example\.test\/api\/inbound\/v1\/email\/unsubscribe\?t=/);
    const rootId = m.parsed.messageId!;
    expect(rootId).toMatch(/^<dlv_[^@]+@vigia\.example\.test>$/);
    expect(m.parsed.inReplyTo).toBeUndefined();
    // Each recipient has its own unsubscribe link.
    expect(unsubscribeLink(opened[1]!)).not.toBe(unsub);

    smtp.clear();
    await acknowledgeAlert(t, org.id, alertId);
    await resolveAlert(t, org.id, alertId);
    await pass();
    await pass();
    const later = await smtp.waitFor(4);
    const forTeam = later.filter((x) => x.to[0] === 'bi-team@example.com');
    expect(forTeam.map((x) => x.parsed.text!.split('\n')[0])).toEqual(['Incidente reconhecido · ERRO', 'Incidente resolvido · ERRO']);
    for (const x of forTeam) {
      expect(x.parsed.inReplyTo).toBe(rootId);
      expect(x.parsed.references).toBe(rootId);
      expect(x.parsed.messageId).not.toBe(rootId);
      expect(x.parsed.subject).toBe(m.parsed.subject);
    }
    const { rows } = await t.ctx.db.query<{ ref: any }>('SELECT ref FROM connector_refs WHERE destination_id = $1 AND alert_id = $2', [dest, alertId]);
    expect(typeof rows[0]!.ref === 'string' ? JSON.parse(rows[0]!.ref) : rows[0]!.ref).toEqual({ messageId: rootId });
  });

  it('writes in the organization language (en) with its Reply-To', async () => {
    const org = await createOrg(t, { language: 'en' });
    const bad = await t.admin('PATCH', `/orgs/${org.id}`, { emailReplyTo: 'oncall@example.com\r\nBcc: x@example.com' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/emailReplyTo/);
    const set = await t.admin('PATCH', `/orgs/${org.id}`, { emailReplyTo: 'oncall@example.com' });
    expect(set.json().emailReplyTo).toBe('oncall@example.com');
    await emailDestination(org.id, ['en@example.com']);
    await openAlert(t, org.id, { sourceId: 'cap-1', sourceType: 'Capacity', severity: 'info', title: 'Capacity throttled' });
    await pass();
    const [m] = await smtp.waitFor(1);
    expect(m!.parsed.subject).toBe('[Vigia][INFO] Capacity throttled');
    expect(m!.parsed.text).toContain('Incident opened · INFO');
    expect(m!.parsed.replyTo?.text).toBe('oncall@example.com');
  });

  it('marks a recipient the relay refuses for good (550) on that recipient; the destination stays healthy', async () => {
    const org = await createOrg(t);
    const dest = await emailDestination(org.id, ['gone@example.com', 'ok@example.com']);
    smtp.refuse.add('gone@example.com');
    await openAlert(t, org.id, { sourceId: 'gw-refuse' });
    await pass();
    expect((await smtp.waitFor(1)).map((m) => m.to)).toEqual([['ok@example.com']]);
    const [d] = await deliveries(dest);
    expect(d.status).toBe('succeeded');
    const view = (await t.admin('GET', `/orgs/${org.id}/destinations/${dest}`)).json();
    expect(view.health.state).toBe('healthy');
    expect(view.refusedRecipients).toHaveLength(1);
    expect(view.refusedRecipients[0]).toMatchObject({ address: 'gone@example.com' });
    expect(view.refusedRecipients[0].reply).toMatch(/550/);

    // Every recipient refused: the delivery is abandoned, each refusal still on its recipient.
    smtp.refuse.add('ok@example.com');
    clock.advance(1000);
    await openAlert(t, org.id, { sourceId: 'gw-refuse-2' });
    await pass();
    const all = await deliveries(dest);
    expect(all[1]).toMatchObject({ status: 'abandoned' });
    expect(all[1].lastError).toMatch(/refused every recipient/);
  });

  it('retries while the relay is down (health failing), and a redelivery succeeds once it is back', async () => {
    const org = await createOrg(t);
    const dest = await emailDestination(org.id, ['ops@example.com']);
    await smtp.stop();
    try {
      await openAlert(t, org.id, { sourceId: 'gw-down' });
      await pass();
      let [d] = await deliveries(dest);
      expect(d).toMatchObject({ status: 'pending', attempts: 1 });
      expect(d.lastError).toMatch(/SMTP relay unreachable/);
      for (let i = 0; i < 2; i++) {
        clock.advance(1000);
        await pass();
      }
      [d] = await deliveries(dest);
      expect(d).toMatchObject({ status: 'failed', attempts: 3 });
      const view = (await t.admin('GET', `/orgs/${org.id}/destinations/${dest}`)).json();
      expect(view.health).toMatchObject({ state: 'failing', consecutiveFailures: 1 });
    } finally {
      await smtp.start();
    }
    const [d] = await deliveries(dest);
    expect((await t.admin('POST', `/orgs/${org.id}/deliveries/${d.id}/redeliver`)).statusCode).toBe(202);
    await pass();
    expect((await smtp.waitFor(1))[0]!.to).toEqual(['ops@example.com']);
    expect((await deliveries(dest))[0].status).toBe('succeeded');
    expect((await t.admin('GET', `/orgs/${org.id}/destinations/${dest}`)).json().health.state).toBe('healthy');
  });

  it('one-click unsubscribe: GET only confirms, POST takes that recipient off that destination (audited)', async () => {
    const org = await createOrg(t);
    const dest = await emailDestination(org.id, ['leaver@example.com', 'stayer@example.com']);
    await openAlert(t, org.id, { sourceId: 'gw-unsub' });
    await pass();
    const mails = await smtp.waitFor(2);
    const leaver = mails.find((m) => m.to[0] === 'leaver@example.com')!;
    const link = unsubscribeLink(leaver);
    const path = link.replace('https://vigia.example.test', '');

    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('leaver@example.com');
    expect(page.body).toContain('method="post"');
    expect((await t.admin('GET', `/orgs/${org.id}/destinations/${dest}`)).json().config.recipients).toEqual(['leaver@example.com', 'stayer@example.com']);

    const post = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' });
    expect(post.statusCode).toBe(200);
    expect(post.body).toContain('não receberá mais');
    expect((await t.admin('GET', `/orgs/${org.id}/destinations/${dest}`)).json().config.recipients).toEqual(['stayer@example.com']);
    const audit = (await t.admin('GET', `/orgs/${org.id}/audit`)).json().value as any[];
    expect(audit.find((a) => a.action === 'destination.unsubscribe')).toMatchObject({ target: dest });

    const tampered = await t.app.inject({ method: 'POST', url: `${path.slice(0, -4)}AAAA` });
    expect(tampered.statusCode).toBe(400);
    expect(tampered.json().error.code).toBe('invalid_request');

    smtp.clear();
    await openAlert(t, org.id, { sourceId: 'gw-unsub-2' });
    await pass();
    expect((await smtp.waitFor(1)).map((m) => m.to)).toEqual([['stayer@example.com']]);
  });

  it('the Test action sends a sample message to every recipient and records it', async () => {
    const org = await createOrg(t);
    const dest = await emailDestination(org.id, ['test-a@example.com', 'test-b@example.com']);
    const res = await t.admin('POST', `/orgs/${org.id}/destinations/${dest}/test`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, steps: [{ action: 'send', ok: true }] });
    const mails = await smtp.waitFor(2);
    expect(mails[0]!.parsed.subject).toMatch(/^\[TESTE\] \[Vigia\]/);
    expect((await deliveries(dest)).filter((d) => d.test)).toHaveLength(1);
  });
});

describe('email over implicit TLS (smtps://) and a refused login', () => {
  const smtp = new SmtpFake({ secure: true, user: 'relay-user', pass: 'right-password-1' });
  let t: TestApp;
  let worker: Dispatcher | undefined;

  beforeAll(async () => {
    await smtp.start();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await t.close();
  });
  afterAll(async () => smtp.stop());

  it('delivers over implicit TLS', async () => {
    t = await createTestApp({ env: { VIGIA_SMTP_URL: smtp.url(), VIGIA_SMTP_FROM: 'alertas@vigia.example.test' } });
    const org = await createOrg(t);
    const res = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'tls', kind: 'email', config: { recipients: ['tls@example.com'], groupWaitSeconds: 0 } });
    expect(res.statusCode).toBe(201);
    await openAlert(t, org.id);
    worker = await startDispatcher(t.ctx);
    await worker.pass();
    const [m] = await smtp.waitFor(1);
    expect(m!.secure).toBe(true);
    expect(m!.user).toBe('relay-user');
  });

  it('a refused login is retried with an error naming the authentication, never the password', async () => {
    t = await createTestApp({ env: { VIGIA_SMTP_URL: smtp.url('wrong-password-9'), VIGIA_SMTP_FROM: 'alertas@vigia.example.test' } });
    const org = await createOrg(t);
    const dest = (await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'auth', kind: 'email', config: { recipients: ['auth@example.com'], groupWaitSeconds: 0 } })).json().id;
    await openAlert(t, org.id, { sourceId: 'gw-auth' });
    worker = await startDispatcher(t.ctx);
    await worker.pass();
    const [d] = (await t.admin('GET', `/orgs/${org.id}/destinations/${dest}/deliveries`)).json().value;
    expect(d.status).toBe('pending');
    expect(d.lastError).toMatch(/authentication/);
    expect(JSON.stringify(d)).not.toContain('wrong-password-9');
    expect(t.ctx.logs.text).not.toContain('wrong-password-9');
    expect(smtp.authFailures).toBeGreaterThan(0);
  });
});

/**
 * Grouped openings for e-mail destinations (docs/notifications.md, "No floods"), on a real SMTP
 * server with every message parsed by mailparser: a burst of one tenant's openings within
 * groupWaitSeconds is ONE message per recipient listing them (ten, then "e mais N"), with an
 * acknowledge link per listed open incident; a member's later update threads to the grouped
 * message; groupWaitSeconds 0 sends each alone; a relay failing mid-way is retried only for the
 * recipients that did not take the grouped message. Openings go through the real fan-out
 * (recordEvent), the dispatcher sends what is due on a ManualClock.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { acknowledgeAlert, createOrg } from '../helpers/fixtures.js';
import { SmtpFake, type ReceivedMail } from '../fakes/smtp.js';
import { emit, insertAlert } from './support.js';

const T0 = '2026-06-15T12:00:00.000Z';

describe('grouped e-mail openings through a real SMTP server', () => {
  const smtp = new SmtpFake();
  let t: TestApp;
  let clock: ManualClock;
  let worker: Dispatcher;

  beforeAll(async () => {
    await smtp.start();
    clock = new ManualClock(T0);
    t = await createTestApp({
      clock,
      env: { VIGIA_SMTP_URL: smtp.url(), VIGIA_SMTP_FROM: 'Vigia Alertas <alertas@vigia.example.test>' },
      config: { retryScheduleMs: [1000, 1000] },
    });
    worker = await startDispatcher(t.ctx, { idlePollMs: 3_600_000 });
  });
  afterEach(() => {
    smtp.clear();
    smtp.defer.clear();
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
    await smtp.stop();
  });

  async function emailDestination(orgId: string, config: Record<string, unknown>): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'BI team', kind: 'email', config });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }
  async function tenant(orgId: string, id: string, name: string): Promise<void> {
    await t.ctx.db.query(
      `INSERT INTO tenants (id, org_id, name, tenant_id, client_id, credential_type, credentials_sealed, mode, endpoints, created_at, updated_at)
       VALUES ($1, $2, $3, 't', 'c', 'secret', 'x', 'admin', '{}', $4, $4)`,
      [id, orgId, name, clock.now()],
    );
  }
  /** Opens an incident of the tenant through the real fan-out; one second later than the previous one. */
  async function openIn(orgId: string, tenantId: string, title: string): Promise<string> {
    clock.advance(1000);
    const id = await insertAlert(t.ctx, orgId);
    await t.ctx.db.query('UPDATE alerts SET tenant_ref = $2, title = $3 WHERE id = $1', [id, tenantId, title]);
    await emit(t.ctx, orgId, 'alert.opened', { alertId: id, snapshot: { title } });
    return id;
  }
  async function deliveries(destId: string) {
    const { rows } = await t.ctx.db.query<{ alert_id: string; status: string; attempts: number; event: string }>(
      'SELECT alert_id, status, attempts, event FROM deliveries WHERE destination_id = $1 ORDER BY created_at, id',
      [destId],
    );
    return rows;
  }
  const mailbox = (address: string): ReceivedMail[] => smtp.mails.filter((m) => m.to.includes(address));

  it('a burst of one tenant is ONE e-mail per recipient listing ten "e mais 2", each with its acknowledge link; a member\'s update threads to it', async () => {
    const org = await createOrg(t);
    const dest = await emailDestination(org.id, { recipients: ['ana@example.com', 'bia@example.com'] });
    await tenant(org.id, 'ten_contoso', 'Contoso BI');
    await tenant(org.id, 'ten_fabrikam', 'Fabrikam');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await openIn(org.id, 'ten_contoso', `Refresh failed ${String(i).padStart(2, '0')}`));
    const other = await openIn(org.id, 'ten_fabrikam', 'Gateway offline at Fabrikam');
    // Inside the window nothing is sent.
    await worker.pass();
    expect(smtp.mails).toHaveLength(0);
    clock.advance(30_000);
    await worker.pass();
    await smtp.waitFor(4);
    for (const who of ['ana@example.com', 'bia@example.com']) {
      const got = mailbox(who);
      expect(got.map((m) => m.parsed.subject).sort()).toEqual(['[Vigia][ERRO] 12 incidentes em Contoso BI', '[Vigia][ERRO] Gateway offline at Fabrikam']);
    }
    const grouped = mailbox('ana@example.com').find((m) => m.parsed.subject!.includes('12 incidentes'))!;
    const text = grouped.parsed.text!;
    const html = grouped.parsed.html as string;
    for (let i = 0; i < 10; i++) {
      expect(text).toContain(`Refresh failed ${String(i).padStart(2, '0')}`);
      expect(html).toContain(`Refresh failed ${String(i).padStart(2, '0')}`);
    }
    for (const part of [text, html]) {
      expect(part).not.toContain('Refresh failed 10');
      expect(part).toContain('e mais 2');
      expect(part).toContain('Tenant');
      expect(part).toContain('Contoso BI');
    }
    // One acknowledge link per listed (open) incident, each bound to its own alert.
    const ackLinks = [...html.matchAll(/href="(https:\/\/vigia\.example\.test\/ack\/[^"]+)"[^>]*>Reconhecer</g)].map((m) => m[1]);
    expect(new Set(ackLinks).size).toBe(10);
    expect(text.match(/Reconhecer: https:\/\/vigia\.example\.test\/ack\//g)).toHaveLength(10);
    const rootId = grouped.parsed.messageId!;
    expect(rootId).toMatch(/^<dlv_[^@]+@vigia\.example\.test>$/);
    // Every member's delivery got the one send's outcome, and the grouped message is each one's thread root.
    const rows = await deliveries(dest);
    expect(rows).toHaveLength(13);
    expect(rows.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
    const { rows: refs } = await t.ctx.db.query<{ alert_id: string; ref: any }>('SELECT alert_id, ref FROM connector_refs WHERE destination_id = $1', [dest]);
    const refOf = new Map(refs.map((r) => [r.alert_id, typeof r.ref === 'string' ? JSON.parse(r.ref) : r.ref]));
    for (const id of ids) expect(refOf.get(id)).toEqual({ messageId: rootId });
    expect(refOf.get(other)!.messageId).not.toBe(rootId);

    // A member's later update (not the leader's, and one past the first ten) replies to the grouped message.
    smtp.clear();
    for (const member of [ids[4]!, ids[11]!]) await acknowledgeAlert(t, org.id, member);
    await worker.pass();
    const updates = await smtp.waitFor(4);
    expect(updates).toHaveLength(4);
    for (const m of updates) {
      expect(m.parsed.text!.split('\n')[0]).toBe('Incidente reconhecido · ERRO');
      expect(m.parsed.inReplyTo).toBe(rootId);
      expect(m.parsed.references).toBe(rootId);
      expect(m.parsed.messageId).not.toBe(rootId);
    }
  });

  it('groupWaitSeconds 0 sends each opening on its own, at once', async () => {
    const org = await createOrg(t);
    const dest = await emailDestination(org.id, { recipients: ['solo@example.com'], groupWaitSeconds: 0 });
    await tenant(org.id, 'ten_solo', 'Solo BI');
    for (let i = 0; i < 3; i++) await openIn(org.id, 'ten_solo', `Solo failure ${i}`);
    await worker.pass();
    const got = await smtp.waitFor(3);
    expect(got.map((m) => m.parsed.subject).sort()).toEqual(['[Vigia][ERRO] Solo failure 0', '[Vigia][ERRO] Solo failure 1', '[Vigia][ERRO] Solo failure 2']);
    expect(new Set(got.map((m) => m.parsed.messageId)).size).toBe(3);
    expect((await deliveries(dest)).every((r) => r.status === 'succeeded')).toBe(true);
  });

  it('the relay failing mid-way: the group is retried together and only the remaining recipients get it (in English)', async () => {
    const org = await createOrg(t, { language: 'en' });
    const recipients = ['r1@example.com', 'r2@example.com', 'r3@example.com', 'r4@example.com', 'r5@example.com'];
    const dest = await emailDestination(org.id, { recipients });
    await tenant(org.id, 'ten_fab', 'Fabrikam');
    for (let i = 0; i < 3; i++) await openIn(org.id, 'ten_fab', `Dataflow failed ${i}`);
    // The relay answers 451 for the third recipient: the attempt stops there and is retried.
    smtp.defer.add('r3@example.com');
    clock.advance(30_000);
    await worker.pass();
    await smtp.waitFor(2);
    expect(smtp.mails.map((m) => m.to[0])).toEqual(['r1@example.com', 'r2@example.com']);
    let rows = await deliveries(dest);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([['pending', 1], ['pending', 1], ['pending', 1]]);
    smtp.defer.clear();
    clock.advance(1000);
    await worker.pass();
    await smtp.waitFor(5);
    for (const who of recipients) {
      const got = mailbox(who);
      expect(got, who).toHaveLength(1);
      expect(got[0]!.parsed.subject).toBe('[Vigia][ERROR] 3 incidents in Fabrikam');
      for (let i = 0; i < 3; i++) expect(got[0]!.parsed.text).toContain(`Dataflow failed ${i}`);
    }
    // The same Message-ID on the retry: one message, whatever attempt carried it.
    expect(new Set(smtp.mails.map((m) => m.parsed.messageId)).size).toBe(1);
    rows = await deliveries(dest);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([['succeeded', 2], ['succeeded', 2], ['succeeded', 2]]);
  });
});

/**
 * The `info` digest of e-mail destinations, on a real SMTP server: info openings wait for the end
 * of the hour and go out as one message listing them (ten, then "e mais N") — never grouped with
 * the other openings; errors go out after the group window. A digest retried after the relay
 * failed mid-way reaches only the recipients that did not take it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher } from '../../src/delivery/dispatcher.js';
import { sendDueDigests } from '../../src/delivery/email/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, sendSignals, signal } from '../helpers/fixtures.js';
import { SmtpFake } from '../fakes/smtp.js';

describe('email info digest', () => {
  const smtp = new SmtpFake();
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    await smtp.start();
    clock = new ManualClock('2026-06-15T12:10:00.000Z');
    t = await createTestApp({ clock, env: { VIGIA_SMTP_URL: smtp.url(), VIGIA_SMTP_FROM: 'alertas@vigia.example.test' } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('gathers info openings into one hourly message per recipient, never into a group; errors go out after the group window', async () => {
    const org = await createOrg(t);
    const res = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'digest', kind: 'email', config: { recipients: ['a@example.com', 'b@example.com'], digest: 'hourly' } });
    expect(res.statusCode).toBe(201);
    const dest = res.json().id;
    const infos = Array.from({ length: 12 }, (_, i) => signal({ sourceId: `ds-${i}`, sourceType: 'Dataset', severity: 'info', title: `Refresh slow ${i}` }));
    await sendSignals(t, org.id, [...infos, signal({ sourceId: 'gw-err', title: 'Gateway offline' })]);
    const worker = await startDispatcher(t.ctx);
    try {
      // The infos went to the digest at once; the error waits for its group window (30 s) alone.
      await worker.pass();
      expect(smtp.mails).toHaveLength(0);
      clock.advance(31_000);
      await worker.pass();
    } finally {
      await worker.stop();
    }
    // Only the error went out; the twelve infos are succeeded, noted for the digest.
    const now = await smtp.waitFor(2);
    expect(now.map((m) => m.parsed.subject)).toEqual(['[Vigia][ERRO] Gateway offline', '[Vigia][ERRO] Gateway offline']);
    const { rows } = await t.ctx.db.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM deliveries WHERE destination_id = $1 GROUP BY status',
      [dest],
    );
    expect(rows).toEqual([{ status: 'succeeded', n: 13 }]);

    // Before the hour ends nothing more is sent.
    expect(await sendDueDigests(t.ctx)).toEqual({ sent: 0, failed: 0 });
    clock.set('2026-06-15T13:00:00.000Z');
    expect(await sendDueDigests(t.ctx)).toEqual({ sent: 1, failed: 0 });
    const all = await smtp.waitFor(4);
    const digest = all.slice(2);
    expect(digest.map((m) => m.to[0])).toEqual(['a@example.com', 'b@example.com']);
    expect(digest[0]!.parsed.subject).toBe('[Vigia][INFO] Resumo por hora: 12');
    // Ten incidents listed, the other two counted.
    expect(new Set(digest[0]!.parsed.text!.match(/Refresh slow \d+/g)).size).toBe(10);
    expect(digest[0]!.parsed.text).toContain('e mais 2');
    expect(digest[0]!.parsed.html).toContain('e mais 2');
    // Sent once.
    clock.set('2026-06-15T13:10:00.000Z');
    expect(await sendDueDigests(t.ctx)).toEqual({ sent: 0, failed: 0 });
  });

  it('a digest retried after the relay failed mid-way reaches only the recipients that did not take it', async () => {
    smtp.clear();
    clock.set('2026-06-15T14:10:00.000Z');
    const org = await createOrg(t);
    const recipients = ['d1@example.com', 'd2@example.com', 'd3@example.com', 'd4@example.com', 'd5@example.com'];
    const res = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'digest', kind: 'email', config: { recipients, digest: 'hourly' } });
    expect(res.statusCode, res.body).toBe(201);
    const dest = res.json().id;
    await sendSignals(t, org.id, [1, 2, 3].map((i) => signal({ sourceId: `slow-${i}`, sourceType: 'Dataset', severity: 'info', title: `Refresh slow ${i}` })));
    const worker = await startDispatcher(t.ctx);
    try {
      await worker.pass();
    } finally {
      await worker.stop();
    }
    expect(smtp.mails).toHaveLength(0);
    // The relay answers 451 for the third recipient: the pass stops there, the digest waits for a retry.
    smtp.defer.add('d3@example.com');
    clock.set('2026-06-15T15:00:00.000Z');
    try {
      expect(await sendDueDigests(t.ctx)).toEqual({ sent: 0, failed: 1 });
    } finally {
      smtp.defer.clear();
    }
    await smtp.waitFor(2);
    expect(smtp.mails.map((m) => m.to[0])).toEqual(['d1@example.com', 'd2@example.com']);
    // Within the claim's lease no pass takes it; after it, the retry sends to the other three only.
    clock.set('2026-06-15T15:01:00.000Z');
    expect(await sendDueDigests(t.ctx)).toEqual({ sent: 0, failed: 0 });
    clock.set('2026-06-15T15:06:00.000Z');
    expect(await sendDueDigests(t.ctx)).toEqual({ sent: 1, failed: 0 });
    await smtp.waitFor(5);
    for (const who of recipients) {
      const got = smtp.mails.filter((m) => m.to.includes(who));
      expect(got, who).toHaveLength(1);
      expect(got[0]!.parsed.subject).toBe('[Vigia][INFO] Resumo por hora: 3');
    }
    // One digest, one Message-ID; its per-recipient progress is gone once it is sent.
    expect(new Set(smtp.mails.map((m) => m.parsed.messageId)).size).toBe(1);
    const { rows } = await t.ctx.db.query('SELECT 1 FROM email_digest_sent WHERE destination_id = $1', [dest]);
    expect(rows).toHaveLength(0);
    clock.set('2026-06-15T15:20:00.000Z');
    expect(await sendDueDigests(t.ctx)).toEqual({ sent: 0, failed: 0 });
  });
});

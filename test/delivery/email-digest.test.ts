/**
 * The `info` digest of e-mail destinations, on a real SMTP server: info openings wait for the end
 * of the hour and go out as one message listing them (ten, then "e mais N"); errors go out at once.
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

  it('gathers info openings into one hourly message per recipient; errors go out at once', async () => {
    const org = await createOrg(t);
    const res = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'digest', kind: 'email', config: { recipients: ['a@example.com', 'b@example.com'], digest: 'hourly' } });
    expect(res.statusCode).toBe(201);
    const dest = res.json().id;
    const infos = Array.from({ length: 12 }, (_, i) => signal({ sourceId: `ds-${i}`, sourceType: 'Dataset', severity: 'info', title: `Refresh slow ${i}` }));
    await sendSignals(t, org.id, [...infos, signal({ sourceId: 'gw-err', title: 'Gateway offline' })]);
    const worker = await startDispatcher(t.ctx);
    try {
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
});

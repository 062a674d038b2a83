/**
 * The outbox write (recordEvent → planFanOut + one statement for event and deliveries): many
 * events in one transaction each get exactly their matching deliveries with the event's
 * sequence number; a later event of an incident in the same transaction still waits behind the
 * earlier one at a connector destination; a destination changed by another transaction is seen
 * by the next transaction (the per-transaction destination cache never outlives it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { recordEvent, recordEvents } from '../../src/alerts/events.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { insertAlert, insertOrg, snapshotFor } from './support.js';

const T0 = '2026-06-15T12:00:00.000Z';

describe('outbox fan-out', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock(T0), config: { destinationAllowlist: ['127.0.0.1'] } });
  });
  afterAll(async () => {
    await t.ctx.db.query(`UPDATE deliveries SET status = 'abandoned' WHERE status IN ('pending', 'waiting')`);
    await t.close();
  });

  async function webhook(orgId: string, filter?: object): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, {
      name: 'hook',
      kind: 'webhook',
      url: 'https://127.0.0.1:9/hook',
      ...(filter ? { filter } : {}),
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  }

  it('writes every event of a transaction with exactly its matching deliveries', async () => {
    const orgId = await insertOrg(t.ctx);
    const all = await webhook(orgId);
    const infoOnly = await webhook(orgId, { severities: ['info'] });
    const recoveredOnly = await webhook(orgId, { events: ['alert.recovered'] });
    const alerts = [await insertAlert(t.ctx, orgId), await insertAlert(t.ctx, orgId, { severity: 'info' }), await insertAlert(t.ctx, orgId)];
    const now = t.ctx.clock.now();
    const recorded = await t.ctx.db.tx(async (q) => {
      const out = [];
      out.push(await recordEvent(q, { orgId, alertId: alerts[0]!, event: 'alert.opened', occurredAt: now, snapshot: snapshotFor(t.ctx, alerts[0]!), now }));
      out.push(
        await recordEvent(q, { orgId, alertId: alerts[1]!, event: 'alert.opened', occurredAt: now, snapshot: snapshotFor(t.ctx, alerts[1]!, { severity: 'info' }), now }),
      );
      out.push(
        await recordEvent(q, {
          orgId,
          alertId: alerts[2]!,
          event: 'alert.recovered',
          occurredAt: now,
          snapshot: snapshotFor(t.ctx, alerts[2]!, { status: 'resolved', resolvedAt: T0 }),
          now,
        }),
      );
      return out;
    });
    // Sequence numbers are the outbox's, in order.
    const events = (await t.ctx.db.query<{ id: string; seq: string }>('SELECT id, seq::text AS seq FROM alert_events WHERE org_id = $1 ORDER BY seq', [orgId])).rows;
    expect(events.map((e) => e.id)).toEqual(recorded.map((r) => r.id));
    expect(recorded.map((r) => String(r.seq))).toEqual(events.map((e) => e.seq));

    const rows = (
      await t.ctx.db.query<{ event_id: string; event_seq: string; destination_id: string; status: string; body: string; next_attempt_at: Date | null }>(
        'SELECT event_id, event_seq::text AS event_seq, destination_id, status, body, next_attempt_at FROM deliveries WHERE org_id = $1',
        [orgId],
      )
    ).rows;
    const got = rows.map((r) => `${r.event_id}→${r.destination_id}`).sort();
    const want = [
      `${recorded[0]!.id}→${all}`,
      `${recorded[1]!.id}→${all}`,
      `${recorded[1]!.id}→${infoOnly}`,
      `${recorded[2]!.id}→${all}`,
      `${recorded[2]!.id}→${recoveredOnly}`,
    ].sort();
    expect(got).toEqual(want);
    for (const r of rows) {
      const ev = recorded.find((e) => e.id === r.event_id)!;
      expect(r.event_seq).toBe(String(ev.seq));
      expect(r.status).toBe('pending');
      expect(r.next_attempt_at?.toISOString()).toBe(T0);
      const body = JSON.parse(r.body);
      expect(body.event).toBe(ev.event);
      expect(body.alert.id).toBe(ev.alertId);
    }
  });

  it('an event with no matching destination is still written to the outbox', async () => {
    const orgId = await insertOrg(t.ctx);
    await webhook(orgId, { events: ['alert.escalated'] });
    const alertId = await insertAlert(t.ctx, orgId);
    const now = t.ctx.clock.now();
    const ev = await t.ctx.db.tx((q) => recordEvent(q, { orgId, alertId, event: 'alert.opened', occurredAt: now, snapshot: snapshotFor(t.ctx, alertId), now }));
    expect((await t.ctx.db.query('SELECT 1 FROM alert_events WHERE id = $1', [ev.id])).rows).toHaveLength(1);
    expect((await t.ctx.db.query('SELECT 1 FROM deliveries WHERE event_id = $1', [ev.id])).rows).toHaveLength(0);
  });

  it('a later event of an incident in the same transaction waits behind the earlier one at a connector', async () => {
    const orgId = await insertOrg(t.ctx);
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, {
      name: 'PD',
      kind: 'pagerduty',
      config: { region: 'us', apiBaseUrl: 'https://127.0.0.1:9' },
      credentials: { routingKey: 'ORDERTESTKEY0123456789abcdefABCD' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const hook = await webhook(orgId);
    const alertId = await insertAlert(t.ctx, orgId);
    const now = t.ctx.clock.now();
    await t.ctx.db.tx(async (q) => {
      await recordEvent(q, { orgId, alertId, event: 'alert.opened', occurredAt: now, snapshot: snapshotFor(t.ctx, alertId), now });
      await recordEvent(q, { orgId, alertId, event: 'alert.acknowledged', occurredAt: now, snapshot: snapshotFor(t.ctx, alertId, { acknowledged: true }), now });
    });
    const rows = (
      await t.ctx.db.query<{ destination_id: string; event: string; status: string }>(
        'SELECT destination_id, event, status FROM deliveries WHERE alert_id = $1 ORDER BY event_seq, destination_id',
        [alertId],
      )
    ).rows;
    const pdId = res.json().id as string;
    expect(rows.filter((r) => r.destination_id === pdId).map((r) => [r.event, r.status])).toEqual([
      ['alert.opened', 'pending'],
      ['alert.acknowledged', 'waiting'],
    ]);
    expect(rows.filter((r) => r.destination_id === hook).map((r) => [r.event, r.status])).toEqual([
      ['alert.opened', 'pending'],
      ['alert.acknowledged', 'pending'],
    ]);
  });

  it('the next transaction sees a destination disabled or added in between', async () => {
    const orgId = await insertOrg(t.ctx);
    const first = await webhook(orgId);
    const emitOne = async () => {
      const alertId = await insertAlert(t.ctx, orgId);
      const now = t.ctx.clock.now();
      const ev = await t.ctx.db.tx((q) => recordEvent(q, { orgId, alertId, event: 'alert.opened', occurredAt: now, snapshot: snapshotFor(t.ctx, alertId), now }));
      // A disabled destination keeps its events as skipped deliveries: only pending ones are sent.
      return (
        await t.ctx.db.query<{ destination_id: string }>(`SELECT destination_id FROM deliveries WHERE event_id = $1 AND status = 'pending'`, [ev.id])
      ).rows
        .map((r) => r.destination_id)
        .sort();
    };
    expect(await emitOne()).toEqual([first]);
    const second = await webhook(orgId);
    expect(await emitOne()).toEqual([first, second].sort());
    const res = await t.admin('PATCH', `/orgs/${orgId}/destinations/${first}`, { enabled: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(await emitOne()).toEqual([second]);
  });

  describe('recordEvents (batch)', () => {
    async function pagerduty(orgId: string): Promise<string> {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, {
        name: 'PD',
        kind: 'pagerduty',
        config: { region: 'us', apiBaseUrl: 'https://127.0.0.1:9' },
        credentials: { routingKey: 'ORDERTESTKEY0123456789abcdefABCD' },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    }

    it('an empty batch writes nothing', async () => {
      expect(await t.ctx.db.tx((q) => recordEvents(q, []))).toEqual([]);
    });

    it('writes the events in the order given, across organizations, each with its matching deliveries', async () => {
      const orgA = await insertOrg(t.ctx);
      const orgB = await insertOrg(t.ctx);
      const hookA = await webhook(orgA);
      const pdA = await pagerduty(orgA);
      const infoB = await webhook(orgB, { severities: ['info'] });
      const alerts = [
        { orgId: orgA, alertId: await insertAlert(t.ctx, orgA), severity: 'error' as const },
        { orgId: orgB, alertId: await insertAlert(t.ctx, orgB), severity: 'error' as const },
        { orgId: orgA, alertId: await insertAlert(t.ctx, orgA), severity: 'error' as const },
        { orgId: orgB, alertId: await insertAlert(t.ctx, orgB, { severity: 'info' }), severity: 'info' as const },
      ];
      const now = t.ctx.clock.now();
      const recorded = await t.ctx.db.tx((q) =>
        recordEvents(
          q,
          alerts.map((a) => ({
            orgId: a.orgId,
            alertId: a.alertId,
            event: 'alert.opened' as const,
            occurredAt: now,
            snapshot: snapshotFor(t.ctx, a.alertId, { severity: a.severity }),
            now,
          })),
        ),
      );
      expect(recorded.map((r) => r.alertId)).toEqual(alerts.map((a) => a.alertId));
      const seqs = recorded.map((r) => BigInt(r.seq));
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]! > seqs[i - 1]!).toBe(true);
      const stored = (
        await t.ctx.db.query<{ id: string; seq: string; snapshot: unknown }>('SELECT id, seq::text AS seq, snapshot FROM alert_events WHERE id = ANY($1) ORDER BY seq', [
          recorded.map((r) => r.id),
        ])
      ).rows;
      expect(stored.map((e) => e.id)).toEqual(recorded.map((r) => r.id));
      expect(stored.map((e) => e.seq)).toEqual(recorded.map((r) => String(r.seq)));
      expect(stored[0]!.snapshot).toEqual(recorded[0]!.snapshot);

      const rows = (
        await t.ctx.db.query<{ event_id: string; event_seq: string; destination_id: string; status: string; org_id: string; alert_id: string; body: string }>(
          'SELECT event_id, event_seq::text AS event_seq, destination_id, status, org_id, alert_id, body FROM deliveries WHERE event_id = ANY($1)',
          [recorded.map((r) => r.id)],
        )
      ).rows;
      const want = [
        `${recorded[0]!.id}→${hookA}`,
        `${recorded[0]!.id}→${pdA}`,
        `${recorded[2]!.id}→${hookA}`,
        `${recorded[2]!.id}→${pdA}`,
        `${recorded[3]!.id}→${infoB}`,
      ].sort();
      expect(rows.map((r) => `${r.event_id}→${r.destination_id}`).sort()).toEqual(want);
      for (const r of rows) {
        const ev = recorded.find((e) => e.id === r.event_id)!;
        expect([r.status, r.event_seq, r.org_id, r.alert_id]).toEqual(['pending', String(ev.seq), ev.orgId, ev.alertId]);
        expect(JSON.parse(r.body).alert.id).toBe(ev.alertId);
      }
    });

    it('keeps connector ordering inside the batch: a later event of an incident waits behind the earlier one', async () => {
      const orgId = await insertOrg(t.ctx);
      const pd = await pagerduty(orgId);
      const alertId = await insertAlert(t.ctx, orgId);
      const now = t.ctx.clock.now();
      await t.ctx.db.tx((q) => recordEvent(q, { orgId, alertId, event: 'alert.opened', occurredAt: now, snapshot: snapshotFor(t.ctx, alertId), now }));
      const recorded = await t.ctx.db.tx((q) =>
        recordEvents(q, [
          { orgId, alertId, event: 'alert.acknowledged', occurredAt: now, snapshot: snapshotFor(t.ctx, alertId, { acknowledged: true }), now },
          { orgId, alertId, event: 'alert.escalated', occurredAt: now, snapshot: snapshotFor(t.ctx, alertId, { acknowledged: true }), now },
        ]),
      );
      expect(BigInt(recorded[1]!.seq) > BigInt(recorded[0]!.seq)).toBe(true);
      const rows = (
        await t.ctx.db.query<{ event: string; status: string }>('SELECT event, status FROM deliveries WHERE destination_id = $1 AND alert_id = $2 ORDER BY event_seq', [
          pd,
          alertId,
        ])
      ).rows;
      expect(rows.map((r) => [r.event, r.status])).toEqual([
        ['alert.opened', 'pending'],
        ['alert.acknowledged', 'waiting'],
        ['alert.escalated', 'waiting'],
      ]);
    });
  });
});

/**
 * End to end through the public admin surface only: organization, destination and signals via
 * the admin API, an incident's whole lifecycle (open → acknowledge → resolve), the real
 * dispatcher and a real HTTPS receiver. Silenced and correlated incidents produce no delivery;
 * a reoccurrence produces none either (one POST per event per destination).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { verifyWebhook } from '../../src/receiver/verify.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { acknowledgeAlert, createOrg, createSilence, openAlert, resolveAlert, sendSignals, signal } from '../helpers/fixtures.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { until } from './support.js';

describe('signals to receiver, end to end', () => {
  let t: TestApp;
  let rx: TestReceiver;
  let worker: Dispatcher;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 2000 } });
    rx = await startReceiver();
    worker = await startDispatcher(t.ctx);
  });
  afterAll(async () => {
    await worker.stop();
    await rx.close();
    await t.close();
  });

  /** Every delivery finished and written back (before moving the clock past any lease). */
  const settled = () =>
    until(async () => (await t.ctx.db.query(`SELECT 1 FROM deliveries WHERE status = 'pending' OR locked_by IS NOT NULL`)).rows.length === 0, 30_000, 'settled');

  it('delivers opened, acknowledged and recovered for one incident; nothing for reoccurrences or held incidents until released', async () => {
    const org = await createOrg(t);
    const dest = (await t.admin('POST', `/orgs/${org.id}/destinations`, { name: 'hook', kind: 'webhook', url: `${rx.origin}/e2e` })).json();
    const alertId = await openAlert(t, org.id, { sourceId: 'gw-e2e' });
    await rx.waitFor(1);
    // A reoccurrence of the open incident: no event, no delivery.
    const [again] = await sendSignals(t, org.id, signal({ sourceId: 'gw-e2e' }));
    expect(again!.outcome).toBe('reoccurred');
    // A silenced incident and one correlated to an open cause: no delivery.
    await createSilence(t, org.id, { sourceId: 'gw-silenced' });
    const [silenced] = await sendSignals(t, org.id, signal({ sourceId: 'gw-silenced' }));
    expect(silenced!.silenced).toBe(true);
    const [correlated] = await sendSignals(t, org.id, signal({ sourceId: 'gw-child', causes: [{ sourceType: 'Gateway', sourceId: 'gw-e2e' }] }));
    expect(correlated!.correlated).toBe(true);
    await settled();
    expect(rx.requests).toHaveLength(1);
    clock.advance(60_000);
    await acknowledgeAlert(t, org.id, alertId, 'ops@example.com');
    await rx.waitFor(2);
    await settled();
    clock.advance(60_000);
    // Resolving the cause also releases the correlated child: its alert.opened goes out now.
    await resolveAlert(t, org.id, alertId);
    await rx.waitFor(4);
    await settled();
    await worker.idle();

    expect(rx.requests).toHaveLength(4);
    const all = rx.requests.map((r) => {
      clock.set(Number(r.headers['x-service-timestamp']) * 1000);
      return verifyWebhook({ rawBody: r.rawBody, headers: r.headers, secret: dest.signingSecret, now: clock.now() });
    });
    const child = all.filter((e) => e.alert.id !== alertId);
    expect(child.map((e) => [e.event, (e.alert as any).sourceId])).toEqual([['alert.opened', 'gw-child']]);
    const events = all.filter((e) => e.alert.id === alertId);
    expect(events.map((e) => e.event)).toEqual(['alert.opened', 'alert.acknowledged', 'alert.recovered']);
    expect(events.every((e) => e.alert.id === alertId)).toBe(true);
    expect(events.map((e) => [e.alert.status, e.alert.acknowledged])).toEqual([
      ['open', false],
      ['open', true],
      ['resolved', true],
    ]);
    // No e-mail address (the acknowledger's) and no organization id in any body.
    for (const r of rx.requests) {
      expect(r.rawBody.toString()).not.toContain('ops@example.com');
      expect(r.rawBody.toString()).not.toContain(org.id);
    }
    const history = (await t.admin('GET', `/orgs/${org.id}/destinations/${dest.id}/deliveries`)).json();
    expect(history.totalCount).toBe(4);
    expect(history.value.every((d: any) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
  });
});

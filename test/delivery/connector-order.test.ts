/**
 * Connector ordering (later events of an incident wait for its opening) in the pipeline (fan-out + dispatcher), with the real PagerDuty connector and
 * its spec-validating fake over HTTPS: later events of an incident wait for the opening, then go
 * out one at a time in event order; when the opening fails for good, the held events are
 * abandoned with a reason that says so, and later ones are abandoned at creation.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { OPENING_FAILED_REASON } from '../../src/outbox/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { PagerDutyFake } from '../fakes/pagerduty.js';
import { emit, insertOrg, until } from './support.js';

const T0 = '2026-06-15T12:00:00.000Z';
const KEY = 'ORDERTESTKEY0123456789abcdefABCD';

describe('connector ordering (waiting)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let worker: Dispatcher | undefined;
  const pd = new PagerDutyFake(KEY);

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 2000 } });
    await pd.start();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await t.ctx.db.query(`UPDATE deliveries SET status = 'abandoned' WHERE status IN ('pending', 'waiting')`);
    expect(pd.violations).toEqual([]);
  });
  afterAll(async () => {
    await pd.stop();
    await t.close();
  });

  async function setup() {
    const orgId = await insertOrg(t.ctx);
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, {
      name: 'PD',
      kind: 'pagerduty',
      config: { region: 'us', apiBaseUrl: pd.url },
      credentials: { routingKey: KEY },
    });
    expect(res.statusCode, res.body).toBe(201);
    return { orgId, destId: res.json().id as string };
  }
  const rows = async (destId: string, alertId: string) =>
    (await t.ctx.db.query('SELECT event, status, last_error FROM deliveries WHERE destination_id = $1 AND alert_id = $2 ORDER BY event_seq', [destId, alertId])).rows;

  it('holds later events until the opening succeeds, then sends them in event order', async () => {
    const { orgId, destId } = await setup();
    const opened = await emit(t.ctx, orgId, 'alert.opened');
    await emit(t.ctx, orgId, 'alert.acknowledged', { alertId: opened.alertId, snapshot: { acknowledged: true } });
    await emit(t.ctx, orgId, 'alert.recovered', { alertId: opened.alertId, snapshot: { acknowledged: true, status: 'resolved', resolvedAt: T0 } });
    expect((await rows(destId, opened.alertId)).map((r: any) => [r.event, r.status])).toEqual([
      ['alert.opened', 'pending'],
      ['alert.acknowledged', 'waiting'],
      ['alert.recovered', 'waiting'],
    ]);
    const before = pd.requests.length;
    worker = await startDispatcher(t.ctx);
    await until(async () => (await rows(destId, opened.alertId)).every((r: any) => r.status === 'succeeded'), 30_000, 'all succeeded');
    const actions = pd.requests.slice(before).map((r: any) => JSON.parse(r.body).event_action);
    expect(actions).toEqual(['trigger', 'acknowledge', 'resolve']);
  });

  it('abandons the held events, with a reason, when the opening fails for good', async () => {
    const { orgId, destId } = await setup();
    pd.failNext(1, { kind: 'reply', reply: { status: 400, body: { status: 'invalid event', message: 'Event object is invalid' } } });
    const opened = await emit(t.ctx, orgId, 'alert.opened');
    await emit(t.ctx, orgId, 'alert.acknowledged', { alertId: opened.alertId, snapshot: { acknowledged: true } });
    worker = await startDispatcher(t.ctx);
    await until(async () => (await rows(destId, opened.alertId))[0]?.status === 'abandoned', 30_000, 'opening abandoned');
    await worker.idle();
    const after = await rows(destId, opened.alertId);
    expect(after.map((r: any) => [r.event, r.status])).toEqual([
      ['alert.opened', 'abandoned'],
      ['alert.acknowledged', 'abandoned'],
    ]);
    expect(after[1].last_error).toBe(OPENING_FAILED_REASON);
    // A later event of the same incident is abandoned at creation, never sent.
    await emit(t.ctx, orgId, 'alert.recovered', { alertId: opened.alertId, snapshot: { status: 'resolved', resolvedAt: T0 } });
    const last = (await rows(destId, opened.alertId))[2];
    expect([last.status, last.last_error]).toEqual(['abandoned', OPENING_FAILED_REASON]);
  });
});

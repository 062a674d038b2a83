/**
 * Endpoint health, automatic disabling, skipped deliveries and recover, through the admin API
 * with a real HTTPS receiver and the injected clock, on both engines.
 *
 * The receiver answers 400 to fail a delivery at once (a 4xx other than 408/429 is abandoned
 * without retries), so every event is one finished delivery and `pass()` awaits it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { PagerDutyFake } from '../fakes/pagerduty.js';
import { emit, insertOrg, until } from './support.js';

const HOUR = 3_600_000;

describe('destination health, auto-disable, skipped and recover', () => {
  let t: TestApp;
  let rx: TestReceiver;
  let clock: ManualClock;
  let worker: Dispatcher | undefined;

  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 1500, autoDisableAfterMs: 2 * HOUR } });
    rx = await startReceiver();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    rx.reset();
    rx.handle(null);
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  async function webhook(orgId: string) {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'Hook', kind: 'webhook', url: `${rx.origin}/hook` });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; health: Record<string, unknown> };
  }
  const get = async (orgId: string, id: string) => (await t.admin('GET', `/orgs/${orgId}/destinations/${id}`)).json();
  async function deliveries(orgId: string, id: string, status?: string) {
    const res = await t.admin('GET', `/orgs/${orgId}/destinations/${id}/deliveries?pageSize=100${status ? `&status=${status}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().value as { id: string; status: string; attempts: number; created_at?: string; createdAt?: string }[];
  }
  /** Emits n opened events, one a second of injected time, and sends them (one pass each). */
  async function failMany(orgId: string, n: number) {
    for (let i = 0; i < n; i++) {
      await emit(t.ctx, orgId, 'alert.opened');
      await worker!.pass();
      clock.advance(1000);
    }
  }

  it('counts a run of failures, resets it on success, and disables after 10 in a row lasting the configured time', async () => {
    const orgId = await insertOrg(t.ctx);
    const { id, health } = await webhook(orgId);
    expect(health).toEqual({
      state: 'healthy',
      consecutiveFailures: 0,
      successRate24h: null,
      lastSuccessAt: null,
      lastFailureAt: null,
      disabledAt: null,
      disabledReason: null,
    });
    worker = await startDispatcher(t.ctx);

    rx.fallback = { status: 400 };
    await failMany(orgId, 3);
    expect((await get(orgId, id)).health).toMatchObject({ state: 'failing', consecutiveFailures: 3, successRate24h: 0 });
    rx.fallback = { status: 200 };
    await failMany(orgId, 1);
    const afterSuccess = (await get(orgId, id)).health;
    expect(afterSuccess).toMatchObject({ state: 'healthy', consecutiveFailures: 0, successRate24h: 0.25 });
    expect(afterSuccess.lastSuccessAt).toBe(new Date(clock.now().getTime() - 1000).toISOString());

    // Ten failures in a row, but for only ten seconds: still enabled (the run must last 2 h here).
    rx.fallback = { status: 400 };
    const runStart = clock.now();
    await failMany(orgId, 10);
    let view = await get(orgId, id);
    expect(view).toMatchObject({ enabled: true, health: { state: 'failing', consecutiveFailures: 10 } });

    // Two hours later the next failure disables it: admin API, one warning line, the gauge.
    clock.set(new Date(runStart.getTime() + 2 * HOUR));
    await failMany(orgId, 1);
    view = await get(orgId, id);
    expect(view.enabled).toBe(false);
    expect(view.health).toMatchObject({ state: 'disabled', consecutiveFailures: 11, disabledAt: new Date(runStart.getTime() + 2 * HOUR).toISOString() });
    expect(view.health.disabledReason).toBe(`automatically disabled: 11 deliveries in a row failed since ${runStart.toISOString().replace('.000Z', 'Z')}`);
    const warnings = t.ctx.logs.lines.filter((l) => l.includes('destination disabled automatically') && l.includes(id));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: expect.anything(), destinationId: id, consecutiveFailures: 11 });
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/vigia_destinations_disabled\{reason="automatic"\} 1/);

    // While disabled, new events are kept as skipped deliveries and nothing is sent.
    const sent = rx.requests.length;
    await emit(t.ctx, orgId, 'alert.opened');
    await worker.pass();
    expect(rx.requests.length).toBe(sent);
    const skipped = await deliveries(orgId, id, 'skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ status: 'skipped', attempts: 0 });

    // Enabling resets the counters.
    const enabled = await t.admin('PATCH', `/orgs/${orgId}/destinations/${id}`, { enabled: true });
    expect(enabled.statusCode, enabled.body).toBe(200);
    expect(enabled.json().health).toMatchObject({ state: 'healthy', consecutiveFailures: 0, disabledAt: null, disabledReason: null });
  });

  it('a person disabling a destination: skipped deliveries, reason shown, recover refused with 409 until enabled', async () => {
    const orgId = await insertOrg(t.ctx);
    const { id } = await webhook(orgId);
    const off = await t.admin('PATCH', `/orgs/${orgId}/destinations/${id}`, { enabled: false });
    expect(off.json().health).toMatchObject({ state: 'disabled', disabledReason: 'disabled through the admin API', disabledAt: clock.now().toISOString() });
    await emit(t.ctx, orgId, 'alert.opened');
    expect((await deliveries(orgId, id))[0]).toMatchObject({ status: 'skipped' });
    const refused = await t.admin('POST', `/orgs/${orgId}/destinations/${id}/recover`, { since: '2026-01-01T00:00:00Z' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/disabled/) });
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/vigia_destinations_disabled\{reason="manual"\} 1/);
  });

  it('recover requeues failed, abandoned and skipped deliveries of the window: same ids and bytes, event order, once', async () => {
    const orgId = await insertOrg(t.ctx);
    const { id } = await webhook(orgId);
    worker = await startDispatcher(t.ctx);
    const before = new Date(clock.now().getTime() - 1000);
    rx.fallback = { status: 400 };
    await failMany(orgId, 4);
    rx.fallback = { status: 200 };
    await failMany(orgId, 1); // succeeded: not recovered
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${id}`, { enabled: false })).statusCode).toBe(200);
    await emit(t.ctx, orgId, 'alert.opened'); // skipped
    clock.advance(1000);
    const outside = clock.now();
    clock.advance(1000);
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${id}`, { enabled: true })).statusCode).toBe(200);
    rx.fallback = { status: 400 };
    await failMany(orgId, 1); // after `until`: not recovered

    const { rows: stored } = await t.ctx.db.query<{ id: string; body: string; status: string }>(
      `SELECT id, body, status FROM deliveries WHERE destination_id = $1 AND created_at < $2 ORDER BY event_seq`,
      [id, outside],
    );
    const wanted = stored.filter((r) => r.status !== 'succeeded');
    expect(wanted.map((r) => r.status)).toEqual(['abandoned', 'abandoned', 'abandoned', 'abandoned', 'skipped']);

    rx.reset();
    // Slow answers: the first run is still sending when the second call comes.
    rx.fallback = { status: 200, delayMs: 200 };
    const res = await t.admin('POST', `/orgs/${orgId}/destinations/${id}/recover`, { since: before.toISOString(), until: outside.toISOString() });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ requeued: 5 });
    const again = await t.admin('POST', `/orgs/${orgId}/destinations/${id}/recover`, { since: before.toISOString(), until: outside.toISOString() });
    expect(again.json()).toEqual({ requeued: 0 });
    await worker.pass();

    const got = await rx.waitFor(5);
    expect(got).toHaveLength(5);
    expect(got.map((r) => r.headers['idempotency-key'])).toEqual(wanted.map((r) => r.id));
    expect(got.map((r) => r.rawBody.toString('utf8'))).toEqual(wanted.map((r) => r.body));
    const now = await deliveries(orgId, id);
    for (const w of wanted) expect(now.find((d) => d.id === w.id)).toMatchObject({ status: 'succeeded' });
    // Recovered deliveries count as successes for the health of the destination.
    expect((await get(orgId, id)).health).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
  });

  it('bad recover input gets a 400 in the error envelope; unknown destinations 404', async () => {
    const orgId = await insertOrg(t.ctx);
    const { id } = await webhook(orgId);
    const path = `/orgs/${orgId}/destinations/${id}/recover`;
    for (const body of [{}, { since: 'yesterday' }, { since: '2026-06-15' }, { since: '2026-06-15T12:00:00Z', until: '2026-06-15T11:00:00Z' }, { since: '2026-06-15T12:00:00Z', extra: 1 }]) {
      const res = await t.admin('POST', path, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', message: expect.any(String) });
    }
    const missing = await t.admin('POST', `/orgs/${orgId}/destinations/dst_missing/recover`, { since: '2026-06-15T12:00:00Z' });
    expect(missing.statusCode).toBe(404);
  });

  it('rateLimitPerSecond is set, shown, cleared and range-checked through the admin API', async () => {
    const orgId = await insertOrg(t.ctx);
    const { id } = await webhook(orgId);
    expect((await get(orgId, id)).rateLimitPerSecond).toBeNull();
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${id}`, { rateLimitPerSecond: 5 })).json().rateLimitPerSecond).toBe(5);
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${id}`, { name: 'x' })).json().rateLimitPerSecond).toBe(5);
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${id}`, { rateLimitPerSecond: null })).json().rateLimitPerSecond).toBeNull();
    for (const bad of [0, 1001, 2.5, '5']) {
      const res = await t.admin('PATCH', `/orgs/${orgId}/destinations/${id}`, { rateLimitPerSecond: bad });
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
  });

  it('connector destinations: a recovered acknowledgement waits for its recovered opening, then both go out in order', async () => {
    const KEY = 'RECOVERTESTKEY0123456789abcdefAB';
    const pd = new PagerDutyFake(KEY);
    await pd.start();
    try {
      const orgId = await insertOrg(t.ctx);
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, {
        name: 'PD',
        kind: 'pagerduty',
        config: { region: 'us', apiBaseUrl: pd.url },
        credentials: { routingKey: KEY },
      });
      expect(res.statusCode, res.body).toBe(201);
      const destId = res.json().id as string;
      const since = clock.now();
      pd.failNext(1, { kind: 'reply', reply: { status: 400, body: { status: 'invalid event', message: 'Event object is invalid' } } });
      const opened = await emit(t.ctx, orgId, 'alert.opened');
      await emit(t.ctx, orgId, 'alert.acknowledged', { alertId: opened.alertId, snapshot: { acknowledged: true } });
      worker = await startDispatcher(t.ctx);
      await worker.pass();
      const rows = async () =>
        (await t.ctx.db.query<{ event: string; status: string }>('SELECT event, status FROM deliveries WHERE destination_id = $1 ORDER BY event_seq', [destId])).rows.map(
          (r) => [r.event, r.status],
        );
      expect(await rows()).toEqual([
        ['alert.opened', 'abandoned'],
        ['alert.acknowledged', 'abandoned'],
      ]);
      await worker.stop();
      worker = undefined;

      const rec = await t.admin('POST', `/orgs/${orgId}/destinations/${destId}/recover`, { since: since.toISOString() });
      expect(rec.json()).toEqual({ requeued: 2 });
      expect(await rows()).toEqual([
        ['alert.opened', 'pending'],
        ['alert.acknowledged', 'waiting'],
      ]);
      const before = pd.requests.length;
      worker = await startDispatcher(t.ctx);
      await until(async () => (await rows()).every(([, s]) => s === 'succeeded'), 30_000, 'both succeeded');
      expect(pd.requests.slice(before).map((r: any) => JSON.parse(r.body).event_action)).toEqual(['trigger', 'acknowledge']);
      expect(pd.violations).toEqual([]);
    } finally {
      await worker?.stop();
      worker = undefined;
      await pd.stop();
    }
  });
});

describe('automatic disabling turned off (VIGIA_AUTO_DISABLE_AFTER=off)', () => {
  it('a destination failing for days stays enabled, its health says failing', async () => {
    const clock = new ManualClock('2026-06-15T12:00:00Z');
    const t = await createTestApp({ clock, env: { VIGIA_AUTO_DISABLE_AFTER: 'off' }, config: { destinationAllowlist: ['127.0.0.1'] } });
    const rx = await startReceiver();
    const worker = await startDispatcher(t.ctx);
    try {
      rx.fallback = { status: 400 };
      const orgId = await insertOrg(t.ctx);
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'Hook', kind: 'webhook', url: `${rx.origin}/hook` });
      const id = res.json().id as string;
      for (let i = 0; i < 12; i++) {
        await emit(t.ctx, orgId, 'alert.opened');
        await worker.pass();
        clock.advance(6 * HOUR);
      }
      const view = (await t.admin('GET', `/orgs/${orgId}/destinations/${id}`)).json();
      expect(view).toMatchObject({ enabled: true, health: { state: 'failing', consecutiveFailures: 12, disabledAt: null } });
      expect(t.ctx.logs.text).not.toContain('destination disabled automatically');
    } finally {
      await worker.stop();
      await rx.close();
      await t.close();
    }
  });
});

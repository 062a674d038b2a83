/**
 * Delivery under concurrency: the races a review reproduced on PostgreSQL, each forced here.
 *   - a connector event recorded while its incident's opening is being settled is still sent
 *     (fan-out and settlement serialized on the incident), and the rescuer releases or abandons
 *     held events that nothing would release;
 *   - a disabled destination's due rows (a scheduled retry included) are skipped, never sent;
 *   - rate-limited rows go out by due time and are never leased just to be given back;
 *   - the settlement of a connector batch costs the same statements for 1 outcome or 20.
 * Interleavings that need two open transactions at once run on PostgreSQL only (the embedded
 * engine runs one transaction at a time, so they cannot happen there); the rest run on both.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/alerts/events.js';
import { ManualClock } from '../../src/clock.js';
import type { Queryable } from '../../src/db/index.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { applyOutcomes, type FinishedAttempt } from '../../src/delivery/outcomes.js';
import { claimDue, DESTINATION_DISABLED_BEFORE_SEND_REASON, OPENING_FAILED_REASON } from '../../src/outbox/index.js';
import { ENGINE } from '../helpers/db.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { PagerDutyFake } from '../fakes/pagerduty.js';
import { emit, insertOrg, snapshotFor, until } from './support.js';

const T0 = '2026-06-15T12:00:00.000Z';
const KEY = 'RACETESTKEY0123456789abcdefABCDE';
/** Keeps the rescuer out of a test that checks the lock alone (it also runs once at start). */
const NO_RESCUE = { rescueEveryMs: 3_600_000 };

describe('delivery under concurrency', () => {
  let t: TestApp;
  let clock: ManualClock;
  let rx: TestReceiver;
  let worker: Dispatcher | undefined;
  const pd = new PagerDutyFake(KEY);

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 2000 } });
    await pd.start();
    rx = await startReceiver();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await t.ctx.db.query(`UPDATE deliveries SET status = 'abandoned' WHERE status IN ('pending', 'waiting')`);
    rx.reset();
    rx.handle(null);
    expect(pd.violations).toEqual([]);
  });
  afterAll(async () => {
    await rx.close();
    await pd.stop();
    await t.close();
  });

  async function pagerDuty(orgId: string): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, {
      name: 'PD',
      kind: 'pagerduty',
      config: { region: 'us', apiBaseUrl: pd.url },
      credentials: { routingKey: KEY },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  }
  async function webhook(orgId: string, path: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: path, kind: 'webhook', url: `${rx.origin}/${path}`, ...extra });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  }
  const rowsOf = async (destId: string, alertId: string) =>
    (
      await t.ctx.db.query<{ id: string; event: string; status: string; last_error: string | null }>(
        'SELECT id, event, status, last_error FROM deliveries WHERE destination_id = $1 AND alert_id = $2 ORDER BY event_seq',
        [destId, alertId],
      )
    ).rows;
  const pdActions = (from: number) => pd.requests.slice(from).map((r: any) => JSON.parse(r.body).event_action);
  const ack = (orgId: string, alertId: string) => emit(t.ctx, orgId, 'alert.acknowledged', { alertId, snapshot: { acknowledged: true } });

  // PGlite runs one transaction at a time: this interleaving cannot happen there (the rescuer tests cover it).
  if (ENGINE === 'pg') it('an event recorded while its opening is being settled is still sent (signal transaction held open)', async () => {
    const orgId = await insertOrg(t.ctx);
    const destId = await pagerDuty(orgId);
    const opened = await emit(t.ctx, orgId, 'alert.opened');
    const before = pd.requests.length;
    // The signal's transaction records the acknowledgement (held: the opening is unfinished)
    // and stays open while the dispatcher sends the opening and writes its outcome.
    let recorded!: () => void;
    let commit!: () => void;
    const isRecorded = new Promise<void>((r) => (recorded = r));
    const mayCommit = new Promise<void>((r) => (commit = r));
    const signal = t.ctx.db.tx(async (q) => {
      const now = clock.now();
      await recordEvent(q, {
        orgId,
        alertId: opened.alertId,
        event: 'alert.acknowledged',
        occurredAt: now,
        snapshot: snapshotFor(t.ctx, opened.alertId, { acknowledged: true }),
        now,
      });
      recorded();
      await mayCommit;
    });
    await isRecorded;
    worker = await startDispatcher(t.ctx, NO_RESCUE);
    await until(
      async () => (await rowsOf(destId, opened.alertId))[0]!.status === 'succeeded' || t.ctx.logs.text.includes('connector outcomes deferred'),
      15_000,
      'the opening sent and its outcome written or held back',
    );
    commit();
    await signal;
    await until(async () => (await rowsOf(destId, opened.alertId)).every((r) => r.status === 'succeeded'), 15_000, 'the acknowledgement sent');
    expect(pdActions(before)).toEqual(['trigger', 'acknowledge']);
  });

  it('the rescuer releases a held event whose opening ended without releasing it', async () => {
    const orgId = await insertOrg(t.ctx);
    const destId = await pagerDuty(orgId);
    const opened = await emit(t.ctx, orgId, 'alert.opened');
    const before = pd.requests.length;
    worker = await startDispatcher(t.ctx, NO_RESCUE);
    await worker.pass();
    await worker.stop();
    const acked = await ack(orgId, opened.alertId);
    // A stranded state, however it came about: the opening succeeded, the next event is held.
    await t.ctx.db.query(`UPDATE deliveries SET status = 'waiting', next_attempt_at = NULL WHERE event_id = $1`, [acked.id]);
    expect((await rowsOf(destId, opened.alertId)).map((r) => r.status)).toEqual(['succeeded', 'waiting']);
    worker = await startDispatcher(t.ctx); // the rescuer runs at start
    await until(async () => (await rowsOf(destId, opened.alertId)).every((r) => r.status === 'succeeded'), 15_000, 'the held event rescued and sent');
    expect(pdActions(before)).toEqual(['trigger', 'acknowledge']);
  });

  it('the rescuer abandons the held events of an incident whose opening failed for good', async () => {
    const orgId = await insertOrg(t.ctx);
    const destId = await pagerDuty(orgId);
    pd.failNext(1, { kind: 'reply', reply: { status: 400, body: { status: 'invalid event', message: 'Event object is invalid' } } });
    const opened = await emit(t.ctx, orgId, 'alert.opened');
    worker = await startDispatcher(t.ctx, NO_RESCUE);
    await worker.pass();
    await worker.stop();
    const acked = await ack(orgId, opened.alertId);
    await t.ctx.db.query(`UPDATE deliveries SET status = 'waiting', last_error = NULL, completed_at = NULL WHERE event_id = $1`, [acked.id]);
    const before = pd.requests.length;
    worker = await startDispatcher(t.ctx);
    await until(async () => (await rowsOf(destId, opened.alertId))[1]!.status === 'abandoned', 15_000, 'the held event abandoned');
    expect((await rowsOf(destId, opened.alertId)).map((r) => [r.status, r.last_error])).toEqual([
      ['abandoned', expect.any(String)],
      ['abandoned', OPENING_FAILED_REASON],
    ]);
    await worker.pass();
    expect(pd.requests.length).toBe(before);
  });

  it("a disabled destination's due rows — a scheduled retry and a first attempt — are skipped, never sent; recover sends them", async () => {
    const orgId = await insertOrg(t.ctx);
    const destId = await webhook(orgId, 'flaky');
    rx.script([{ status: 500 }]);
    const first = await emit(t.ctx, orgId);
    worker = await startDispatcher(t.ctx, NO_RESCUE);
    await worker.pass();
    await worker.stop();
    expect(rx.requests).toHaveLength(1);
    const second = await emit(t.ctx, orgId); // due now, never attempted
    const off = await t.admin('PATCH', `/orgs/${orgId}/destinations/${destId}`, { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    clock.advance(2 * 60_000); // past the first retry
    worker = await startDispatcher(t.ctx, NO_RESCUE);
    await worker.pass();
    const rows = (
      await t.ctx.db.query<{ alert_id: string; status: string; last_error: string; attempts: number; locked_by: string | null }>(
        'SELECT alert_id, status, last_error, attempts, locked_by FROM deliveries WHERE destination_id = $1 ORDER BY event_seq',
        [destId],
      )
    ).rows;
    expect(rows.map((r) => [r.alert_id, r.status, r.last_error, r.attempts, r.locked_by])).toEqual([
      [first.alertId, 'skipped', DESTINATION_DISABLED_BEFORE_SEND_REASON, 1, null],
      [second.alertId, 'skipped', DESTINATION_DISABLED_BEFORE_SEND_REASON, 0, null],
    ]);
    expect(rx.requests).toHaveLength(1);
    // Recoverable: enabled again, a recover sends both.
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${destId}`, { enabled: true })).statusCode).toBe(200);
    const rec = await t.admin('POST', `/orgs/${orgId}/destinations/${destId}/recover`, { since: T0 });
    expect(rec.statusCode, rec.body).toBe(202);
    expect(rec.json().requeued).toBe(2);
    await worker.pass();
    expect(rx.requests).toHaveLength(3);
  });

  it('a disabled connector destination skips the held events behind a skipped one too', async () => {
    const orgId = await insertOrg(t.ctx);
    const destId = await pagerDuty(orgId);
    const opened = await emit(t.ctx, orgId, 'alert.opened');
    await ack(orgId, opened.alertId);
    expect((await t.admin('PATCH', `/orgs/${orgId}/destinations/${destId}`, { enabled: false })).statusCode).toBe(200);
    const before = pd.requests.length;
    worker = await startDispatcher(t.ctx, NO_RESCUE);
    await worker.pass();
    expect((await rowsOf(destId, opened.alertId)).map((r) => [r.event, r.status])).toEqual([
      ['alert.opened', 'skipped'],
      ['alert.acknowledged', 'skipped'],
    ]);
    expect(pd.requests.length).toBe(before);
  });

  it('a rate-limited destination sends in due-time order; a row over the limit is neither leased nor moved', async () => {
    const orgId = await insertOrg(t.ctx);
    const destId = await webhook(orgId, 'paced', { rateLimitPerSecond: 1 });
    rx.script([{ status: 500 }]);
    const early = await emit(t.ctx, orgId); // created first; its first attempt fails, retry due at +1 min
    worker = await startDispatcher(t.ctx, NO_RESCUE);
    await worker.pass();
    await worker.stop();
    clock.advance(1_000);
    const late = await emit(t.ctx, orgId); // created later, due now: earlier than the retry
    clock.advance(2 * 60_000);
    const row = async (alertId: string) =>
      (
        await t.ctx.db.query<{ status: string; attempts: number; locked_by: string | null; next_attempt_at: Date | null }>(
          'SELECT status, attempts, locked_by, next_attempt_at FROM deliveries WHERE destination_id = $1 AND alert_id = $2',
          [destId, alertId],
        )
      ).rows[0]!;
    const retryDue = (await row(early.alertId)).next_attempt_at!;
    worker = await startDispatcher(t.ctx, NO_RESCUE);
    await worker.pass();
    // One send this second: the earliest due (the later-created delivery).
    expect(rx.requests.map((r) => JSON.parse(r.rawBody.toString()).alert.id)).toEqual([early.alertId, late.alertId]);
    expect(await row(early.alertId)).toEqual({ status: 'pending', attempts: 1, locked_by: null, next_attempt_at: retryDue });
    await worker.pass();
    expect(rx.requests).toHaveLength(2);
    clock.advance(1_000);
    await worker.pass();
    expect(rx.requests).toHaveLength(3);
    expect((await row(early.alertId)).status).toBe('succeeded');
  });

  it('settling a connector batch costs the same statements for 1 outcome as for 20', async () => {
    const orgId = await insertOrg(t.ctx);
    const destId = await pagerDuty(orgId);
    const statementsFor = async (n: number): Promise<number> => {
      const incidents: string[] = [];
      for (let i = 0; i < n; i++) {
        const opened = await emit(t.ctx, orgId, 'alert.opened');
        await ack(orgId, opened.alertId);
        incidents.push(opened.alertId);
      }
      const workerId = `wrk_test_${n}`;
      const claim = await claimDue(t.ctx.db, {
        workerId,
        now: clock.now(),
        limit: 1000,
        leaseMs: 60_000,
        busyDestinations: [],
        partialDestinations: new Map(),
        perDestination: 1000,
        cycleSeconds: 60,
        orgCapPerCycle: 1_000_000,
      });
      expect(claim.rows).toHaveLength(n);
      const items: FinishedAttempt[] = claim.rows.map((r) => ({
        id: r.id,
        destinationId: r.destination_id,
        alertId: r.alert_id,
        kind: r.kind,
        event: r.event,
        attempt: r.attempts,
        budgetAttempt: r.attempts,
        result: { outcome: 'succeeded', statusCode: 202, ref: { dedupKey: r.alert_id } },
        startedAt: clock.now(),
        durationMs: 5,
      }));
      let statements = 0;
      await t.ctx.db.tx((q) => {
        const counting: Queryable = {
          query: (text, params, opts) => {
            statements++;
            return q.query(text, params, opts);
          },
          exec: (text) => {
            statements++;
            return q.exec(text);
          },
        };
        return applyOutcomes(counting, items, { workerId, now: clock.now(), scheduleMs: [60_000], autoDisableAfterMs: null });
      });
      // Every opening succeeded, its reference is stored and its acknowledgement released.
      for (const alertId of incidents) {
        expect((await rowsOf(destId, alertId)).map((r) => r.status)).toEqual(['succeeded', 'pending']);
      }
      const refs = await t.ctx.db.query('SELECT 1 FROM connector_refs WHERE destination_id = $1 AND alert_id = ANY($2::text[])', [destId, incidents]);
      expect(refs.rows).toHaveLength(n);
      await t.ctx.db.query(`UPDATE deliveries SET status = 'abandoned' WHERE status IN ('pending', 'waiting')`);
      return statements;
    };
    expect(await statementsFor(20)).toBe(await statementsFor(1));
  });
});

/**
 * Dispatcher fairness and housekeeping: the per-organization cap per cycle shared by every
 * worker, the per-destination concurrency bound, graceful stop, /metrics and the 30-day purge.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher, type Dispatcher } from '../../src/delivery/dispatcher.js';
import { purgeHistory } from '../../src/outbox/index.js';
import { newId } from '../../src/ids.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { emit, insertOrg, until } from './support.js';

const T0 = '2026-06-15T12:00:30.000Z';

describe('dispatcher', () => {
  let t: TestApp;
  let rx: TestReceiver;
  let clock: ManualClock;
  let workers: Dispatcher[] = [];

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 2000, orgCapPerCycle: 3, cycleSeconds: 60 } });
    rx = await startReceiver();
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    workers = [];
    await t.ctx.db.query(`UPDATE deliveries SET status = 'abandoned' WHERE status IN ('pending', 'waiting')`);
    rx.reset();
    clock.set(T0);
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  async function hook(orgId: string, path: string): Promise<string> {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: path, kind: 'webhook', url: `${rx.origin}/${path}` });
    expect(res.statusCode).toBe(201);
    return res.json().id;
  }
  const statuses = async (destId: string) =>
    (await t.ctx.db.query('SELECT status FROM deliveries WHERE destination_id = $1', [destId])).rows.map((r: any) => r.status).sort();

  it('caps each organization per cycle across all workers; the rest go out next cycle', async () => {
    const a = await insertOrg(t.ctx, 'A');
    const b = await insertOrg(t.ctx, 'B');
    const da = await hook(a, 'a');
    const db = await hook(b, 'b');
    for (let i = 0; i < 5; i++) await emit(t.ctx, a);
    for (let i = 0; i < 2; i++) await emit(t.ctx, b);
    // Two workers on one database share the organization's budget.
    workers = [await startDispatcher(t.ctx), await startDispatcher(t.ctx)];
    await rx.waitFor(5);
    await until(async () => (await statuses(db)).every((s) => s === 'succeeded') && (await statuses(da)).filter((s) => s === 'succeeded').length === 3, 30_000, 'first cycle');
    await Promise.all(workers.map((w) => w.pass()));
    expect(rx.requests.filter((r) => r.url === '/a')).toHaveLength(3);
    expect(rx.requests.filter((r) => r.url === '/b')).toHaveLength(2);
    expect(await statuses(da)).toEqual(['pending', 'pending', 'succeeded', 'succeeded', 'succeeded']);

    clock.advance(60_000); // next cycle
    for (const w of workers) w.poke();
    await rx.waitFor(7);
    await until(async () => (await statuses(da)).every((s) => s === 'succeeded'), 30_000, 'second cycle');
    // No delivery was sent twice by the two workers.
    expect(new Set(rx.requests.map((r) => r.headers['idempotency-key'])).size).toBe(7);
  });

  it('bounds concurrency per destination and stops gracefully, finishing what is in flight', async () => {
    const org = await insertOrg(t.ctx);
    const slow = await hook(org, 'slow');
    rx.fallback = { status: 200, delayMs: 1500 };
    for (let i = 0; i < 6; i++) await emit(t.ctx, org); // cap is 3 per cycle: 3 go out now
    const w = await startDispatcher(t.ctx, { perDestination: 2 });
    await rx.waitFor(2);
    expect(rx.requests.length).toBe(2); // the third waits for a free slot at this destination
    await w.stop(); // graceful: the two in flight complete and are recorded
    const rows = (await t.ctx.db.query('SELECT status, locked_by FROM deliveries WHERE destination_id = $1', [slow])).rows;
    expect(rows.filter((r: any) => r.status === 'succeeded')).toHaveLength(2);
    expect(rows.every((r: any) => r.locked_by === null)).toBe(true);
  });

  it('a graceful stop gives back leased rows it never started: lease cleared, attempt count and budget restored', async () => {
    const org = await insertOrg(t.ctx);
    const slow = await hook(org, 'held');
    rx.fallback = { status: 200, delayMs: 1500 };
    for (let i = 0; i < 6; i++) await emit(t.ctx, org); // cap is 3 per cycle
    // Two attempts in flight at this destination, one more row leased and kept ready.
    const w = await startDispatcher(t.ctx, { perDestination: 2, prefetch: 4 });
    await rx.waitFor(2);
    const leased = async () =>
      (await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1 AND locked_by IS NOT NULL', [slow])).rows[0]!.n;
    await until(async () => (await leased()) === 3, 10_000, 'third row leased');
    expect(rx.requests.length).toBe(2);
    await w.stop();
    expect(rx.requests.length).toBe(2); // the ready row was not sent at stop
    const rows = (
      await t.ctx.db.query<{ status: string; attempts: number; locked_by: string | null }>(
        'SELECT status, attempts, locked_by FROM deliveries WHERE destination_id = $1',
        [slow],
      )
    ).rows;
    expect(rows.filter((r) => r.status === 'succeeded').map((r) => r.attempts)).toEqual([1, 1]);
    const pending = rows.filter((r) => r.status === 'pending');
    expect(pending).toHaveLength(4);
    expect(pending.every((r) => r.attempts === 0 && r.locked_by === null)).toBe(true);
    const budget = (await t.ctx.db.query<{ used: number }>('SELECT used FROM delivery_org_budget WHERE org_id = $1', [org])).rows[0]!;
    expect(budget.used).toBe(2); // the given-back row no longer counts against this cycle
    // Another worker takes the given-back row in this cycle (the cap leaves room for one).
    rx.fallback = { status: 200 };
    const w2 = await startDispatcher(t.ctx);
    workers.push(w2);
    await until(async () => (await statuses(slow)).filter((s) => s === 'succeeded').length === 3, 10_000, 'given-back row sent');
  });

  it('exposes Prometheus metrics: outcomes, attempt latency, due backlog and oldest due age', async () => {
    const org = await insertOrg(t.ctx);
    await hook(org, 'm');
    rx.script([{ status: 200 }, { status: 500 }]);
    await emit(t.ctx, org);
    await emit(t.ctx, org);
    const w = await startDispatcher(t.ctx);
    workers.push(w);
    await rx.waitFor(2);
    await until(async () => (await t.ctx.db.query(`SELECT 1 FROM deliveries WHERE locked_by IS NOT NULL`)).rows.length === 0 && rx.requests.length === 2, 30_000, 'settled');
    await w.idle();
    clock.advance(90_000); // the retry is now 30 s overdue (no worker poke: it stays due)
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.body;
    expect(text).toMatch(/vigia_deliveries_total\{outcome="succeeded",kind="webhook"\} [1-9]/);
    expect(text).toMatch(/vigia_delivery_attempts_total\{outcome="retry",kind="webhook"\} [1-9]/);
    expect(text).toMatch(/vigia_delivery_attempt_duration_seconds_bucket\{le="0\.005",kind="webhook"\}/);
    expect(text).toMatch(/vigia_delivery_attempt_duration_seconds_count\{kind="webhook"\} [1-9]/);
    expect(text).toContain('vigia_deliveries_due 1');
    expect(text).toContain('vigia_deliveries_oldest_due_age_seconds 30');
  });

  it('purges finished history older than 30 days in batches, attempts included', async () => {
    const org = await insertOrg(t.ctx);
    const dest = await hook(org, 'old');
    const now = clock.now();
    const day = 86_400_000;
    const mk = async (ageDays: number, status: string) => {
      const id = newId('dlv');
      const at = new Date(now.getTime() - ageDays * day);
      await t.ctx.db.query(
        `INSERT INTO deliveries (id, org_id, destination_id, alert_id, event, status, body, attempts, created_at, next_attempt_at)
         VALUES ($1, $2, $3, 'alt_x', 'alert.opened', $4, '{}', 1, $5, $5)`,
        [id, org, dest, status, at],
      );
      await t.ctx.db.query('INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms) VALUES ($1, 1, $2, 5)', [id, at]);
      return id;
    };
    const old = [await mk(31, 'succeeded'), await mk(40, 'failed'), await mk(35, 'abandoned'), await mk(60, 'succeeded'), await mk(31, 'succeeded')];
    const kept = [await mk(29, 'succeeded'), await mk(1, 'failed')];
    expect(await purgeHistory(t.ctx.db, now, 2)).toBe(5);
    const left = (await t.ctx.db.query('SELECT id FROM deliveries WHERE destination_id = $1', [dest])).rows.map((r: any) => r.id).sort();
    expect(left).toEqual([...kept].sort());
    const attempts = await t.ctx.db.query('SELECT count(*)::int AS n FROM delivery_attempts WHERE delivery_id = ANY($1::text[])', [old]);
    expect(attempts.rows[0].n).toBe(0);
  });
});

/**
 * Ready rows (leased beyond the attempts in flight): a row that waited long for a slot has its
 * lease renewed before its attempt, so the lease still outlives every call of that attempt; each
 * row is still sent exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher } from '../../src/delivery/dispatcher.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { emit, insertOrg, until } from './support.js';

const T0 = '2026-06-15T12:00:30.000Z';
const TIMEOUT_MS = 8_000;
const LEASE_MS = TIMEOUT_MS * 4 + 5_000;

describe('dispatcher ready rows', () => {
  let t: TestApp;
  let rx: TestReceiver;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: TIMEOUT_MS } });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  it('renews the lease of a row that waited more than 5 s for a slot, and sends every row once', async () => {
    const org = await insertOrg(t.ctx);
    const res = await t.admin('POST', `/orgs/${org}/destinations`, { name: 'slow', kind: 'webhook', url: `${rx.origin}/slow` });
    expect(res.statusCode).toBe(201);
    const dest = res.json().id as string;
    rx.fallback = { status: 200, delayMs: 5_500 };
    for (let i = 0; i < 3; i++) await emit(t.ctx, org);
    // Two attempts in flight, the third row leased and kept ready until a slot frees (~5.5 s).
    const w = await startDispatcher(t.ctx, { maxInFlight: 2, perDestination: 2, prefetch: 2 });
    try {
      const rows = async () =>
        (
          await t.ctx.db.query<{ id: string; status: string; locked_until: Date | null; locked_by: string | null }>(
            'SELECT id, status, locked_until, locked_by FROM deliveries WHERE destination_id = $1',
            [dest],
          )
        ).rows;
      await until(async () => (await rows()).filter((r) => r.locked_by !== null).length === 3, 10_000, 'three rows leased');
      await rx.waitFor(2);
      const sent = new Set(rx.requests.map((r) => String(r.headers['idempotency-key'])));
      const held = (await rows()).find((r) => !sent.has(r.id))!;
      expect(held.locked_until!.toISOString()).toBe(new Date(Date.parse(T0) + LEASE_MS).toISOString());
      clock.advance(10_000);
      await rx.waitFor(3, 20_000);
      const renewed = (await rows()).find((r) => r.id === held.id)!;
      expect(renewed.locked_until!.toISOString()).toBe(new Date(Date.parse(T0) + 10_000 + LEASE_MS).toISOString());
      await until(async () => (await rows()).every((r) => r.status === 'succeeded'), 20_000, 'all succeeded');
      const keys = rx.requests.map((r) => String(r.headers['idempotency-key']));
      expect(new Set(keys).size).toBe(3);
      expect(keys).toHaveLength(3);
    } finally {
      await w.stop();
    }
  });
});

/**
 * The shared hourly API budget: one statement per call, and the cap holds with concurrent takers
 * on two connection pools (two instances); a refused call says when the window frees, and then it
 * does. Same test on both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/index.js';
import { BudgetExhaustedError, callsInLastHour, HOURLY_CAPS, takeCall } from '../../src/monitoring/platform/budget.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

describe('hourly API budget', () => {
  let ctx: TestContext;
  let other: Database;
  beforeAll(async () => {
    ctx = await createTestContext();
    other = ctx.db.dedicatedPool(6);
  });
  afterAll(async () => {
    await other.close();
    await ctx.close();
  });

  it('concurrent takers from two instances never exceed the cap in any 60-minute window', async () => {
    const caps = { ...HOURLY_CAPS, fabric: 25 };
    const t0 = new Date('2026-06-15T12:00:00Z');
    const attempt = (db: Database, at: Date) =>
      takeCall(db, 'dir-concurrent', 'fabric', at, caps).then(
        () => 'taken',
        (err) => {
          if (!(err instanceof BudgetExhaustedError)) throw err;
          return 'refused';
        },
      );
    // 60 takers at once, half on each instance, spread over the first ten minutes.
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, (_, i) => attempt(i % 2 === 0 ? ctx.db : other, new Date(t0.getTime() + (i % 10) * 60_000))),
    );
    expect(outcomes.filter((o) => o === 'taken')).toHaveLength(25);
    expect(await callsInLastHour(ctx.db, new Date(t0.getTime() + 10 * 60_000))).toEqual([{ directoryId: 'dir-concurrent', family: 'fabric', calls: 25 }]);

    // 59 minutes later the window still holds them all; more concurrent takers are all refused.
    const later = new Date(t0.getTime() + 59 * 60_000);
    expect(new Set(await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(i % 2 ? ctx.db : other, later))))).toEqual(new Set(['refused']));
    const refusal = await takeCall(ctx.db, 'dir-concurrent', 'fabric', later, caps).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(BudgetExhaustedError);
    const retryAt = (refusal as BudgetExhaustedError).retryAt;
    // The oldest calls (minute 0) leave the window about an hour after they were made.
    expect(retryAt.getTime()).toBeGreaterThanOrEqual(t0.getTime() + 3_600_000);
    expect(retryAt.getTime()).toBeLessThanOrEqual(t0.getTime() + 3_600_000 + 10_000);
    // At retryAt the calls of minute 0 have left: exactly that many are taken again, concurrently.
    const minuteZero = outcomes.filter((o, i) => o === 'taken' && i % 10 === 0).length;
    const again = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(i % 2 ? ctx.db : other, retryAt)));
    expect(again.filter((o) => o === 'taken')).toHaveLength(minuteZero);
  });

  it('directories and families are counted apart; a call is one row of counters, not one row per call', async () => {
    const caps = { ...HOURLY_CAPS, powerbi: 3 };
    const at = new Date('2026-06-15T12:00:00Z');
    for (let i = 0; i < 3; i++) await takeCall(ctx.db, 'dir-a', 'powerbi', at, caps);
    await expect(takeCall(ctx.db, 'dir-a', 'powerbi', at, caps)).rejects.toBeInstanceOf(BudgetExhaustedError);
    await takeCall(ctx.db, 'dir-b', 'powerbi', at, caps);
    await takeCall(ctx.db, 'dir-a', 'fabric', at, caps);
    const { rows } = await ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM tenant_api_budget WHERE directory_id IN ('dir-a', 'dir-b')");
    expect(rows[0]!.n).toBe(3);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { runRollupCompactionPass } from '../../src/alerts/jobs.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, sendSignals, signal } from '../helpers/fixtures.js';

describe('rollup compaction pass', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z') });
  });
  afterAll(() => t.close());

  it('folds every organization pending deltas and keeps the counts exact', async () => {
    const orgs = [await createOrg(t), await createOrg(t)];
    for (const org of orgs) {
      await sendSignals(t, org.id, Array.from({ length: 30 }, (_, i) => signal({ sourceId: `src-${i}` })));
      await sendSignals(t, org.id, Array.from({ length: 10 }, (_, i) => signal({ sourceId: `src-${i}`, kind: 'recovery' })));
    }
    const pending = async () =>
      (await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_counts WHERE pending')).rows[0]!.n;
    expect(await pending()).toBeGreaterThan(0);

    expect(await runRollupCompactionPass(t.ctx)).toBe(2);
    expect(await pending()).toBe(0);
    const { rows } = await t.ctx.db.query<{ org_id: string; status: string; n: number }>(
      `SELECT org_id, status, sum(n)::int AS n FROM alert_counts GROUP BY org_id, status ORDER BY org_id, status`,
    );
    const { rows: truth } = await t.ctx.db.query<{ org_id: string; status: string; n: number }>(
      `SELECT org_id, status, count(*)::int AS n FROM alerts GROUP BY org_id, status ORDER BY org_id, status`,
    );
    expect(rows).toEqual(truth);
    expect(truth.filter((r) => r.status === 'resolved').map((r) => r.n)).toEqual([10, 10]);
    expect(await runRollupCompactionPass(t.ctx)).toBe(0);
  });
});

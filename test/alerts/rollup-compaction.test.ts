import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { runRollupCompactionPass } from '../../src/alerts/jobs.js';
import { compactAlertMetrics } from '../../src/alerts/metrics-rollup.js';
import { summarizeIncidents, summarizeIncidentsReference } from '../../src/public-api/queries/metrics.js';
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

describe('metrics checkpoints under concurrent ingest and compaction', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-06-10T08:00:00Z');
  beforeAll(async () => {
    t = await createTestApp({ clock });
  });
  afterAll(() => t.close());

  it('stay exact while signal batches and compactions run at once, across checkpoint days', async () => {
    const org = await createOrg(t);
    const DAY = 86_400_000;
    for (let d = 0; d < 10; d++) {
      clock.set(Date.parse('2026-06-10T08:00:00Z') + d * DAY);
      // Four ingest batches and two compactions at once: new incidents of the day, reoccurrences,
      // and recoveries of incidents opened on earlier days (late resolutions reach old checkpoints).
      await Promise.all([
        ...[0, 1, 2, 3].map((b) =>
          sendSignals(
            t,
            org.id,
            Array.from({ length: 5 }, (_, i) =>
              signal({ sourceId: `src-${d}-${b}-${i}`, sourceName: `Source ${(b + i) % 3}`, sourceType: b % 2 ? 'Dataset' : 'Gateway' }),
            ),
          ),
        ),
        d > 0
          ? sendSignals(
              t,
              org.id,
              Array.from({ length: 5 }, (_, i) =>
                signal({ sourceId: `src-${d - 1}-${i % 4}-${i}`, sourceName: `Source ${(i % 4 + i) % 3}`, sourceType: i % 4 % 2 ? 'Dataset' : 'Gateway', kind: 'recovery' }),
              ),
            )
          : Promise.resolve(),
        compactAlertMetrics(t.ctx.db, org.id),
        compactAlertMetrics(t.ctx.db, org.id),
      ]);
    }
    await compactAlertMetrics(t.ctx.db, org.id);
    const { rows } = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_metrics_checkpoints WHERE org_id = $1', [org.id]);
    expect(rows[0]!.n).toBeGreaterThanOrEqual(2);
    const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
    for (const [from, to] of [['2026-06-10', '2026-06-20'], ['2026-06-11', '2026-06-16'], ['2026-06-15', '2026-06-22'], ['2026-05-01', '2026-07-01']] as const) {
      const plain = await summarizeIncidentsReference(t.ctx.db, org.id, day(from), day(to));
      expect(plain.incidents).toBeGreaterThan(0);
      if (from === '2026-05-01') expect(plain.mttr.samples).toBeGreaterThan(0); // the late recoveries landed
      for (const strategy of ['checkpoints', 'periods'] as const) {
        expect({ strategy, ...(await summarizeIncidents(t.ctx.db, org.id, day(from), day(to), undefined, strategy)) }).toEqual({
          strategy,
          ...plain,
        });
      }
    }
  });
});

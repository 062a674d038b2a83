import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { runRollupCompactionPass } from '../../src/alerts/jobs.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, sendSignals, signal } from '../helpers/fixtures.js';
import { get, insertKey } from '../public-api/helpers.js';

/**
 * GET /alerts/metrics is a read: it never folds the rollup's pending deltas nor builds its
 * checkpoints (the periodic compaction does), and its answer is the same before and after.
 */
describe('public metrics reads do not write', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-06-10T08:00:00Z');
  beforeAll(async () => {
    t = await createTestApp({ clock });
  });
  afterAll(() => t.close());

  const rollupState = async (orgId: string) => {
    const { rows } = await t.ctx.db.query<{ pending: number; checkpoints: number }>(
      `SELECT ((SELECT count(*) FROM alert_metrics_rollup WHERE org_id = $1 AND pending)
             + (SELECT count(*) FROM alert_durations_rollup WHERE org_id = $1 AND pending))::int AS pending,
              (SELECT count(*)::int FROM alert_metrics_checkpoints WHERE org_id = $1) AS checkpoints`,
      [orgId],
    );
    return rows[0]!;
  };

  it('answers from pending deltas as they are; the compaction job folds them later to the same answer', async () => {
    const org = await createOrg(t);
    const { key } = await insertKey(t.ctx.db, org.id);
    for (let d = 0; d < 3; d++) {
      clock.set(Date.parse('2026-06-10T08:00:00Z') + d * 86_400_000);
      await sendSignals(t, org.id, Array.from({ length: 6 }, (_, i) => signal({ sourceId: `s-${d}-${i}`, sourceName: `Source ${i % 2}` })));
      if (d > 0) await sendSignals(t, org.id, [0, 1, 2].map((i) => signal({ sourceId: `s-${d - 1}-${i}`, sourceName: `Source ${i % 2}`, kind: 'recovery' })));
    }
    const before = await rollupState(org.id);
    expect(before.pending).toBeGreaterThan(0);
    expect(before.checkpoints).toBe(0);

    const urls = ['/alerts/metrics?from=2026-06-01&to=2026-06-30', '/alerts/metrics?from=2026-06-11&to=2026-06-12', '/alerts/metrics'];
    const answers: unknown[] = [];
    for (const url of urls) {
      const res = await get(t.app, url, key);
      expect(res.statusCode, url).toBe(200);
      answers.push(res.json());
    }
    expect(answers[0]).toMatchObject({ totals: { incidents: 18, resolved: 6 } });
    // Nothing was folded and no checkpoint was built by the reads.
    expect(await rollupState(org.id)).toEqual(before);

    expect(await runRollupCompactionPass(t.ctx)).toBeGreaterThanOrEqual(1);
    const after = await rollupState(org.id);
    expect(after.pending).toBe(0);
    expect(after.checkpoints).toBeGreaterThan(0);
    for (const [i, url] of urls.entries()) expect((await get(t.app, url, key)).json(), url).toEqual(answers[i]);
  });
});

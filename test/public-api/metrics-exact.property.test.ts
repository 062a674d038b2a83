import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactAlertMetrics } from '../../src/alerts/metrics-rollup.js';
import { ManualClock } from '../../src/clock.js';
import { summarizeIncidents, summarizeIncidentsReference } from '../../src/public-api/queries/metrics.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { insertAlert, insertOrg } from './helpers.js';

// Three days before 1 March: windows cross a month boundary, and some cover whole months.
const BASE = Date.parse('2026-02-26T00:00:00Z');
const DAY = 86_400_000;

/** A second near a day boundary half the time, so incidents land on both sides of midnight. */
const instant = fc.oneof(
  fc.record({ day: fc.integer({ min: 0, max: 5 }), s: fc.integer({ min: -2, max: 2 }) }).map(({ day, s }) => BASE + day * DAY + s * 1000),
  fc.integer({ min: 0, max: 6 * 86_400 - 1 }).map((s) => BASE + s * 1000),
  fc.integer({ min: -30 * 86_400, max: 40 * 86_400 }).map((s) => BASE + s * 1000),
);
const duration = fc.oneof(fc.constantFrom(0, 1, 59, 60, 900, 3600), fc.integer({ min: 0, max: 200_000 }));

const incident = fc.record({
  createdAt: instant,
  sourceType: fc.constantFrom('Gateway', 'Dataset', 'Capacity'),
  sourceName: fc.constantFrom('a', 'b', 'c', 'd'),
  ack: fc.option(duration, { nil: undefined }),
  resolve: fc.option(duration, { nil: undefined }),
  failureCount: fc.integer({ min: 1, max: 4 }),
  silenced: fc.boolean(),
  correlated: fc.boolean(),
});

/** Changes after insert, each one statement over a random subset of the incidents. */
const change = fc.record({
  kind: fc.constantFrom('acknowledge', 'resolve', 'reoccur', 'delete', 'compact', 'insert'),
  pick: fc.integer({ min: 0, max: 3 }),
  seconds: duration,
  // 'insert': a late incident, possibly after the last checkpoint or before the first one.
  at: instant,
});

const iso = (ms: number) => new Date(ms).toISOString();

describe('metrics rollup agrees with the plain computation on random incidents', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-03-10T00:00:00Z') });
  });
  afterAll(() => t.close());

  it('totals, medians, means, within-target counts, by type and noisiest sources match', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(incident, { minLength: 0, maxLength: 25 }),
        fc.array(change, { maxLength: 6 }),
        fc.record({ ack: fc.constantFrom(-1, 0, 60, 900, 3600), res: fc.constantFrom(-1, 0, 3600, 86_400) }),
        async (incidents, changes, targets) => {
          const db = t.ctx.db;
          const org = await insertOrg(db);
          for (const i of incidents) {
            await insertAlert(db, org, {
              createdAt: iso(i.createdAt),
              sourceType: i.sourceType,
              sourceName: i.sourceName,
              acknowledgedAt: i.ack === undefined ? undefined : iso(i.createdAt + i.ack * 1000),
              resolvedAt: i.resolve === undefined ? undefined : iso(i.createdAt + i.resolve * 1000),
              failureCount: i.failureCount,
              silenced: i.silenced,
              correlated: i.correlated,
            });
          }
          for (const c of changes) {
            // Every (pick+2)-th incident by id: several rows per statement.
            const subset = `id IN (SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS r FROM alerts WHERE org_id = $1) x
                                    WHERE r % ${c.pick + 2} = 0)`;
            if (c.kind === 'acknowledge')
              await db.query(
                `UPDATE alerts SET acknowledged = true, acknowledged_at = created_at + make_interval(secs => $2) WHERE org_id = $1 AND ${subset}`,
                [org, c.seconds],
              );
            else if (c.kind === 'resolve')
              await db.query(
                `UPDATE alerts SET status = 'resolved', resolved_at = created_at + make_interval(secs => $2) WHERE org_id = $1 AND ${subset}`,
                [org, c.seconds],
              );
            else if (c.kind === 'reoccur')
              await db.query(`UPDATE alerts SET failure_count = failure_count + 1 WHERE org_id = $1 AND ${subset}`, [org]);
            else if (c.kind === 'delete') await db.query(`DELETE FROM alerts WHERE org_id = $1 AND ${subset}`, [org]);
            else if (c.kind === 'insert')
              await insertAlert(db, org, {
                createdAt: iso(c.at),
                sourceType: 'Gateway',
                sourceName: ['a', 'e'][c.pick % 2]!,
                acknowledgedAt: c.pick % 2 === 0 ? iso(c.at + c.seconds * 1000) : undefined,
                resolvedAt: iso(c.at + c.seconds * 2000),
              });
            else await compactAlertMetrics(db, org);
          }
          // Days from BASE: 1 Feb is −25, 1 Mar is +3, 1 Apr is +34. Day-only windows, windows of whole
          // months, and whole months with edge days on both sides.
          // Windows far before and after every incident are empty; [-60, 80] holds them all.
          const windows: Array<[number, number]> = [
            [0, 6], [1, 3], [2, 3], [5, 9], [-1, 0], [-25, 34], [-26, 35], [3, 34], [-30, 41],
            [-60, 80], [-200, -100], [100, 200], [4, 4 + 7], [-11, 17],
          ];
          for (const [from, to] of windows) {
            const start = new Date(BASE + from * DAY);
            const end = new Date(BASE + to * DAY);
            const targetSeconds = { ackSeconds: targets.ack, resolveSeconds: targets.res };
            const plain = await summarizeIncidentsReference(db, org, start, end, targetSeconds);
            // Both ways of reading the rollup (months + days, prefix checkpoints ± edge days), and the automatic choice.
            for (const strategy of ['periods', 'checkpoints', 'auto'] as const) {
              const fast = await summarizeIncidents(db, org, start, end, targetSeconds, strategy);
              expect({ strategy, ...fast }).toEqual({ strategy, ...plain });
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 240_000);
});

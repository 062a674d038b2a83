import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactAlertMetrics } from '../../src/alerts/metrics-rollup.js';
import { ManualClock } from '../../src/clock.js';
import { summarizeIncidents, summarizeIncidentsReference } from '../../src/public-api/queries/metrics.js';
import { capacityAvailability, unionLengthMs } from '../../src/public-api/queries/sla.js';
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

describe('SLA availability in SQL agrees with the interval sweep in Node', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-03-10T00:00:00Z') });
  });
  afterAll(() => t.close());

  const MONTH_START = Date.parse('2026-03-01T00:00:00Z');
  const MONTH_END = Date.parse('2026-04-01T00:00:00Z');
  /** Microseconds from the month's start: before, inside and after it, sub-millisecond parts included. */
  const micros = fc.oneof(
    fc.integer({ min: -10 * 86_400_000, max: 40 * 86_400_000 }).map((ms) => BigInt(ms) * 1000n),
    fc.bigInt({ min: -864_000_000_000n, max: 3_456_000_000_000n }),
    // Within 90 s of a few instants: intervals that overlap, touch or leave gaps of seconds.
    fc
      .record({ anchor: fc.integer({ min: 0, max: 1 }), off: fc.integer({ min: -90_000_000, max: 90_000_000 }) })
      .map(({ anchor, off }) => BigInt(anchor) * 5n * 86_400_000_000n + BigInt(off)),
  );
  const capIncident = fc.record({
    at: micros,
    // Still open one time in three: several open incidents of one capacity, their union starting at the earliest.
    length: fc.option(fc.oneof(fc.bigInt({ min: 0n, max: 1_728_000_000_000n }), fc.bigInt({ min: 0n, max: 120_000_000n })), {
      nil: undefined,
      freq: 2,
    }),
    capacityName: fc.constantFrom('cap-a', 'cap-b', '', null),
    sourceName: fc.constantFrom('cap-a', 'cap-c'),
    severity: fc.constantFrom('error', 'error', 'info'),
    sourceType: fc.constantFrom('Capacity', 'Capacity', 'Gateway'),
  });
  /** An ISO timestamp with microseconds. */
  const isoMicros = (us: bigint) => {
    const ms = us / 1000n - (us % 1000n < 0n ? 1n : 0n);
    const rest = us - ms * 1000n;
    return new Date(MONTH_START + Number(ms)).toISOString().replace('Z', `${rest.toString().padStart(3, '0')}Z`);
  };

  /** A fresh organization with capacities cap-a and cap-z and the given incidents; their ids in order. */
  const seedCapacityIncidents = async (db: TestApp['ctx']['db'], incidents: Array<typeof capIncident extends fc.Arbitrary<infer T> ? T : never>) => {
    const org = await insertOrg(db);
    await db.query(
      `INSERT INTO capacities (org_id, name, sku, state, region) VALUES ($1, 'cap-a', 'F2', 'Active', 'x'), ($1, 'cap-z', 'F2', 'Active', 'x')`,
      [org],
    );
    const ids: string[] = [];
    for (const i of incidents) {
      ids.push(
        await insertAlert(db, org, {
          createdAt: isoMicros(i.at),
          resolvedAt: i.length === undefined ? undefined : isoMicros(i.at + i.length),
          capacityName: i.capacityName,
          sourceName: i.sourceName,
          severity: i.severity,
          sourceType: i.sourceType,
        }),
      );
    }
    return { org, ids };
  };

  it('merges overlapping and touching intervals, keeps gaps of seconds, clips to the period', async () => {
    const db = t.ctx.db;
    const org = await insertOrg(db);
    const at = (s: number) => new Date(MONTH_START + s * 1000).toISOString();
    const cap = { sourceType: 'Capacity', severity: 'error', capacityName: 'cap-a' };
    await insertAlert(db, org, { ...cap, createdAt: at(-50), resolvedAt: at(10) }); // clipped: 0–10 s
    await insertAlert(db, org, { ...cap, createdAt: at(10), resolvedAt: at(20) }); // touches: 0–20 s
    await insertAlert(db, org, { ...cap, createdAt: at(25), resolvedAt: at(40) }); // a 5 s gap: 25–40 s
    await insertAlert(db, org, { ...cap, createdAt: at(30), resolvedAt: at(35) }); // inside
    await insertAlert(db, org, { ...cap, createdAt: at(600), resolvedAt: at(600) }); // empty
    await insertAlert(db, org, { ...cap, capacityName: 'cap-b', createdAt: at(3600) }); // open: to the period's end
    const got = await capacityAvailability(db, org, new Date(MONTH_START), new Date(MONTH_START + 7200_000), 99);
    expect(got.map((a) => [a.capacityName, a.downtimeMinutes])).toEqual([
      ['cap-a', 0.58], // 35 s
      ['cap-b', 60],
    ]);
  });

  /** What the sweep in Node gave for [monthStart, periodEnd): instants truncated to milliseconds like a JavaScript Date. */
  async function sweep(db: TestApp['ctx']['db'], org: string, monthStart: number, periodEnd: number) {
    const { rows } = await db.query<{ capacity: string; s: string; e: string | null }>(
      `SELECT coalesce(nullif(capacity_name, ''), source_name) AS capacity,
              (extract(epoch FROM created_at) * 1000000)::int8::text AS s,
              (extract(epoch FROM resolved_at) * 1000000)::int8::text AS e
         FROM alerts WHERE org_id = $1 AND source_type = 'Capacity' AND severity = 'error'
          AND coalesce(resolved_at, 'infinity'::timestamptz) > $2 AND created_at < $3`,
      [org, new Date(monthStart), new Date(periodEnd)],
    );
    const ms = (us: string) => {
      const v = BigInt(us);
      return Number(v / 1000n - (v % 1000n < 0n ? 1n : 0n));
    };
    const byCapacity = new Map<string, Array<[number, number]>>([['cap-a', []], ['cap-z', []]]);
    for (const r of rows) {
      const s = Math.max(monthStart, ms(r.s));
      const e = Math.min(periodEnd, r.e === null ? periodEnd : ms(r.e));
      if (!byCapacity.has(r.capacity)) byCapacity.set(r.capacity, []);
      byCapacity.get(r.capacity)!.push([s, e]);
    }
    const periodMs = periodEnd - monthStart;
    return [...byCapacity.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([capacityName, intervals]) => {
        const down = unionLengthMs(intervals);
        const availability = periodMs === 0 ? 100 : (1 - down / periodMs) * 100;
        return {
          capacityName,
          availabilityPercent: Math.round(availability * 1000) / 1000,
          downtimeMinutes: Math.round((down / 60_000) * 100) / 100,
          meetsTarget: availability >= 99.5,
        };
      });
  }

  it('downtime, availability and the capacity list match', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(capIncident, { maxLength: 30 }),
        fc.option(fc.integer({ min: 0, max: 31 * 86_400_000 }), { nil: undefined }),
        async (incidents, nowOffset) => {
          const db = t.ctx.db;
          const { org } = await seedCapacityIncidents(db, incidents);
          const periodEnd = nowOffset === undefined ? MONTH_END : MONTH_START + nowOffset;
          const got = await capacityAvailability(db, org, new Date(MONTH_START), new Date(periodEnd), 99.5);
          expect(got).toEqual(await sweep(db, org, MONTH_START, periodEnd));
        },
      ),
      { numRuns: 40 },
    );
  }, 240_000);

  // Migration 072: open incidents are read through a partial index of the unresolved ones (the
  // earliest per capacity), resolved ones through alerts_capacity_downtime. Incidents open across
  // month boundaries, resolved late (after later months began, or never), reopened, in the
  // previous, the current and a later month: every answer equals the plain computation.
  it('open incidents across months, late resolves and reopens (partial index of open incidents)', async () => {
    const FEB = Date.parse('2026-02-01T00:00:00Z');
    const APR = MONTH_END;
    const months = [FEB, MONTH_START, APR];
    const monthEnd = (m: number) => {
      const d = new Date(m);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(capIncident, { minLength: 1, maxLength: 25 }),
        // Per incident: left alone, resolved late after `length` (µs; open ones then get one), or reopened.
        fc.array(fc.record({ op: fc.constantFrom('keep', 'resolve', 'reopen'), late: fc.bigInt({ min: 0n, max: 3_000_000_000_000n }) }), {
          minLength: 25,
          maxLength: 25,
        }),
        fc.integer({ min: 0, max: 31 * 86_400_000 }),
        async (incidents, changes, nowOffset) => {
          const db = t.ctx.db;
          const { org, ids } = await seedCapacityIncidents(db, incidents);
          const checkAll = async () => {
            for (const m of months) {
              for (const end of [monthEnd(m), Math.min(monthEnd(m), m + nowOffset)]) {
                const got = await capacityAvailability(db, org, new Date(m), new Date(end), 99.5);
                expect(got).toEqual(await sweep(db, org, m, end));
              }
            }
          };
          await checkAll();
          for (const [n, id] of ids.entries()) {
            const c = changes[n]!;
            if (c.op === 'resolve') {
              await db.query(`UPDATE alerts SET status = 'resolved', resolved_at = created_at + $2::float8 * interval '1 microsecond' WHERE id = $1`, [
                id,
                c.late.toString(),
              ]);
            } else if (c.op === 'reopen') {
              await db.query(`UPDATE alerts SET status = 'open', resolved_at = NULL WHERE id = $1`, [id]);
            }
          }
          await checkAll();
        },
      ),
      { numRuns: 30 },
    );
  }, 240_000);
});

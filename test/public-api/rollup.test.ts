/**
 * The count rollup alert_counts (migration 031) and what rests on it: exact totalCount and deep
 * pages that start at an hour boundary. Every answer is compared with the plain query it
 * replaces (count(*) and ORDER BY created_at DESC, id DESC OFFSET … LIMIT …) on the same rows,
 * across hour boundaries, after status changes, moves, deletes and compactions.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Queryable } from '../../src/db/index.js';
import { compactAlertCounts } from '../../src/alerts/rollup.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { get, insertKey, insertOrg } from './helpers.js';

const NOW = '2026-06-15T12:34:56.789Z';
const TYPES = ['Gateway', 'Capacity', 'Dataset'];

/** n alerts of `orgId` spread over `days` days before `end`, with microseconds, ties and a status mix. */
async function bulkInsert(db: Queryable, orgId: string, tag: string, n: number, end: string, days: number): Promise<void> {
  await db.query(
    `INSERT INTO alerts (id, org_id, source_type, source_id, source_name, notification_kind, severity, title, message,
        status, acknowledged, acknowledged_at, created_at, resolved_at, failure_count, last_occurrence_at, updated_at)
     SELECT $2 || lpad(i::text, 6, '0'), $1, ($5::text[])[1 + i % 3], 'src-' || i, $2 || i, 'K', 'error', 't', 'm',
            CASE WHEN i % 4 = 0 THEN 'open' ELSE 'resolved' END, i % 3 = 0,
            CASE WHEN i % 3 = 0 THEN c + interval '61.123456 seconds' END, c,
            CASE WHEN i % 4 <> 0 THEN c + interval '3600.5 seconds' END, 1 + i % 3, c, c
       FROM (SELECT i, $3::timestamptz - ((i / 2) * $4::float8 * 86400 / $6) * interval '1 second'
                      + ((i / 2) % 1000) * interval '1 microsecond' AS c
               FROM generate_series(1, $6::int) AS i) s`,
    [orgId, tag, end, days, TYPES, n],
  );
}

interface Filter {
  from: string;
  to: string;
  status?: string;
  sourceType?: string;
}

/** The plain queries the rollup replaces. */
async function expected(db: Queryable, orgId: string, f: Filter, offset: number, limit: number) {
  const params: unknown[] = [orgId, f.from, f.to];
  let cond = 'org_id = $1 AND created_at >= $2 AND created_at < $3';
  if (f.status) cond += ` AND status = $${params.push(f.status)}`;
  if (f.sourceType) cond += ` AND source_type = $${params.push(f.sourceType)}`;
  const total = await db.query<{ n: string }>(`SELECT count(*) AS n FROM alerts WHERE ${cond}`, params);
  const page = await db.query<{ source_name: string; created_at: Date; status: string }>(
    `SELECT source_name, created_at, status FROM alerts WHERE ${cond}
      ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`,
    params,
  );
  return {
    totalCount: Number(total.rows[0]!.n),
    items: page.rows.map((r) => `${r.source_name}|${r.created_at.toISOString()}|${r.status}`),
  };
}

async function actual(t: TestApp, key: string, f: Filter, page: number, pageSize: number) {
  const qs = new URLSearchParams({ from: f.from, to: f.to, page: String(page), pageSize: String(pageSize) });
  if (f.status) qs.set('status', f.status);
  if (f.sourceType) qs.set('sourceType', f.sourceType);
  const res = await get(t.app, `/alerts?${qs}`, key);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  return {
    body,
    totalCount: body.totalCount as number,
    items: (body.value as any[]).map((a) => `${a.sourceName}|${a.createdAt}|${a.status}`),
  };
}

/** Rollup sums per group (hourly and daily) that differ from a fresh count (empty when exact). */
async function rollupDrift(db: Queryable): Promise<unknown[]> {
  const drift = async (table: string, col: string, unit: string) =>
    (
      await db.query(
        `SELECT '${table}' AS rollup_table, org_id, t, status, source_type, coalesce(r.n, 0)::int8 AS rollup, coalesce(a.n, 0)::int8 AS fresh
           FROM (SELECT org_id, ${col} AS t, status, source_type, sum(n) AS n FROM ${table} GROUP BY 1, 2, 3, 4) r
           FULL JOIN (SELECT org_id, date_trunc('${unit}', created_at, 'UTC') AS t, status, source_type, count(*) AS n
                        FROM alerts GROUP BY 1, 2, 3, 4) a USING (org_id, t, status, source_type)
          WHERE coalesce(r.n, 0) <> coalesce(a.n, 0)`,
      )
    ).rows;
  return [...(await drift('alert_counts', 'hour', 'hour')), ...(await drift('alert_counts_daily', 'day', 'day'))];
}

const iso = (ms: number) => new Date(ms).toISOString();
const nowMs = Date.parse(NOW);
const DAY = 86_400_000;

describe('alert count rollup: exact totalCount and deep pages', () => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let otherOrg: string;

  // Windows: non-aligned edges, aligned edges, within one hour, across two hours, empty, wide.
  const windows = (): Filter[] => [
    { from: iso(nowMs - 30 * DAY), to: NOW },
    { from: iso(nowMs - 20 * DAY + 1234), to: iso(nowMs - 3 * DAY - 777) },
    { from: '2026-05-20T00:00:00.000Z', to: '2026-06-10T00:00:00.000Z' },
    { from: '2026-06-10T10:05:00.000Z', to: '2026-06-10T10:55:00.000Z' },
    { from: '2026-06-10T10:05:00.000Z', to: '2026-06-10T11:55:00.000Z' },
    { from: iso(nowMs - 366 * DAY), to: NOW },
    { from: iso(nowMs - 30 * DAY), to: NOW, status: 'open' },
    { from: iso(nowMs - 30 * DAY), to: NOW, sourceType: 'Capacity', status: 'resolved' },
    { from: iso(nowMs - 40 * DAY), to: NOW, sourceType: 'Nope' },
  ];

  async function checkAll(pages: Array<[number, number]>) {
    for (const f of windows()) {
      for (const [page, pageSize] of pages) {
        const want = await expected(t.ctx.db, orgId, f, (page - 1) * pageSize, pageSize);
        const got = await actual(t, key, f, page, pageSize);
        expect({ f, page, pageSize, totalCount: got.totalCount }).toEqual({ f, page, pageSize, totalCount: want.totalCount });
        expect(got.items).toEqual(want.items);
        expect(got.body.nextLink === '').toBe(page * pageSize >= want.totalCount || page >= 1000);
      }
    }
  }

  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock(NOW), config: { apiRateLimitPerMinute: 1_000_000 } });
    orgId = await insertOrg(t.ctx.db);
    otherOrg = await insertOrg(t.ctx.db);
    key = (await insertKey(t.ctx.db, orgId)).key;
    // 6000 alerts over 30 days (pairs share one createdAt: the id breaks the tie), and some
    // of another organization in the same hours, which must never be counted.
    await bulkInsert(t.ctx.db, orgId, 'a', 6000, NOW, 30);
    await bulkInsert(t.ctx.db, otherOrg, 'b', 1500, NOW, 30);
  });
  afterAll(() => t.close());

  it('the triggers keep the rollup equal to a fresh count', async () => {
    expect(await rollupDrift(t.ctx.db)).toEqual([]);
  });

  it('totalCount and pages (shallow and deep) equal the plain queries', async () => {
    await checkAll([
      [1, 100],
      [2, 500],
      [6, 500],
      [10, 500],
      [12, 500],
      [30, 200],
      [1000, 3],
      [1000, 6],
    ]);
  });

  it('stays exact after status changes, moves across hours, deletes and a compaction', async () => {
    const db = t.ctx.db;
    await db.query(`UPDATE alerts SET status = 'resolved', resolved_at = created_at + interval '1 minute'
                     WHERE org_id = $1 AND status = 'open' AND id LIKE '%3'`, [orgId]);
    await db.query(`UPDATE alerts SET status = 'open', resolved_at = NULL WHERE org_id = $1 AND id LIKE '%17'`, [orgId]);
    await db.query(`UPDATE alerts SET created_at = created_at - interval '90 minutes' WHERE org_id = $1 AND id LIKE '%5'`, [orgId]);
    await db.query(`UPDATE alerts SET source_type = 'Dataset' WHERE org_id = $1 AND id LIKE '%8'`, [orgId]);
    await db.query(`UPDATE alerts SET failure_count = failure_count + 1 WHERE org_id = $1 AND id LIKE '%9'`, [orgId]);
    await db.query(`DELETE FROM alerts WHERE org_id = $1 AND id LIKE '%21'`, [orgId]);
    expect(await rollupDrift(db)).toEqual([]);
    await checkAll([
      [1, 100],
      [7, 500],
      [11, 500],
    ]);
    expect(await compactAlertCounts(db, orgId)).toBe(true);
    for (const table of ['alert_counts', 'alert_counts_daily']) {
      const pending = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE org_id = $1 AND pending`, [orgId]);
      expect(Number(pending.rows[0]!.n)).toBe(0);
    }
    expect(await rollupDrift(db)).toEqual([]);
    await checkAll([
      [1, 100],
      [7, 500],
      [11, 500],
    ]);
  });

  it('a list request compacts many pending deltas and the answers stay exact', async () => {
    const db = t.ctx.db;
    // Row-by-row writes, as the alert writer does: one pending delta each.
    for (let i = 0; i < 1100; i++) {
      await db.query(`UPDATE alerts SET status = CASE status WHEN 'open' THEN 'resolved' ELSE 'open' END
                       WHERE id = $1`, [`a${String(1 + ((i * 7) % 6000)).padStart(6, '0')}`]);
    }
    const before = await db.query<{ n: string }>(`SELECT count(*) AS n FROM alert_counts WHERE org_id = $1 AND pending`, [orgId]);
    expect(Number(before.rows[0]!.n)).toBeGreaterThan(1000);
    await actual(t, key, { from: iso(nowMs - 7 * DAY), to: NOW }, 1, 10);
    const after = await db.query<{ n: string }>(`SELECT count(*) AS n FROM alert_counts WHERE org_id = $1 AND pending`, [orgId]);
    expect(Number(after.rows[0]!.n)).toBe(0);
    expect(await rollupDrift(db)).toEqual([]);
    await checkAll([
      [1, 100],
      [9, 500],
    ]);
  });
});

describe('alert count rollup: property', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock(NOW) });
  });
  afterAll(() => t.close());

  type Op =
    | { kind: 'insert'; hour: number; minute: number; count: number; type: number; open: boolean }
    | { kind: 'status'; pick: number }
    | { kind: 'move'; pick: number; minutes: number }
    | { kind: 'retype'; pick: number; type: number }
    | { kind: 'delete'; pick: number }
    | { kind: 'compact' };

  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      hour: fc.integer({ min: 0, max: 5 }),
      minute: fc.integer({ min: 0, max: 59 }),
      count: fc.integer({ min: 1, max: 4 }),
      type: fc.integer({ min: 0, max: 2 }),
      open: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('status' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), minutes: fc.integer({ min: -150, max: 150 }) }),
    fc.record({ kind: fc.constant('retype' as const), pick: fc.nat(), type: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    fc.constant({ kind: 'compact' as const }),
  );

  it('after any sequence of writes the rollup equals a fresh count and totalCount is exact', async () => {
    const db = t.ctx.db;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        run += 1;
        const orgId = await insertOrg(db);
        const key = (await insertKey(db, orgId)).key;
        let seq = 0;
        // Picks an existing alert of this org by position (stable order), or none.
        const pickId = async (pick: number): Promise<string | null> => {
          const { rows } = await db.query<{ id: string }>(`SELECT id FROM alerts WHERE org_id = $1 ORDER BY id`, [orgId]);
          return rows.length === 0 ? null : rows[pick % rows.length]!.id;
        };
        for (const o of ops) {
          if (o.kind === 'insert') {
            const base = Date.parse('2026-06-15T06:00:00Z') + o.hour * 3_600_000 + o.minute * 60_000;
            await db.query(
              `INSERT INTO alerts (id, org_id, source_type, source_id, source_name, notification_kind, severity, title,
                  message, status, created_at, last_occurrence_at, updated_at)
               SELECT $1 || '-' || i, $2, $3, $1 || '-' || i, 'n', 'K', 'error', 't', 'm', $4, $5::timestamptz, $5::timestamptz, $5::timestamptz
                 FROM generate_series(1, $6::int) i`,
              [`p${run}-${seq++}`, orgId, TYPES[o.type], o.open ? 'open' : 'resolved', new Date(base), o.count],
            );
          } else if (o.kind === 'compact') {
            await compactAlertCounts(db, orgId);
          } else {
            const id = await pickId(o.pick);
            if (id === null) continue;
            if (o.kind === 'status')
              await db.query(`UPDATE alerts SET status = CASE status WHEN 'open' THEN 'resolved' ELSE 'open' END WHERE id = $1`, [id]);
            else if (o.kind === 'move')
              await db.query(`UPDATE alerts SET created_at = created_at + $2 * interval '1 minute' WHERE id = $1`, [id, o.minutes]);
            else if (o.kind === 'retype') await db.query(`UPDATE alerts SET source_type = $2 WHERE id = $1`, [id, TYPES[o.type]]);
            else await db.query(`DELETE FROM alerts WHERE id = $1`, [id]);
          }
        }
        expect(await rollupDrift(db)).toEqual([]);
        for (const f of [
          { from: '2026-06-15T03:00:00.000Z', to: '2026-06-15T12:00:00.000Z' },
          { from: '2026-06-15T05:30:00.000Z', to: '2026-06-15T10:15:00.000Z', status: 'open' },
          { from: '2026-06-15T07:00:00.001Z', to: '2026-06-15T09:59:59.999Z', sourceType: 'Capacity' },
        ]) {
          const want = await expected(db, orgId, f, 0, 500);
          const got = await actual(t, key, f, 1, 500);
          expect(got.totalCount).toBe(want.totalCount);
          expect(got.items).toEqual(want.items);
        }
      }),
      { numRuns: 12 },
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/db.js';

describe(`database layer (${ENGINE})`, () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it('returns the same JS values on both engines', async () => {
    const { rows } = await t.db.query(
      `SELECT 9007199254740::int8 AS big, 12.25::numeric AS num, '2026-01-02'::date AS day,
              '2026-01-02T03:04:05Z'::timestamptz AS ts, ARRAY['a','b']::text[] AS arr, '{"x":1}'::jsonb AS doc`,
    );
    expect(rows[0]).toEqual({
      big: 9007199254740,
      num: 12.25,
      day: '2026-01-02',
      ts: new Date('2026-01-02T03:04:05Z'),
      arr: ['a', 'b'],
      doc: { x: 1 },
    });
  });

  it('rolls back a failed transaction completely', async () => {
    await t.db.exec('CREATE TABLE tx_probe (v int PRIMARY KEY)');
    await expect(
      t.db.tx(async (q) => {
        await q.query('INSERT INTO tx_probe VALUES (1)');
        await q.query('INSERT INTO tx_probe VALUES (1)');
      }),
    ).rejects.toThrow();
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM tx_probe');
    expect(rows[0]!.n).toBe(0);
  });

  it('keeps concurrent transactions apart', async () => {
    await t.db.exec('CREATE TABLE tx_iso (v int)');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.db.tx(async (q) => {
          await q.query('INSERT INTO tx_iso VALUES ($1)', [i]);
          if (i % 2) throw new Error('rollback odd');
        }).catch(() => undefined),
      ),
    );
    const { rows } = await t.db.query<{ v: number }>('SELECT v FROM tx_iso ORDER BY v');
    expect(rows.map((r) => r.v)).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
  });

  it('applies migrations once even when two runs race', async () => {
    const [a, b] = await Promise.all([migrate(t.db), migrate(t.db)]);
    expect([...a, ...b]).toEqual([]);
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0]!.n).toBeGreaterThan(0);
  });

  it('delivers NOTIFY to a listener', async () => {
    const got: string[] = [];
    const stop = await t.db.listen('probe_channel', (p) => got.push(p));
    await t.db.query(`SELECT pg_notify('probe_channel', 'hello')`);
    for (let i = 0; i < 50 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await stop();
    expect(got).toContain('hello');
  });
});

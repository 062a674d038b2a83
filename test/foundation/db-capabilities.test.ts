/**
 * What code outside src/db may rely on instead of checking the engine: the capability flags and
 * the dedicated pool (the dispatcher's own connections). A dedicated pool sees the same data,
 * and closing it never closes the shared database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/db.js';

describe(`database capabilities (${ENGINE})`, () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase({ migrate: false });
  });
  afterAll(() => t.drop());

  it('reports what the engine can do', () => {
    const many = ENGINE === 'pg';
    expect(t.db.capabilities).toEqual({ concurrentConnections: many, crossProcessNotify: many });
  });

  it('a dedicated pool reads what the shared database wrote, and closing it leaves the shared one open', async () => {
    await t.db.exec('CREATE TABLE pool_probe (v int)');
    await t.db.query('INSERT INTO pool_probe VALUES (7)');
    const pool = t.db.dedicatedPool(2);
    expect((await pool.query<{ v: number }>('SELECT v FROM pool_probe')).rows).toEqual([{ v: 7 }]);
    await pool.tx((q) => q.query('INSERT INTO pool_probe VALUES (8)'));
    await pool.close();
    const { rows } = await t.db.query<{ v: number }>('SELECT v FROM pool_probe ORDER BY v');
    expect(rows).toEqual([{ v: 7 }, { v: 8 }]);
  });

  it('a transaction on the dedicated pool: concurrent engines do not show it before commit, the single-connection one queues the reader behind it', async () => {
    await t.db.exec('CREATE TABLE pool_iso (v int)');
    const pool = t.db.dedicatedPool(2);
    const count = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pool_iso')).rows[0]!.n;
    let reader: Promise<number> | undefined;
    let seenWhileOpen: number | undefined;
    await pool.tx(async (q) => {
      await q.query('INSERT INTO pool_iso VALUES (1)');
      // With one connection, awaiting the shared database here would wait for this very transaction.
      if (t.db.capabilities.concurrentConnections) seenWhileOpen = await count();
      else reader = count();
    });
    await pool.close();
    if (t.db.capabilities.concurrentConnections) expect(seenWhileOpen).toBe(0);
    else expect(await reader).toBe(1);
    expect(await count()).toBe(1);
  });

  it('session settings of a dedicated pool apply to its own statements and transactions only, on both engines', async () => {
    const show = async (q: { query: typeof t.db.query }) => (await q.query<{ enable_bitmapscan: string }>('SHOW enable_bitmapscan')).rows[0]!.enable_bitmapscan;
    const pool = t.db.dedicatedPool(2, { settings: { enable_bitmapscan: 'off' } });
    expect(await show(pool)).toBe('off');
    expect(await pool.tx((q) => show(q))).toBe('off');
    // On the single-connection engine the pool's statements share the connection: the setting must not stay behind.
    expect(await show(t.db)).toBe('on');
    expect(await t.db.tx((q) => show(q))).toBe('on');
    expect(await show(pool)).toBe('off');
    expect(await show(t.db)).toBe('on');
    await pool.close();
    expect(await show(t.db)).toBe('on');
  });

  it('a failed statement on a dedicated pool with settings leaves the shared database usable and unchanged', async () => {
    const pool = t.db.dedicatedPool(1, { settings: { enable_bitmapscan: 'off' } });
    await expect(pool.query('SELECT 1/0')).rejects.toThrow(/division by zero/);
    await expect(pool.tx(async (q) => q.query('SELECT * FROM no_such_table'))).rejects.toThrow(/no_such_table/);
    expect((await t.db.query<{ b: string }>(`SELECT current_setting('enable_bitmapscan') AS b`)).rows[0]!.b).toBe('on');
    expect((await pool.query<{ b: string }>(`SELECT current_setting('enable_bitmapscan') AS b`)).rows[0]!.b).toBe('off');
    await pool.close();
  });

  it('several session settings combine on one dedicated pool', async () => {
    const pool = t.db.dedicatedPool(1, { settings: { plan_cache_mode: 'force_generic_plan', enable_bitmapscan: 'off' } });
    const { rows } = await pool.query<{ m: string; b: string }>(`SELECT current_setting('plan_cache_mode') AS m, current_setting('enable_bitmapscan') AS b`);
    expect(rows[0]).toEqual({ m: 'force_generic_plan', b: 'off' });
    await pool.close();
  });

  it('refuses settings that are not plain words', () => {
    expect(() => t.db.dedicatedPool(1, { settings: { "x'; DROP TABLE y; --": 'on' } })).toThrow(/invalid session setting/);
    expect(() => t.db.dedicatedPool(1, { settings: { enable_bitmapscan: "off'; SELECT 1; --" } })).toThrow(/invalid session setting/);
  });

  it('a dedicated pool set to generic plans runs prepared statements on their generic plan; the shared database keeps the default', async () => {
    const pool = t.db.dedicatedPool(1, { settings: { plan_cache_mode: 'force_generic_plan' } });
    const mode = async (db: typeof t.db) => (await db.query<{ m: string }>('SELECT current_setting($1) AS m', ['plan_cache_mode'])).rows[0]!.m;
    expect(await mode(pool)).toBe('force_generic_plan');
    expect(await mode(t.db)).toBe('auto');
    await pool.close();
  });
});

/**
 * Named prepared statements (src/db/prepared.ts) on both engines: the server parses a named
 * statement once and reuses it, rows come back converted exactly as an unnamed query's, a failed
 * execution leaves the connection usable, a statement inside a rolled-back transaction leaves
 * nothing behind, and a statement that went stale (a table whose columns changed, a statement
 * deallocated) is parsed again — outside a transaction at once, inside one by running the
 * transaction again (the embedded engine; the pg driver leaves both to the caller).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedQuery, type Database } from '../../src/db/index.js';
import { txWithRetry } from '../../src/db/retry.js';
import { DatabaseStatementError } from '../../src/db/errors.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/db.js';

let t: TestDatabase;
let db: Database;

beforeAll(async () => {
  // pg: one pooled connection, so the statement this test prepared is the one it then looks for.
  t = await createTestDatabase({ migrate: false });
  db = ENGINE === 'pg' ? t.db.dedicatedPool(1) : t.db;
  await db.exec(`CREATE TABLE prep_t (id text PRIMARY KEY, at timestamptz NOT NULL, n bigint NOT NULL, tags text[] NOT NULL, doc jsonb NOT NULL)`);
});

afterAll(async () => {
  if (db !== t.db) await db.close();
  await t.drop();
});

const SELECT = 'SELECT id, at, n, tags, doc FROM prep_t WHERE at <= $1 AND id = ANY($2::text[]) ORDER BY id';

describe(`named prepared statements (${ENGINE})`, () => {
  it('answers like the unnamed query, with the same conversions, and is parsed once', async () => {
    const at = new Date('2026-11-26T10:00:00.123Z');
    await preparedQuery(db, 'prep_insert', 'INSERT INTO prep_t (id, at, n, tags, doc) VALUES ($1, $2, $3, $4, $5)', ['a', at, 42, ['x', 'y'], { k: 1 }]);
    await preparedQuery(db, 'prep_insert', 'INSERT INTO prep_t (id, at, n, tags, doc) VALUES ($1, $2, $3, $4, $5)', ['b', new Date('0001-01-01T00:00:00Z'), 2, [], { k: [true] }]);
    const params = [new Date('2027-01-01T00:00:00Z'), ['a', 'b', 'c']];
    const plain = await db.query(SELECT, params);
    for (let i = 0; i < 8; i++) {
      const named = await preparedQuery(db, 'prep_select', SELECT, params);
      expect(named.rows).toEqual(plain.rows);
    }
    expect(plain.rows[0]).toMatchObject({ id: 'a', n: 42, tags: ['x', 'y'], doc: { k: 1 } });
    expect((plain.rows[0] as { at: Date }).at.toISOString()).toBe('2026-11-26T10:00:00.123Z');
    expect((plain.rows[1] as { at: Date }).at.toISOString()).toBe('0001-01-01T00:00:00.000Z');

    const { rows } = await db.query<{ name: string; n: number }>(
      "SELECT name, count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'vigia_prep_%' GROUP BY name ORDER BY name",
    );
    expect(rows).toEqual([
      { name: 'vigia_prep_insert', n: 1 },
      { name: 'vigia_prep_select', n: 1 },
    ]);
  });

  it('a failed execution is reported with its name and SQLSTATE, and the next statements run', async () => {
    const insert = 'INSERT INTO prep_t (id, at, n, tags, doc) VALUES ($1, $2, $3, $4, $5)';
    const err = await preparedQuery(db, 'prep_insert', insert, ['a', new Date(), 1, [], {}]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseStatementError);
    expect((err as DatabaseStatementError).code).toBe('23505');
    expect((err as DatabaseStatementError).statement).toBe('vigia_prep_insert');
    const { rows } = await preparedQuery<{ id: string }>(db, 'prep_select', SELECT, [new Date('2027-01-01T00:00:00Z'), ['a']]);
    expect(rows.map((r) => r.id)).toEqual(['a']);
  });

  it('inside a transaction it sees the transaction, and a rollback undoes its writes', async () => {
    const insert = 'INSERT INTO prep_t (id, at, n, tags, doc) VALUES ($1, $2, $3, $4, $5)';
    const seen = await db
      .tx(async (q) => {
        await preparedQuery(q, 'prep_insert', insert, ['c', new Date('2026-01-01T00:00:00Z'), 3, [], {}]);
        const inside = await preparedQuery<{ id: string }>(q, 'prep_select', SELECT, [new Date('2027-01-01T00:00:00Z'), ['c']]);
        throw Object.assign(new Error('roll back'), { inside: inside.rows.map((r) => r.id) });
      })
      .catch((e: { inside?: string[] }) => e.inside);
    expect(seen).toEqual(['c']);
    const after = await preparedQuery<{ id: string }>(db, 'prep_select', SELECT, [new Date('2027-01-01T00:00:00Z'), ['c']]);
    expect(after.rows).toEqual([]);
  });

  it('a table whose columns changed is read again, not refused', async () => {
    const star = 'SELECT * FROM prep_t WHERE id = $1';
    expect(Object.keys((await preparedQuery(db, 'prep_star', star, ['a'])).rows[0]!)).not.toContain('extra');
    await db.exec("ALTER TABLE prep_t ADD COLUMN extra text NOT NULL DEFAULT 'e'");
    if (ENGINE === 'pg') {
      // The pg driver leaves this to the caller: the server refuses the cached plan once.
      await expect(preparedQuery(db, 'prep_star', star, ['a'])).rejects.toMatchObject({ code: '0A000' });
      return;
    }
    expect((await preparedQuery(db, 'prep_star', star, ['a'])).rows[0]).toMatchObject({ id: 'a', extra: 'e' });
  });

  it('inside a transaction, a table whose columns changed fails that transaction once; run again, it reads the new columns', async () => {
    const star = 'SELECT * FROM prep_t WHERE id = $1';
    await preparedQuery(db, 'prep_star_tx', star, ['a']);
    await db.exec("ALTER TABLE prep_t ADD COLUMN extra_tx text NOT NULL DEFAULT 't'");
    const read = (q: Pick<Database, 'query'>) => preparedQuery<Record<string, unknown>>(q, 'prep_star_tx', star, ['a']);
    await expect(db.tx(read)).rejects.toMatchObject({ code: '0A000' });
    if (ENGINE === 'pg') return;
    // The statement was forgotten when it failed: the next transaction parses it afresh…
    expect((await db.tx(read)).rows[0]).toMatchObject({ id: 'a', extra_tx: 't' });
    // …and txWithRetry gets there by itself.
    await db.exec("ALTER TABLE prep_t ADD COLUMN extra_tx2 text NOT NULL DEFAULT 'u'");
    expect((await txWithRetry(db, read)).rows[0]).toMatchObject({ id: 'a', extra_tx2: 'u' });
  });

  it('a deallocated statement is parsed again (26000)', async () => {
    const one = 'SELECT id FROM prep_t WHERE id = $1';
    await preparedQuery(db, 'prep_gone', one, ['a']);
    await db.exec('DEALLOCATE vigia_prep_gone');
    if (ENGINE === 'pg') {
      await expect(preparedQuery(db, 'prep_gone', one, ['a'])).rejects.toMatchObject({ code: '26000' });
      return;
    }
    expect((await preparedQuery<{ id: string }>(db, 'prep_gone', one, ['a'])).rows).toEqual([{ id: 'a' }]);
  });

  it('through a pool with session settings (one statement per transaction, as the dispatcher claims) a stale statement recovers in the same call', async () => {
    if (ENGINE === 'pg') return; // the pg driver's named statements are the caller's to re-prepare
    const withSettings = t.db.dedicatedPool(1, { settings: { enable_bitmapscan: 'off' } });
    const star = 'SELECT * FROM prep_t WHERE id = $1';
    await preparedQuery(withSettings, 'prep_star_set', star, ['a']);
    await db.exec("ALTER TABLE prep_t ADD COLUMN extra_set text NOT NULL DEFAULT 's'");
    expect((await preparedQuery(withSettings, 'prep_star_set', star, ['a'])).rows[0]).toMatchObject({ id: 'a', extra_set: 's' });
    await withSettings.close();
  });
});

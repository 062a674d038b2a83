/**
 * Both engines read and write timestamptz of every year alike: PGlite read years 0..99 through
 * JavaScript's date parsing (0001-01-01 came back as 2001-01-01) and sent a Date after 9999 in a
 * form the server refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/db.js';

const at = (year: number, rest = '-01-01T00:00:00.000Z') => {
  const d = new Date(`2000${rest}`);
  d.setUTCFullYear(year);
  return d;
};

describe(`timestamptz of every year (${ENGINE})`, () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it('reads far years as they are stored', async () => {
    const { rows } = await t.db.query(
      `SELECT '0001-01-01T00:00:00Z'::timestamptz AS y1, '0099-03-01T12:34:56.789Z'::timestamptz AS y99,
              '9999-12-31T23:59:59.999Z'::timestamptz AS y9999, '2026-06-15T09:00:00-03:00'::timestamptz AS offset,
              '10000-01-01T00:00:00Z'::timestamptz AS y10000`,
    );
    expect(rows[0]!.y1.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(rows[0]!.y99.toISOString()).toBe('0099-03-01T12:34:56.789Z');
    expect(rows[0]!.y9999.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(rows[0]!.offset.toISOString()).toBe('2026-06-15T12:00:00.000Z');
    expect(rows[0]!.y10000.toISOString()).toBe('+010000-01-01T00:00:00.000Z');
  });

  it('writes Date parameters of far years and reads them back equal', async () => {
    for (const d of [at(1), at(99, '-03-01T12:34:56.789Z'), at(1970), at(9999, '-12-31T23:59:59.999Z'), at(10000), at(12345, '-06-15T01:02:03.004Z')]) {
      const { rows } = await t.db.query<{ back: Date }>(`SELECT $1::timestamptz AS back`, [d]);
      expect(rows[0]!.back.getTime(), d.toISOString()).toBe(d.getTime());
    }
  });
});

// @engine-neutral: no database is opened here
import { describe, expect, it } from 'vitest';
import { newId, randomBase62 } from '../../src/ids.js';

describe('identifiers', () => {
  it('newId: prefix, 10 base36 time characters, 12 base62 random characters; unique across pool refills', () => {
    const at = new Date('2026-06-15T12:00:00.000Z');
    const ids = Array.from({ length: 5000 }, () => newId('dlv', at)); // ~65,000 pool bytes: many refills
    for (const id of ids) expect(id).toMatch(/^dlv_[0-9a-z]{10}[0-9A-Za-z]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(0, 14))).size).toBe(1);
    // every base62 character shows up in the random tails (no byte range is lost)
    expect(new Set(ids.flatMap((id) => [...id.slice(14)])).size).toBe(62);
  });

  it('newId sorts by time', () => {
    const a = newId('alr', new Date('2026-06-15T12:00:00.000Z'));
    const b = newId('alr', new Date('2026-06-15T12:00:00.001Z'));
    expect(a < b).toBe(true);
  });

  it('randomBase62 gives the asked length from the base62 alphabet', () => {
    for (const n of [1, 8, 40, 43]) expect(randomBase62(n)).toMatch(new RegExp(`^[0-9A-Za-z]{${n}}$`));
  });
});

/**
 * CSV formula neutralization: a text cell that a spreadsheet would run as a formula gets a
 * leading `'` — also when the sign hides behind white space, NBSP, a BOM or zero-width
 * characters, or comes as a fullwidth or small compatibility form.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { looksLikeFormula } from '../../src/public-api/csv.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { get, insertCapacity, insertKey, insertOrg } from './helpers.js';

const INVISIBLE = [' ', '\u00a0', '\ufeff', '\u200b', '\u200c', '\u200d', '\u2060', '\u200e', '\u202e', '\u3000', '\u2007', '\u00ad'];
const SIGNS = ['=', '+', '-', '@', '\uff1d', '\uff0b', '\uff0d', '\uff20', '\ufe66', '\ufe62', '\ufe63', '\ufe6b', '\u2212'];

describe('CSV formula neutralization', () => {
  it('any run of invisible characters before any formula sign is neutralized; visible text is not', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...INVISIBLE), { maxLength: 6 }), fc.constantFrom(...SIGNS), fc.string(), (prefix, sign, rest) =>
        looksLikeFormula(`${prefix.join('')}${sign}${rest}`),
      ),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...INVISIBLE), { maxLength: 6 }), fc.constantFrom('a', 'Z', '0', '9', 'é', '(', "'", '😀'), fc.string(), (prefix, first, rest) =>
        !looksLikeFormula(`${prefix.join('')}${first}${rest}`),
      ),
      { numRuns: 2000 },
    );
  });

  describe('on the wire', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { apiRateLimitPerMinute: 100_000 } });
    });
    afterAll(() => t.close());

    it('capacities whose names hide a formula are written with a leading quote', async () => {
      const org = await insertOrg(t.ctx.db);
      const key = (await insertKey(t.ctx.db, org)).key;
      const names = [
        '  =1+1', // spaces
        '\u00a0=HYPERLINK("http://evil","x")', // NBSP
        '\ufeff+cmd', // BOM
        '\u200b\u200d-2+3', // zero-width space and joiner
        '\uff1dSUM(A1)', // fullwidth equals
        '\uff20cmd', // fullwidth at
        'ok name', // plain: unchanged
      ];
      for (const [i, name] of names.entries()) await insertCapacity(t.ctx.db, org, name, { sku: `F${i}` });
      const res = await get(t.app, '/capacities?format=csv&pageSize=50', key);
      expect(res.statusCode).toBe(200);
      const rows = res.body.replace(/^\ufeff/, '').split('\r\n').slice(1, -1);
      const bySku = new Map(rows.map((r) => [r.split(',').at(-3)!, r]));
      expect(bySku.get('F0')).toBe("'  =1+1,F0,Active,brazilsouth");
      expect(bySku.get('F1')).toBe(`"'\u00a0=HYPERLINK(""http://evil"",""x"")",F1,Active,brazilsouth`);
      expect(bySku.get('F2')).toBe("'\ufeff+cmd,F2,Active,brazilsouth");
      expect(bySku.get('F3')).toBe("'\u200b\u200d-2+3,F3,Active,brazilsouth");
      expect(bySku.get('F4')).toBe("'\uff1dSUM(A1),F4,Active,brazilsouth");
      expect(bySku.get('F5')).toBe("'\uff20cmd,F5,Active,brazilsouth");
      expect(bySku.get('F6')).toBe('ok name,F6,Active,brazilsouth');
    });
  });
});

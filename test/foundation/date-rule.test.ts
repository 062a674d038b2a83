/**
 * One date rule for every date input of both APIs: a real day or instant from 1970-01-01 through
 * 9999-12-31; an event's own time at most five minutes ahead of the server's clock. Outside it
 * the answer is a 400 naming the parameter — never a 500, never a silently different date.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { EARLIEST_MS, LATEST_MS, parseDay, parseInstant } from '../../src/date-rule.js';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, signal } from '../helpers/fixtures.js';
import { errorOf, get, insertKey } from '../public-api/helpers.js';

const NOW = '2026-06-15T12:00:00Z';

describe('the date rule (pure)', () => {
  it('accepts exactly the real instants of the range, in every zone form, and reads them exactly', () => {
    const instant = fc.record({
      ms: fc.integer({ min: EARLIEST_MS - 86_400_000 * 400, max: LATEST_MS + 86_400_000 * 400 }),
      offset: fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
    });
    fc.assert(
      fc.property(instant, ({ ms, offset }) => {
        // The wall-clock text of `ms` seen from `offset`, written by hand (Date.toISOString
        // writes years past 9999 with a sign, which is not in the accepted form).
        const local = new Date(ms + offset * 60_000);
        const y = local.getUTCFullYear();
        const p = (n: number, w = 2) => String(n).padStart(w, '0');
        const zone = offset === 0 ? 'Z' : `${offset < 0 ? '-' : '+'}${p(Math.floor(Math.abs(offset) / 60))}:${p(Math.abs(offset) % 60)}`;
        const text = `${p(y, 4)}-${p(local.getUTCMonth() + 1)}-${p(local.getUTCDate())}T${p(local.getUTCHours())}:${p(local.getUTCMinutes())}:${p(local.getUTCSeconds())}.${p(local.getUTCMilliseconds(), 3)}${zone}`;
        const parsed = parseInstant(text);
        if (y > 9999 || y < 1000) return parsed === null; // not four digits: malformed
        if (ms < EARLIEST_MS || ms > LATEST_MS) return parsed === null;
        return parsed !== null && parsed.getTime() === ms;
      }),
      { numRuns: 2000 },
    );
  });

  it('never accepts an impossible or out-of-range text, whatever its digits', () => {
    const d2 = fc.integer({ min: 0, max: 99 });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), d2, d2, d2, d2, d2, (y, mo, d, h, mi, s) => {
        const p = (n: number, w = 2) => String(n).padStart(w, '0');
        const text = `${p(y, 4)}-${p(mo)}-${p(d)}T${p(h)}:${p(mi)}:${p(s)}Z`;
        const parsed = parseInstant(text, { utcOnly: true });
        const real = y >= 1970 && mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate() && h < 24 && mi < 60 && s < 60;
        if (!real) return parsed === null;
        return parsed !== null && parsed.toISOString() === `${p(y, 4)}-${p(mo)}-${p(d)}T${p(h)}:${p(mi)}:${p(s)}.000Z`;
      }),
      { numRuns: 3000 },
    );
    for (const bad of ['0000-01-01', '0001-01-01', '1969-12-31', '2026-02-29', '10000-01-01', '+002026-01-01', '2026-1-01']) {
      expect(parseDay(bad), bad).toBeNull();
    }
    expect(parseDay('1970-01-01')?.toISOString()).toBe('1970-01-01T00:00:00.000Z');
    expect(parseDay('9999-12-31')?.toISOString()).toBe('9999-12-31T00:00:00.000Z');
    expect(parseInstant('2026-06-15T12:00:00+25:00')).toBeNull();
    expect(parseInstant('2026-06-15T12:00:00+02:00', { utcOnly: true })).toBeNull();
    // The public API keeps its one strict form; the admin API also takes minutes-only and lower case.
    for (const loose of ['2026-06-15T12:00Z', '2026-06-15t12:00:00Z', '2026-06-15T12:00:00z']) {
      expect(parseInstant(loose, { utcOnly: true }), loose).toBeNull();
      expect(parseInstant(loose)?.toISOString(), loose).toBe('2026-06-15T12:00:00.000Z');
    }
    expect(parseInstant('1970-01-01T01:00:00+02:00')).toBeNull(); // 1969-12-31T23:00Z
  });
});

describe('the date rule on the wire', () => {
  let t: TestApp;
  let orgId: string;
  let key: string;
  let destinationId: string;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock(NOW), config: { apiRateLimitPerMinute: 100_000 } });
    setResolver(t.ctx, async () => [{ address: '93.184.216.34', family: 4 }]);
    orgId = (await createOrg(t)).id;
    key = (await insertKey(t.ctx.db, orgId)).key;
    const d = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'hook', kind: 'webhook', url: 'https://hooks.example.com/x' });
    expect(d.statusCode).toBe(201);
    destinationId = d.json().id;
  });
  afterAll(() => t.close());

  it('public API: far dates on every route answer 200 inside the range and a 400 naming the parameter outside it', async () => {
    const inside = [
      '/alerts/metrics?to=9999-12-31',
      '/alerts/metrics?from=9999-01-01&to=9999-12-31',
      '/alerts/metrics?from=1970-01-01&to=1970-01-01',
      '/costs/daily?to=9999-12-31',
      '/costs/daily?from=1970-01-01&to=1970-01-01',
      '/alerts?to=9999-12-31T23:59:59.999Z',
      '/alerts?from=9999-12-31T00:00:00Z&to=9999-12-31T23:59:59Z',
      '/alerts?from=1970-01-01T00:00:00Z&to=1970-01-02T00:00:00Z',
    ];
    for (const url of inside) {
      const res = await get(t.app, url, key);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
    const outside: Array<[string, string]> = [
      ['/alerts/metrics?to=10000-01-01', 'to'],
      ['/alerts/metrics?from=0000-01-01', 'from'],
      ['/alerts/metrics?from=1969-12-31', 'from'],
      ['/costs/daily?to=0001-01-01', 'to'],
      ['/alerts?from=0001-01-01T00:00:00Z', 'from'],
      ['/alerts?to=1969-12-31T23:59:59Z', 'to'],
      ['/alerts?to=%2B010000-01-01T00:00:00Z', 'to'],
    ];
    for (const [url, name] of outside) {
      const res = await get(t.app, url, key);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(errorOf(res).message, url).toMatch(new RegExp(`^${name} must be .*1970-01-01 through 9999-12-31`));
    }
    expect(t.ctx.logs.text).not.toContain('unhandled error');
  });

  it('public API: any date text on any date parameter is answered 200 or 400, never 500', async () => {
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    const day = fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }));
    await fc.assert(
      fc.asyncProperty(day, fc.constantFrom('/alerts/metrics?to=', '/alerts/metrics?from=', '/costs/daily?to=', '/alerts?to=', '/alerts?from='), async ([y, mo, d], route) => {
        const text = `${p(y, 4)}-${p(mo)}-${p(d)}${route.startsWith('/alerts?') ? 'T00:00:00Z' : ''}`;
        const res = await get(t.app, `${route}${text}`, key);
        return res.statusCode === 200 || res.statusCode === 400;
      }),
      { numRuns: 60 },
    );
    expect(t.ctx.logs.text).not.toContain('unhandled error');
  });

  it('admin API: recover, silences, keys, costs and delivery history refuse dates outside the range, naming the field', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', `/orgs/${orgId}/destinations/${destinationId}/recover`, { since: '0000-01-01T00:00:00Z' }, '"since"'],
      ['POST', `/orgs/${orgId}/destinations/${destinationId}/recover`, { since: '2026-01-01T00:00:00Z', until: '0001-01-01T00:00:00Z' }, '"until"'],
      ['POST', `/orgs/${orgId}/silences`, { matchers: {}, startsAt: '0001-01-01T00:00:00Z', endsAt: '2026-06-15T13:00:00Z', comment: 'x' }, 'startsAt'],
      ['POST', `/orgs/${orgId}/silences`, { matchers: {}, endsAt: '10000-01-01T00:00:00Z', comment: 'x' }, 'endsAt'],
      ['POST', `/orgs/${orgId}/api-keys`, { name: 'k', scopes: ['ReadSla'], expiresAt: '0001-01-01T00:00:00Z' }, 'expiresAt'],
      ['POST', `/orgs/${orgId}/costs`, [{ date: '0001-01-01', capacityName: 'c', currency: 'BRL', cost: 1, amortizedCost: 1, overageCost: 0 }], '.date'],
      ['GET', `/orgs/${orgId}/destinations/${destinationId}/deliveries?from=0001-01-01T00:00:00Z`, undefined, 'from'],
      ['GET', `/orgs/${orgId}/alerts?to=0001-01-01T00:00:00Z`, undefined, 'to'],
    ];
    for (const [method, url, body, field] of cases) {
      const res = await t.admin(method as 'GET', url, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.message, url).toContain(field);
      expect(res.json().error.message, url).toContain('1970-01-01 through 9999-12-31');
    }
    const silences = await t.admin('GET', `/orgs/${orgId}/silences`);
    expect(silences.json()).toEqual([]);
    expect(t.ctx.logs.text).not.toContain('unhandled error');
  });

  it('signals: occurredAt outside the range or more than five minutes ahead is refused; the range is stored exactly', async () => {
    const refused: Array<[string, RegExp]> = [
      ['0001-01-01T00:00:00Z', /signals\[0\]\.occurredAt must be .*1970-01-01 through 9999-12-31/],
      ['0000-01-01T00:00:00Z', /signals\[0\]\.occurredAt must be/],
      ['9999-12-31T00:00:00Z', /signals\[0\]\.occurredAt must not be more than 5 minutes ahead/],
      ['2026-06-15T12:05:00.001Z', /signals\[0\]\.occurredAt must not be more than 5 minutes ahead/],
    ];
    for (const [occurredAt, message] of refused) {
      const res = await t.admin('POST', `/orgs/${orgId}/signals`, [signal({ sourceId: `far-${occurredAt}`, occurredAt })]);
      expect(res.statusCode, `${occurredAt}: ${res.body}`).toBe(400);
      expect(res.json().error.message).toMatch(message);
    }
    const { rows: none } = await t.ctx.db.query(`SELECT count(*)::int AS n FROM alerts WHERE source_id LIKE 'far-%'`);
    expect(none[0]!.n).toBe(0);

    const accepted = ['1970-01-01T00:00:00Z', '2026-06-15T12:05:00Z', '2026-06-15T14:04:00+02:00'];
    for (const occurredAt of accepted) {
      const res = await t.admin('POST', `/orgs/${orgId}/signals`, [signal({ sourceId: `ok-${occurredAt}`, occurredAt })]);
      expect(res.statusCode, `${occurredAt}: ${res.body}`).toBe(200);
      const { rows } = await t.ctx.db.query<{ created_at: Date }>('SELECT created_at FROM alerts WHERE source_id = $1', [`ok-${occurredAt}`]);
      expect(rows[0]!.created_at.getTime()).toBe(Date.parse(occurredAt));
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { unionLengthMs } from '../../src/public-api/queries/sla.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { errorOf, get, insertAlert, insertCapacity, insertKey, insertOrg } from './helpers.js';

const plus = (iso: string, seconds: number) => new Date(new Date(iso).getTime() + seconds * 1000).toISOString();

describe('GET /alerts/metrics (hand-computed fixture)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { apiRateLimitPerMinute: 100_000 } });
    const org = await insertOrg(t.ctx.db);
    key = (await insertKey(t.ctx.db, org)).key;
    const db = t.ctx.db;
    const A = '2026-06-01T00:00:00Z';
    await insertAlert(db, org, { sourceType: 'Gateway', sourceName: 'gw-1', createdAt: A, acknowledgedAt: plus(A, 600), resolvedAt: plus(A, 3600), failureCount: 3 });
    const B = '2026-06-02T00:00:00Z';
    await insertAlert(db, org, { sourceType: 'Gateway', sourceName: 'gw-1', createdAt: B, acknowledgedAt: plus(B, 300) });
    const C = '2026-06-03T00:00:00Z';
    await insertAlert(db, org, { sourceType: 'Dataset', sourceName: 'ds-1', createdAt: C, resolvedAt: plus(C, 7200), failureCount: 5, silenced: true });
    await insertAlert(db, org, { sourceType: 'Dataset', sourceName: 'ds-2', createdAt: '2026-06-10T23:59:59Z', correlated: true });
    const E = '2026-06-05T00:00:00Z';
    await insertAlert(db, org, { sourceType: 'Capacity', sourceName: 'cap-x', createdAt: E, acknowledgedAt: plus(E, 900), resolvedAt: plus(E, 1800), failureCount: 2 });
    const F = '2026-06-06T00:00:00Z';
    await insertAlert(db, org, { sourceType: 'Gateway', sourceName: 'gw-2', createdAt: F, resolvedAt: plus(F, 600) });
    // Outside [2026-06-01, 2026-06-11): the exclusive end and one second before the start.
    await insertAlert(db, org, { sourceType: 'Gateway', sourceName: 'late', createdAt: '2026-06-11T00:00:00Z', acknowledgedAt: '2026-06-11T00:00:01Z' });
    await insertAlert(db, org, { sourceType: 'Gateway', sourceName: 'early', createdAt: '2026-05-31T23:59:59Z' });
    // Another organization's data never counts.
    const other = await insertOrg(t.ctx.db);
    await insertAlert(db, other, { sourceType: 'Gateway', sourceName: 'gw-1', createdAt: A, acknowledgedAt: plus(A, 1) });
  });
  afterAll(() => t.close());

  it('computes totals, odd and even medians, means, by type and noisiest sources', async () => {
    const res = await get(t.app, '/alerts/metrics?from=2026-06-01&to=2026-06-10', key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      from: '2026-06-01',
      to: '2026-06-10',
      totals: { incidents: 6, acknowledged: 3, resolved: 4, openUnacknowledged: 1, silenced: 1, correlated: 1, reoccurrences: 7 },
      // MTTA samples 600, 300, 900 (odd count): median 600, mean 600.
      mtta: { medianSeconds: 600, meanSeconds: 600, samples: 3 },
      // MTTR samples 3600, 7200, 1800, 600 (even count): median (1800 + 3600) / 2, mean 13200 / 4.
      mttr: { medianSeconds: 2700, meanSeconds: 3300, samples: 4 },
      bySourceType: [
        { sourceType: 'Gateway', incidents: 3 },
        { sourceType: 'Dataset', incidents: 2 },
        { sourceType: 'Capacity', incidents: 1 },
      ],
      noisiestSources: [
        { sourceType: 'Dataset', sourceName: 'ds-1', incidents: 1, occurrences: 5 },
        { sourceType: 'Gateway', sourceName: 'gw-1', incidents: 2, occurrences: 4 },
        { sourceType: 'Capacity', sourceName: 'cap-x', incidents: 1, occurrences: 2 },
        { sourceType: 'Dataset', sourceName: 'ds-2', incidents: 1, occurrences: 1 },
        { sourceType: 'Gateway', sourceName: 'gw-2', incidents: 1, occurrences: 1 },
      ],
    });
  });

  it('answers zero samples with null median and mean', async () => {
    const res = await get(t.app, '/alerts/metrics?from=2026-06-12&to=2026-06-12', key);
    expect(res.json()).toEqual({
      from: '2026-06-12',
      to: '2026-06-12',
      totals: { incidents: 0, acknowledged: 0, resolved: 0, openUnacknowledged: 0, silenced: 0, correlated: 0, reoccurrences: 0 },
      mtta: { medianSeconds: null, meanSeconds: null, samples: 0 },
      mttr: { medianSeconds: null, meanSeconds: null, samples: 0 },
      bySourceType: [],
      noisiestSources: [],
    });
  });

  it('defaults to the 7 days ending today and keeps 10 noisiest sources', async () => {
    const org = await insertOrg(t.ctx.db);
    const k = (await insertKey(t.ctx.db, org)).key;
    for (let i = 0; i < 12; i++) {
      await insertAlert(t.ctx.db, org, { sourceName: `s${String(i).padStart(2, '0')}`, createdAt: '2026-06-09T00:00:00Z', failureCount: i + 1 });
    }
    await insertAlert(t.ctx.db, org, { sourceName: 'too-old', createdAt: '2026-06-08T23:59:59Z' });
    const res = await get(t.app, '/alerts/metrics', k);
    const body = res.json();
    expect(body.from).toBe('2026-06-09');
    expect(body.to).toBe('2026-06-15');
    expect(body.totals.incidents).toBe(12);
    expect(body.totals.reoccurrences).toBe(66);
    expect(body.noisiestSources.map((s: any) => s.sourceName)).toEqual(['s11', 's10', 's09', 's08', 's07', 's06', 's05', 's04', 's03', 's02']);
  });

  it('refuses bad windows naming the parameter', async () => {
    for (const [url, param] of [
      ['/alerts/metrics?from=2026-06-10&to=2026-06-09', 'from'],
      ['/alerts/metrics?from=2025-05-31&to=2026-06-01', 'from'],
      ['/alerts/metrics?from=2026-06-01T00:00:00Z', 'from'],
      ['/alerts/metrics?to=2026-13-01', 'to'],
      ['/alerts/metrics?page=1', 'page'],
    ] as const) {
      const res = await get(t.app, url, key);
      expect(res.statusCode, url).toBe(400);
      expect(errorOf(res).message, url).toContain(param);
    }
    // 366 days inclusive is the maximum.
    expect((await get(t.app, '/alerts/metrics?from=2025-06-01&to=2026-06-01', key)).statusCode).toBe(200);
  });
});

describe('GET /sla (hand-computed fixture)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { apiRateLimitPerMinute: 100_000 } });
    const org = await insertOrg(t.ctx.db, { mtta: 15, mttr: 60, availability: 99 });
    key = (await insertKey(t.ctx.db, org)).key;
    const db = t.ctx.db;
    for (const c of ['cap-a', 'cap-b', 'cap-e']) await insertCapacity(db, org, c);
    const cap = (name: string, createdAt: string, resolvedAt: string | null, extra: object = {}) =>
      insertAlert(db, org, { sourceType: 'Capacity', sourceName: name, capacityName: name, createdAt, resolvedAt, ...extra });
    const S1 = '2026-05-02T00:00:00Z';
    await insertAlert(db, org, { sourceName: 'gw-1', createdAt: S1, acknowledgedAt: plus(S1, 600), resolvedAt: plus(S1, 3000) });
    const S2 = '2026-05-03T00:00:00Z';
    await insertAlert(db, org, { sourceName: 'gw-1', createdAt: S2, acknowledgedAt: plus(S2, 900), resolvedAt: plus(S2, 3601) });
    await insertAlert(db, org, { sourceType: 'Dataset', sourceName: 'ds-1', createdAt: '2026-05-04T00:00:00Z' });
    // cap-a: two overlapping incidents 00:00–02:00 and 01:00–03:00 → 180 minutes.
    await cap('cap-a', '2026-05-10T00:00:00Z', '2026-05-10T02:00:00Z', { acknowledgedAt: '2026-05-10T00:20:00Z' });
    await cap('cap-a', '2026-05-10T01:00:00Z', '2026-05-10T03:00:00Z');
    // cap-b: one from April into May (60 min in May), one open since May 31 23:30 (30 min in May).
    await cap('cap-b', '2026-04-30T23:00:00Z', '2026-05-01T01:00:00Z');
    await cap('cap-b', '2026-05-31T23:30:00Z', null);
    // cap-c: severity info is not downtime.
    await cap('cap-c', '2026-05-05T00:00:00Z', '2026-05-05T10:00:00Z', { severity: 'info' });
    // cap-d: no capacity_name, matched by source_name: 2678.4 s = 44.64 minutes.
    await insertAlert(db, org, { sourceType: 'Capacity', sourceName: 'cap-d', capacityName: null, createdAt: '2026-05-20T00:00:00Z', resolvedAt: '2026-05-20T00:44:38.400Z' });
    // cap-f: one whole day down.
    await cap('cap-f', '2026-05-15T00:00:00Z', '2026-05-16T00:00:00Z');
  });
  afterAll(() => t.close());

  it('reports the previous month by default', async () => {
    const res = await get(t.app, '/sla', key);
    expect(res.statusCode).toBe(200);
    const minutes = 31 * 24 * 60;
    const pct = (down: number) => Math.round((1 - down / minutes) * 100 * 1000) / 1000;
    expect(res.json()).toEqual({
      month: '2026-05',
      targets: { mttaMinutes: 15, mttrMinutes: 60, availabilityPercent: 99 },
      totals: {
        incidents: 9,
        acknowledgedWithinTarget: 2,
        ackCompliancePercent: 22.22,
        resolvedWithinTarget: 2,
        resolutionCompliancePercent: 22.22,
      },
      mtta: { medianSeconds: 900, meanSeconds: 900, samples: 3 },
      mttr: { medianSeconds: 7200, meanSeconds: 20868.486, samples: 7 },
      incidentsBySourceType: [
        { sourceType: 'Capacity', incidents: 6 },
        { sourceType: 'Gateway', incidents: 2 },
        { sourceType: 'Dataset', incidents: 1 },
      ],
      noisiestSources: [
        { sourceType: 'Capacity', sourceName: 'cap-a', incidents: 2, occurrences: 2 },
        { sourceType: 'Gateway', sourceName: 'gw-1', incidents: 2, occurrences: 2 },
        { sourceType: 'Capacity', sourceName: 'cap-b', incidents: 1, occurrences: 1 },
        { sourceType: 'Capacity', sourceName: 'cap-c', incidents: 1, occurrences: 1 },
        { sourceType: 'Capacity', sourceName: 'cap-d', incidents: 1, occurrences: 1 },
        { sourceType: 'Capacity', sourceName: 'cap-f', incidents: 1, occurrences: 1 },
        { sourceType: 'Dataset', sourceName: 'ds-1', incidents: 1, occurrences: 1 },
      ],
      availability: [
        { capacityName: 'cap-a', availabilityPercent: pct(180), downtimeMinutes: 180, meetsTarget: true },
        { capacityName: 'cap-b', availabilityPercent: pct(90), downtimeMinutes: 90, meetsTarget: true },
        { capacityName: 'cap-d', availabilityPercent: 99.9, downtimeMinutes: 44.64, meetsTarget: true },
        { capacityName: 'cap-e', availabilityPercent: 100, downtimeMinutes: 0, meetsTarget: true },
        { capacityName: 'cap-f', availabilityPercent: 96.774, downtimeMinutes: 1440, meetsTarget: false },
      ],
    });
    expect(pct(180)).toBe(99.597);
  });

  it('clips the current month to now', async () => {
    const res = await get(t.app, '/sla?month=2026-06', key);
    const body = res.json();
    expect(body.month).toBe('2026-06');
    expect(body.totals.incidents).toBe(0);
    expect(body.totals.ackCompliancePercent).toBe(100);
    expect(body.mtta).toEqual({ medianSeconds: null, meanSeconds: null, samples: 0 });
    // cap-b has been down since May 31 23:30: all of June so far, 14.5 days.
    expect(body.availability.find((a: any) => a.capacityName === 'cap-b')).toEqual({
      capacityName: 'cap-b',
      availabilityPercent: 0,
      downtimeMinutes: 14.5 * 24 * 60,
      meetsTarget: false,
    });
    expect(body.availability.find((a: any) => a.capacityName === 'cap-a').availabilityPercent).toBe(100);
  });

  it('accepts up to 12 months back and refuses the future, older months and bad forms', async () => {
    expect((await get(t.app, '/sla?month=2025-06', key)).statusCode).toBe(200);
    for (const m of ['2026-07', '2025-05', '2026-13', '2026-6', '2026-06-01', '']) {
      const res = await get(t.app, `/sla?month=${m}`, key);
      expect(res.statusCode, m).toBe(400);
      expect(errorOf(res).message).toContain('month');
    }
  });
});

describe('unionLengthMs', () => {
  it('merges overlapping, nested and touching intervals', () => {
    expect(unionLengthMs([])).toBe(0);
    expect(unionLengthMs([[0, 10], [5, 15], [20, 30]])).toBe(25);
    expect(unionLengthMs([[0, 100], [10, 20], [30, 40]])).toBe(100);
    expect(unionLengthMs([[10, 20], [0, 10]])).toBe(20);
    expect(unionLengthMs([[5, 5], [7, 3]])).toBe(0);
  });
});

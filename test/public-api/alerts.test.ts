import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { errorOf, get, insertAlert, insertKey, insertOrg } from './helpers.js';

const NOW = '2026-06-15T12:00:00.000Z';

describe('GET /alerts', () => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  const ids: string[] = [];
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock(NOW), config: { apiRateLimitPerMinute: 100_000 } });
    orgId = await insertOrg(t.ctx.db);
    key = (await insertKey(t.ctx.db, orgId)).key;
    // 5 alerts at distinct times in the default window, 2 sharing one createdAt (tie-breaker), 1 old.
    const times = ['2026-06-15T11:00:00Z', '2026-06-14T10:00:00Z', '2026-06-14T10:00:00Z', '2026-06-10T00:00:00Z', '2026-06-08T12:00:00Z'];
    for (const [i, createdAt] of times.entries()) {
      ids.push(
        await insertAlert(t.ctx.db, orgId, {
          createdAt,
          sourceName: `src-${i}`,
          sourceType: i % 2 ? 'Capacity' : 'Gateway',
          resolvedAt: i === 1 ? '2026-06-14T11:00:00Z' : null,
        }),
      );
    }
    await insertAlert(t.ctx.db, orgId, { createdAt: '2026-06-01T00:00:00Z', sourceName: 'old' });
  });
  afterAll(() => t.close());

  it('lists the last 7 days newest first, with the envelope', async () => {
    const res = await get(t.app, '/alerts', key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body.totalCount).toBe(5);
    expect(body.page).toBe(1);
    expect(body.pageSize).toBe(100);
    expect(body.nextLink).toBe('');
    expect(body.value.map((a: any) => a.sourceName)).toEqual(
      expect.arrayContaining(['src-0', 'src-1', 'src-2', 'src-3', 'src-4']),
    );
    expect(body.value[0]).toEqual({
      sourceType: 'Gateway',
      sourceName: 'src-0',
      severity: 'error',
      notificationKind: 'GatewayOffline',
      status: 'open',
      message: 'message',
      createdAt: '2026-06-15T11:00:00.000Z',
      resolvedAt: null,
      acknowledgedAt: null,
      failureCount: 1,
      lastOccurrenceAt: '2026-06-15T11:00:00.000Z',
      workspaceName: null,
      capacityName: null,
    });
  });

  it('pages with a pinned nextLink and never repeats or skips', async () => {
    const seen: string[] = [];
    let url = '/alerts?pageSize=2';
    let pages = 0;
    while (url) {
      const res = await get(t.app, url, key);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      seen.push(...body.value.map((a: any) => `${a.sourceName}`));
      url = body.nextLink;
      if (url) {
        expect(url.startsWith('/api/public/v1/alerts?')).toBe(true);
        const qs = new URL(url, 'http://x').searchParams;
        expect(qs.get('from')).toBe('2026-06-08T12:00:00.000Z');
        expect(qs.get('to')).toBe(NOW);
        expect(qs.get('pageSize')).toBe('2');
      }
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
  });

  it('filters by status, sourceType and window', async () => {
    const r1 = await get(t.app, '/alerts?status=resolved', key);
    expect(r1.json().value.map((a: any) => a.sourceName)).toEqual(['src-1']);
    const r2 = await get(t.app, '/alerts?sourceType=Capacity', key);
    expect(r2.json().totalCount).toBe(2);
    const r3 = await get(t.app, '/alerts?from=2026-05-31T00:00:00Z&to=2026-06-09T00:00:00Z', key);
    expect(r3.json().value.map((a: any) => a.sourceName)).toEqual(['src-4', 'old']);
  });

  it('refuses bad parameters with 400 naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['/alerts?from=2026-06-01T00:00:00+01:00', 'from'],
      ['/alerts?from=2026-02-30T00:00:00Z', 'from'],
      ['/alerts?to=2026-06-01', 'to'],
      ['/alerts?from=2026-06-10T00:00:00Z&to=2026-06-10T00:00:00Z', 'from'],
      ['/alerts?from=2025-01-01T00:00:00Z&to=2026-06-01T00:00:00Z', 'from'],
      ['/alerts?page=0', 'page'],
      ['/alerts?page=1001', 'page'],
      ['/alerts?pageSize=501', 'pageSize'],
      ['/alerts?pageSize=99999999999999999999999', 'pageSize'],
      ['/alerts?page=1.5', 'page'],
      ['/alerts?status=closed', 'status'],
      ['/alerts?format=xml', 'format'],
      ['/alerts?foo=1', 'foo'],
      ['/alerts?page=1&page=2', 'page'],
    ];
    for (const [url, param] of cases) {
      const res = await get(t.app, url, key);
      expect(res.statusCode, url).toBe(400);
      const err = errorOf(res);
      expect(err.code).toBe('invalid_request');
      expect(err.message, url).toContain(param);
    }
  });
});

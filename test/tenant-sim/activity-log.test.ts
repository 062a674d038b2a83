// @engine-neutral: the tenant simulator alone, no database
/**
 * The simulator's activity log (`GET /v1.0/myorg/admin/activityevents`) on the strict simulator:
 * quoted UTC times in one UTC day (400 otherwise, and for a day older than 30 days), an hour of
 * the window per page (empty pages carry a continuation), `continuationUri` with the quoted token
 * followed as-is, `lastResultSet` on the last page, times written without a zone, late events
 * served only from their time, records added over the HTTP control API too, and the 200/h cap.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { call, msalToken, SCOPES, startSim } from './helpers.js';

const LOG = '/v1.0/myorg/admin/activityevents';
const q = (s: string) => encodeURIComponent(`'${s}'`);

let sim: TenantSim | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

describe('tenant simulator: activity log', () => {
  it('serves a window an hour a page, follows its continuation to lastResultSet, and holds late events back', async () => {
    let t = Date.parse('2026-06-15T12:00:00Z');
    sim = await startSim({ now: () => t });
    const token = await msalToken(sim, SCOPES.powerbi);
    sim.control.activityEvent({ activity: 'SetScheduledRefresh', at: '2026-06-15T08:10:00Z', id: 'e1', fields: { DatasetId: 'm1' } });
    sim.control.activityEvent({ activity: 'ViewReport', at: '2026-06-15T10:20:00Z', id: 'e2' });
    sim.control.activityEvent({ activity: 'BindToGateway', at: '2026-06-15T10:40:00Z', id: 'e3', lateMinutes: 90 });
    // Over the HTTP control API as well.
    const posted = await call(sim, 'POST', '/_sim/activityEvent', { body: { activity: 'DeleteGateway', at: '2026-06-15T11:05:00Z', id: 'e4' } });
    expect(posted.status).toBeLessThan(300);

    const pages: any[] = [];
    let res = await call(sim, 'GET', `${LOG}?startDateTime=${q('2026-06-15T08:00:00.000Z')}&endDateTime=${q('2026-06-15T11:59:59.999Z')}`, { token });
    for (;;) {
      expect(res.status).toBe(200);
      pages.push(res.json);
      if (res.json.lastResultSet === true) break;
      expect(res.json.continuationUri).toContain("continuationToken='");
      res = await call(sim, 'GET', res.json.continuationUri, { token });
    }
    expect(pages).toHaveLength(4);
    expect(pages.map((p) => p.activityEventEntities.map((e: { Id: string }) => e.Id))).toEqual([['e1'], [], ['e2'], ['e4']]);
    expect(pages[1].continuationUri).toBeTruthy();
    expect(pages[3].continuationUri).toBeUndefined();
    expect(pages[0].activityEventEntities[0]).toMatchObject({ CreationTime: '2026-06-15T08:10:00', Activity: 'SetScheduledRefresh', Operation: 'SetScheduledRefresh', DatasetId: 'm1', RecordType: 20 });

    // 90 minutes after it happened, the late event is served.
    t = Date.parse('2026-06-15T12:15:00Z');
    const later = await call(sim, 'GET', `${LOG}?startDateTime=${q('2026-06-15T10:00:00.000Z')}&endDateTime=${q('2026-06-15T10:59:59.999Z')}`, { token });
    expect(later.json.activityEventEntities.map((e: { Id: string }) => e.Id)).toEqual(['e2', 'e3']);
    expect(sim.violations).toEqual([]);
  });

  it('answers 400 to unquoted times, a window across a UTC day, a day older than 30 days and a token it never gave', async () => {
    const t = Date.parse('2026-06-15T12:00:00Z');
    sim = await startSim({ now: () => t });
    const token = await msalToken(sim, SCOPES.powerbi);
    const bad = [
      `?startDateTime=2026-06-15T00:00:00Z&endDateTime=2026-06-15T01:00:00Z`,
      `?startDateTime=${q('2026-06-14T23:00:00.000Z')}&endDateTime=${q('2026-06-15T01:00:00.000Z')}`,
      `?startDateTime=${q('2026-05-01T00:00:00.000Z')}&endDateTime=${q('2026-05-01T01:00:00.000Z')}`,
      `?startDateTime=${q('2026-06-15T02:00:00.000Z')}&endDateTime=${q('2026-06-15T01:00:00.000Z')}`,
      "?continuationToken='bm90LWEtdG9rZW4'",
      '',
    ];
    for (const query of bad) {
      const res = await call(sim, 'GET', `${LOG}${query}`, { token });
      expect(res.status, query).toBe(400);
      expect(res.json.error.code, query).toBe('BadRequest');
    }
  });

  it('caps the log at 200 requests an hour', async () => {
    const t = Date.parse('2026-06-15T12:00:00Z');
    sim = await startSim({ now: () => t });
    const token = await msalToken(sim, SCOPES.powerbi);
    const url = `${LOG}?startDateTime=${q('2026-06-15T11:00:00.000Z')}&endDateTime=${q('2026-06-15T11:30:00.000Z')}`;
    for (let i = 0; i < 200; i++) expect((await call(sim, 'GET', url, { token })).status).toBe(200);
    const refused = await call(sim, 'GET', url, { token });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

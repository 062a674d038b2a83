import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPublicApiClient, PublicApiError, type PublicApiClient } from '../../src/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { acknowledgeAlert, createApiKey, createOrg, postCosts, putCapacities, putWorkspaces, sendSignals, signal } from '../helpers/fixtures.js';

describe('end to end: admin API → public API through the typed client over real HTTP', () => {
  const clock = new ManualClock('2026-06-15T12:00:00Z');
  let t: TestApp;
  let client: PublicApiClient;
  let base: string;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp({ clock, config: { apiRateLimitPerMinute: 1000 } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const org = await createOrg(t, { slaTargets: { mttaMinutes: 10, mttrMinutes: 120, availabilityPercent: 99.5 } });
    orgId = org.id;
    const { key } = await createApiKey(t, orgId);
    client = createPublicApiClient({ baseUrl: base, apiKey: key });

    await putCapacities(t, orgId, [{ name: 'cap-1', sku: 'F64', state: 'Active', region: 'brazilsouth' }]);
    await putWorkspaces(t, orgId, [{ name: 'Sales', remoteId: 'ws-1', capacityName: 'cap-1' }]);
    await postCosts(t, orgId, [
      { date: '2026-06-10', capacityName: 'cap-1', currency: 'BRL', cost: 12.5, amortizedCost: 12, overageCost: 0.5 },
    ]);
    // Seven incidents, opened one hour apart; the gateway one reoccurs twice; one is acknowledged.
    const outcomes = await sendSignals(
      t,
      orgId,
      Array.from({ length: 7 }, (_, i) =>
        signal({ sourceId: `gw-${i}`, sourceName: `Gateway ${i}`, occurredAt: `2026-06-15T0${i}:00:00.000Z` }),
      ),
    );
    await sendSignals(t, orgId, [
      signal({ sourceId: 'gw-0', sourceName: 'Gateway 0', occurredAt: '2026-06-15T07:00:00.000Z' }),
      signal({ sourceId: 'gw-0', sourceName: 'Gateway 0', occurredAt: '2026-06-15T08:00:00.000Z' }),
    ]);
    clock.set('2026-06-15T09:00:00Z');
    await acknowledgeAlert(t, orgId, outcomes[6]!.alertId!);
    await sendSignals(t, orgId, signal({ sourceId: 'gw-5', sourceName: 'Gateway 5', kind: 'recovery', occurredAt: '2026-06-15T09:00:00.000Z' }));
    clock.set('2026-06-15T12:00:00Z');
  });
  afterAll(() => t.close());

  it('follows nextLink across pages and returns every alert once, newest first', async () => {
    const items = [];
    for await (const a of client.allAlerts({ pageSize: 3 })) items.push(a);
    expect(items.map((a) => a.sourceName)).toEqual(['Gateway 6', 'Gateway 5', 'Gateway 4', 'Gateway 3', 'Gateway 2', 'Gateway 1', 'Gateway 0']);
    expect(items[0]!.acknowledgedAt).toBe('2026-06-15T09:00:00.000Z');
    expect(items[1]!.status).toBe('resolved');
    expect(items[6]!.failureCount).toBe(3);
    const pages = [];
    for await (const p of client.pages('/alerts', { pageSize: 3 })) pages.push(p.value.length);
    expect(pages).toEqual([3, 3, 1]);
    expect(client.lastRateLimit?.limit).toBe(1000);
  });

  it('reads metrics, inventory, costs and SLA as the admin API stored them', async () => {
    const m = await client.alertMetrics({ from: '2026-06-15', to: '2026-06-15' });
    expect(m.totals).toEqual({ incidents: 7, acknowledged: 1, resolved: 1, openUnacknowledged: 5, silenced: 0, correlated: 0, reoccurrences: 2 });
    expect(m.mtta).toEqual({ medianSeconds: 10_800, meanSeconds: 10_800, samples: 1 });
    expect(m.mttr).toEqual({ medianSeconds: 14_400, meanSeconds: 14_400, samples: 1 });
    expect(m.noisiestSources[0]).toEqual({ sourceType: 'Gateway', sourceName: 'Gateway 0', incidents: 1, occurrences: 3 });
    expect((await client.capacities()).value).toEqual([{ name: 'cap-1', sku: 'F64', state: 'Active', region: 'brazilsouth' }]);
    const ws = [];
    for await (const w of client.allWorkspaces()) ws.push(w);
    expect(ws).toEqual([{ name: 'Sales', remoteId: 'ws-1', capacityName: 'cap-1' }]);
    expect((await client.dailyCosts()).value).toEqual([
      { date: '2026-06-10', capacityName: 'cap-1', currency: 'BRL', cost: 12.5, amortizedCost: 12, overageCost: 0.5 },
    ]);
    const sla = await client.sla({ month: '2026-06' });
    expect(sla.targets).toEqual({ mttaMinutes: 10, mttrMinutes: 120, availabilityPercent: 99.5 });
    expect(sla.totals.incidents).toBe(7);
    const csv = await client.csv('capacities');
    expect(csv.text).toBe('\ufeffname,sku,state,region\r\ncap-1,F64,Active,brazilsouth\r\n');
    expect(csv.totalCount).toBe(1);
  });

  it('turns error envelopes into PublicApiError', async () => {
    const err = await client.alerts({ pageSize: 501 }).catch((e) => e);
    expect(err).toBeInstanceOf(PublicApiError);
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_request');
    expect(err.message).toContain('pageSize');
    const limited = createPublicApiClient({ baseUrl: base, apiKey: (await createApiKey(t, orgId, ['ReadSla'])).key });
    const denied = await limited.capacities().catch((e) => e);
    expect(denied.status).toBe(403);
    expect(denied.code).toBe('forbidden');
  });

  it('stops working at once when the admin revokes the key', async () => {
    const { key, id } = await createApiKey(t, orgId);
    const c = createPublicApiClient({ baseUrl: base, apiKey: key });
    expect((await c.capacities()).totalCount).toBe(1);
    expect((await t.admin('DELETE', `/orgs/${orgId}/api-keys/${id}`)).statusCode).toBe(204);
    const err = await c.capacities().catch((e) => e);
    expect(err.status).toBe(401);
    expect(err.code).toBe('unauthorized');
  });
});

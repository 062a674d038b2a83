/**
 * The admin API reads added for the console: the alert list of an organization (filters, paging,
 * org scoping, strict input), an alert's deliveries per event, and the time filter of a
 * destination's delivery history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { createTestApp, type TestApp } from '../helpers/context.js';

const T0 = '2026-06-15T12:00:00.000Z';

describe('admin API reads for the console', () => {
  let t: TestApp;
  let clock: ManualClock;
  let orgId: string;
  let otherOrgId: string;

  const signal = (over: Record<string, unknown>) => ({
    sourceType: 'Dataset',
    sourceId: 'ds-1',
    sourceName: 'Vendas',
    kind: 'failure',
    notificationKind: 'RefreshFailed',
    title: 'Falha',
    message: 'Tempo esgotado',
    ...over,
  });
  async function open(over: Record<string, unknown>, org = orgId): Promise<string> {
    const res = await t.admin('POST', `/orgs/${org}/signals`, signal(over));
    expect(res.statusCode).toBe(200);
    return res.json().alertId;
  }

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock });
    setResolver(t.ctx, async () => [{ address: '93.184.216.34', family: 4 }]);
    orgId = (await t.admin('POST', '/orgs', { name: 'Contoso' })).json().id;
    otherOrgId = (await t.admin('POST', '/orgs', { name: 'Fabrikam' })).json().id;
  });
  afterAll(() => t.close());

  it('lists alerts newest first with status, severity, source type and time filters, and pages', async () => {
    const a1 = await open({ sourceId: 'ds-1' });
    clock.advance(60_000);
    const a2 = await open({ sourceId: 'gw-1', sourceType: 'Gateway', severity: 'info' });
    clock.advance(60_000);
    const a3 = await open({ sourceId: 'ds-2' });
    await t.admin('POST', `/orgs/${orgId}/alerts/${a3}/resolve`);
    await open({ sourceId: 'ds-9' }, otherOrgId);

    const ids = async (query: string) => {
      const res = await t.admin('GET', `/orgs/${orgId}/alerts${query}`);
      expect(res.statusCode).toBe(200);
      return (res.json().value as { id: string }[]).map((a) => a.id);
    };
    expect(await ids('')).toEqual([a3, a2, a1]);
    expect(await ids('?status=open')).toEqual([a2, a1]);
    expect(await ids('?status=resolved')).toEqual([a3]);
    expect(await ids('?severity=info')).toEqual([a2]);
    expect(await ids('?sourceType=Dataset')).toEqual([a3, a1]);
    expect(await ids(`?from=${encodeURIComponent('2026-06-15T12:01:00Z')}`)).toEqual([a3, a2]);
    expect(await ids(`?to=${encodeURIComponent('2026-06-15T12:01:00Z')}`)).toEqual([a1]);

    const first = (await t.admin('GET', `/orgs/${orgId}/alerts?status=open&pageSize=1`)).json();
    expect(first).toMatchObject({ page: 1, pageSize: 1, totalCount: 2 });
    expect(first.value[0]).toMatchObject({ id: a2, status: 'open', severity: 'info', url: `https://vigia.example.test/alerts/${a2}` });
    expect(first.nextLink).toBe(`/api/admin/v1/orgs/${orgId}/alerts?status=open&pageSize=1&page=2`);
    const second = (await t.admin('GET', first.nextLink)).json();
    expect(second.value.map((a: { id: string }) => a.id)).toEqual([a1]);
    expect(second.nextLink).toBe('');
  });

  it('refuses bad filters with a 400 naming them, and an unknown organization with a 404', async () => {
    for (const [query, text] of [
      ['?status=closed', 'status'],
      ['?severity=fatal', 'severity'],
      ['?from=yesterday', 'from must be an ISO 8601'],
      ['?from=2026-06-15T12:00:00Z&to=2026-06-15T11:00:00Z', 'from must be before to'],
      ['?pageSize=0', 'pageSize'],
      ['?color=red', 'unknown field "color"'],
    ] as const) {
      const res = await t.admin('GET', `/orgs/${orgId}/alerts${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.message).toContain(text);
    }
    const missing = await t.admin('GET', '/orgs/org_missing/alerts');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('not_found');
  });

  it("gives an alert's deliveries with their event and destination, scoped to the organization", async () => {
    const dest = (
      await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'Plantão', kind: 'webhook', url: 'https://hooks.example.com/vigia' })
    ).json();
    clock.set(new Date('2026-06-15T13:00:00Z'));
    const alertId = await open({ sourceId: 'ds-deliv' });
    clock.set(new Date('2026-06-15T14:00:00Z'));
    await t.admin('POST', `/orgs/${orgId}/alerts/${alertId}/acknowledge`, { by: 'ana' });
    // A test send recorded against the same alert id stays out of the alert's deliveries.
    await t.ctx.db.query(
      `INSERT INTO deliveries (id, org_id, destination_id, alert_id, event, status, body, test, created_at)
       VALUES ('dlv_test_row', $1, $2, $3, 'alert.opened', 'succeeded', '{}', true, $4)`,
      [orgId, dest.id, alertId, new Date('2026-06-15T14:30:00Z')],
    );

    const alert = (await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json();
    const res = await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}/deliveries`);
    expect(res.statusCode).toBe(200);
    const list = res.json() as Record<string, unknown>[];
    expect(list.map((d) => [d.event, d.eventId, d.destinationName, d.destinationKind, d.status])).toEqual([
      ['alert.opened', alert.events[0].id, 'Plantão', 'webhook', 'pending'],
      ['alert.acknowledged', alert.events[1].id, 'Plantão', 'webhook', 'pending'],
    ]);
    expect(list[0]).toMatchObject({ alertId, destinationId: dest.id, test: false, attempts: 0 });

    expect((await t.admin('GET', `/orgs/${otherOrgId}/alerts/${alertId}/deliveries`)).statusCode).toBe(404);
    expect((await t.admin('GET', `/orgs/${orgId}/alerts/alr_missing/deliveries`)).statusCode).toBe(404);

    // The destination's history filters on creation time: from inclusive, to exclusive.
    const history = async (query: string) =>
      ((await t.admin('GET', `/orgs/${orgId}/destinations/${dest.id}/deliveries${query}`)).json().value as { id: string; event: string }[]).map((d) => d.event);
    expect(await history('')).toEqual(['alert.opened', 'alert.acknowledged', 'alert.opened']);
    expect(await history('?from=2026-06-15T14:00:00Z')).toEqual(['alert.opened', 'alert.acknowledged']);
    expect(await history('?from=2026-06-15T13:00:00Z&to=2026-06-15T14:00:00Z')).toEqual(['alert.opened']);
    const paged = (await t.admin('GET', `/orgs/${orgId}/destinations/${dest.id}/deliveries?from=2026-06-15T13:00:00Z&pageSize=1`)).json();
    expect(paged.nextLink).toBe(`/api/admin/v1/orgs/${orgId}/destinations/${dest.id}/deliveries?from=2026-06-15T13%3A00%3A00.000Z&page=2&pageSize=1`);
    const bad = await t.admin('GET', `/orgs/${orgId}/destinations/${dest.id}/deliveries?to=tomorrow`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('to must be an ISO 8601');
  });
});

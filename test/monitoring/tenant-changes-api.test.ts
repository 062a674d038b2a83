/**
 * `GET /orgs/{orgId}/tenants/{id}/changes`: the changes the activity collector read from the
 * simulator's log, newest first, filtered by time, object and activity, paged with a cursor; the
 * actor (a UPN) only for operators, owners and the instance administrator — a viewer gets it
 * withheld and never in the body; bad parameters are 400 with the error envelope; another
 * organization's connection is 404. The connection's `changeRetentionDays` (1–400, default 30).
 * `dependencies=true`: an object's changes and those of what it depends on (the join's path),
 * each with its `path`, paged like the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openSession } from '../../src/access/sessions.js';
import type { Role } from '../../src/access/roles.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import { activityCollector } from '../../src/monitoring/sources/activity/activity.js';
import { insertChanges, type TenantChange } from '../../src/monitoring/changes/store.js';
import { saveDatasources, savePlacements } from '../../src/monitoring/lineage/lineage.js';
import { writeState } from '../../src/monitoring/engine/output.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';
import { startSim } from '../tenant-sim/helpers.js';
import { simTenantBody, tenantBody } from './support.js';

const GATEWAY = '5b1ae3c2-7d7e-4a61-9c1c-0d1f00000001';
const MODEL = '7c2bf4d3-8e8f-4b72-8d2d-1e2f00000002';
const UPN = 'ana.souza@contoso.example';

describe('admin API: tenant changes', () => {
  const clock = new ManualClock('2026-06-15T12:00:00Z');
  let t: TestApp;
  let sim: TenantSim;
  let orgId: string;
  let otherOrg: string;
  let tenantId: string;

  async function as(role: Role, url: string) {
    const res = await t.admin('PUT', `/orgs/${orgId}/members`, { email: `${role}@example.test`, role });
    const s = await openSession(t.ctx.db, { personId: res.json().id, idpRoles: [], now: clock.now(), times: { idleMs: 3_600_000, maxMs: 43_200_000 } });
    return t.app.inject({ method: 'GET', url: `/api/admin/v1${url}`, headers: { cookie: `vigia_session=${s.id}`, 'x-csrf-token': s.csrfToken } });
  }

  beforeAll(async () => {
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
    sim = await startSim({ seed: 77, sizes: { capacities: 1, workspaces: 2, gateways: 1 }, now: () => clock.now().getTime(), tokenLifetimeSeconds: 60 * 86_400 });
    orgId = (await createOrg(t)).id;
    otherOrg = (await createOrg(t)).id;
    await t.ctx.db.query('UPDATE collector_schedules SET enabled = false');
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, simTenantBody(sim, {
      name: 'Simulated',
      collectors: Object.fromEntries(['inventory', 'capacity', 'gateway', 'costs', 'refreshes', 'jobs', 'mirroring', 'freshness', 'datasources', 'scanner', 'utilization'].map((n) => [n, { enabled: false }])),
    }));
    expect(res.statusCode).toBe(201);
    tenantId = res.json().id;
    const add = sim.control.activityEvent;
    add({ activity: 'UpdateDatasourceCredentials', at: '2026-06-15T09:00:00Z', id: 'c0000000-0000-0000-0000-000000000001', fields: { GatewayId: GATEWAY, DatasourceId: 'ds-1' }, userId: UPN });
    add({ activity: 'BindToGateway', at: '2026-06-15T10:00:00Z', id: 'c0000000-0000-0000-0000-000000000002', fields: { DatasetId: MODEL, DatasetName: 'Vendas', GatewayId: GATEWAY }, userId: UPN });
    add({ activity: 'ChangeCapacityState', at: '2026-06-15T11:00:00Z', id: 'c0000000-0000-0000-0000-000000000003', fields: { CapacityId: 'cap-1', CapacityName: 'P1' }, userId: UPN });
    const runner = new CollectorScheduler(t.ctx, { collectors: [activityCollector], pollMs: 60_000 });
    try {
      expect(await runner.pass()).toBe(1);
    } finally {
      await runner.stop();
    }
  });
  afterAll(async () => {
    await sim.stop();
    await t.close();
  });

  const url = (q = '') => `/orgs/${orgId}/tenants/${tenantId}/changes${q}`;

  it('lists newest first, filters, pages; the actor for operators and the admin only', async () => {
    const all = await t.admin('GET', url());
    expect(all.statusCode).toBe(200);
    expect(all.json().items.map((c: { activity: string }) => c.activity)).toEqual(['ChangeCapacityState', 'BindToGateway', 'UpdateDatasourceCredentials']);
    expect(all.json().items[1]).toMatchObject({
      id: 'c0000000-0000-0000-0000-000000000002',
      occurredAt: '2026-06-15T10:00:00.000Z',
      object: { kind: 'item', id: MODEL, type: 'SemanticModel', name: 'Vendas' },
      links: { datasetId: MODEL, gatewayId: GATEWAY },
      actor: UPN,
      actorWithheld: false,
    });
    expect(all.json().items[1].raw).toMatchObject({ Activity: 'BindToGateway', DatasetId: MODEL });
    expect(JSON.stringify(all.json().items.map((c: { raw: unknown }) => c.raw))).not.toContain(UPN);

    const viewer = await as('viewer', url());
    expect(viewer.statusCode).toBe(200);
    expect(viewer.json().items[0]).toMatchObject({ actor: null, actorWithheld: true });
    expect(viewer.body).not.toContain(UPN);
    const operator = await as('operator', url());
    expect(operator.json().items[0]).toMatchObject({ actor: UPN, actorWithheld: false });

    const gateway = await t.admin('GET', url(`?objectKind=gateway&objectId=${GATEWAY.toUpperCase()}`));
    expect(gateway.json().items.map((c: { activity: string }) => c.activity)).toEqual(['UpdateDatasourceCredentials']);
    const activity = await t.admin('GET', url('?activity=bindtogateway'));
    expect(activity.json().items.map((c: { id: string }) => c.id)).toEqual(['c0000000-0000-0000-0000-000000000002']);
    const window = await t.admin('GET', url('?from=2026-06-15T09:30:00Z&to=2026-06-15T11:00:00Z'));
    expect(window.json().items.map((c: { activity: string }) => c.activity)).toEqual(['BindToGateway']);

    const first = (await t.admin('GET', url('?limit=2'))).json();
    expect(first.items).toHaveLength(2);
    const second = (await t.admin('GET', url(`?limit=2&after=${first.nextCursor}`))).json();
    expect(second.items.map((c: { activity: string }) => c.activity)).toEqual(['UpdateDatasourceCredentials']);
    expect(second.nextCursor).toBeNull();
  });

  it('answers bad parameters with 400 and the envelope, and another organization with 404', async () => {
    for (const q of ['?limit=0', '?limit=501', '?from=yesterday', '?to=2026-06-15', '?from=2026-06-15T10:00:00Z&to=2026-06-15T09:00:00Z', '?after=nope', '?objectId=abc', '?objectKind=tenant&objectId=abc', '?objectKind=report', '?activity=a%20b', '?color=red']) {
      const res = await t.admin('GET', url(q));
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.code, q).toBe('invalid_request');
    }
    expect((await t.admin('GET', `/orgs/${otherOrg}/tenants/${tenantId}/changes`)).statusCode).toBe(404);
  });

  it('keeps 30 days of changes unless told 1 to 400', async () => {
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${tenantId}`)).json().changeRetentionDays).toBe(30);
    for (const bad of [0, 401, 2.5]) {
      const res = await t.admin('PATCH', `/orgs/${orgId}/tenants/${tenantId}`, { changeRetentionDays: bad });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('changeRetentionDays');
    }
    const ok = await t.admin('PATCH', `/orgs/${orgId}/tenants/${tenantId}`, { changeRetentionDays: 400 });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().changeRetentionDays).toBe(400);
  });

  it('lists an object with what it depends on (dependencies=true), by the join’s path, paged', async () => {
    const now = clock.now();
    // The model reads through the gateway and data source, in workspace ws-1 on capacity cap-1.
    await savePlacements(t.ctx.db, tenantId, [{ itemId: MODEL, itemType: 'SemanticModel', itemName: 'Vendas', workspaceId: 'ws-1', capacityId: 'cap-1' }], now);
    await saveDatasources(t.ctx.db, tenantId, MODEL, [GATEWAY], ['ds-1'], now);
    const none = { datasetId: null, gatewayId: null, datasourceId: null, workspaceId: null, capacityId: null };
    const base = { isSuccess: true, actorUpn: UPN, actorType: 0, raw: {} };
    const other = { kind: 'item' as const, id: 'dddddddd-0000-0000-0000-00000000000d', type: 'SemanticModel', name: 'Outro' };
    const extra: TenantChange[] = [
      { ...base, recordId: 'd-switch', activity: 'UpdatedAdminFeatureSwitch', occurredAt: new Date('2026-06-15T08:00:00Z'), object: { kind: 'tenant', id: null, type: null, name: null }, links: none },
      { ...base, recordId: 'd-moved', activity: 'ModifyWorkspaceCapacity', occurredAt: new Date('2026-06-15T07:30:00Z'), object: { kind: 'workspace', id: 'ws-9', type: null, name: 'Outro ws' }, links: { ...none, workspaceId: 'ws-9', capacityId: 'cap-1' } },
      // Another model's changes never count through the gateway or capacity they link to.
      { ...base, recordId: 'd-other-bind', activity: 'BindToGateway', occurredAt: new Date('2026-06-15T07:00:00Z'), object: other, links: { ...none, datasetId: other.id, gatewayId: GATEWAY } },
      { ...base, recordId: 'd-other-schedule', activity: 'SetScheduledRefresh', occurredAt: new Date('2026-06-15T06:00:00Z'), object: other, links: { ...none, datasetId: other.id, capacityId: 'cap-1' } },
    ];
    await insertChanges(t.ctx.db, orgId, tenantId, extra, now);
    const rows = async (q: string) => {
      const res = await t.admin('GET', url(q));
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().items as Array<{ id: string; path: string | null }>).map((c) => `${c.id.replace('c0000000-0000-0000-0000-00000000000', 'c')} ${c.path}`);
    };

    expect(await rows(`?objectKind=item&objectId=${MODEL.toUpperCase()}&dependencies=true`)).toEqual([
      'c3 capacity', // ChangeCapacityState of the model's capacity
      'c2 same', // BindToGateway of the model itself
      'c1 datasource', // the credentials of its data source (on its gateway)
      'd-switch tenant',
      'd-moved capacity', // a workspace moved onto its capacity
    ]);
    expect(await rows(`?objectKind=gateway&objectId=${GATEWAY}&dependencies=true`)).toEqual(['c1 same', 'd-switch tenant']);
    expect(await rows('?objectKind=capacity&objectId=cap-1&dependencies=true')).toEqual(['c3 same', 'd-switch tenant', 'd-moved same']);
    // Without dependencies: that object only, and no path.
    expect(await rows(`?objectKind=item&objectId=${MODEL}`)).toEqual(['c2 null']);
    expect(await rows(`?objectKind=item&objectId=${MODEL}&dependencies=false`)).toEqual(['c2 null']);

    const seen: string[] = [];
    let after = '';
    for (let page = 0; page < 3; page++) {
      const res = await t.admin('GET', url(`?objectKind=item&objectId=${MODEL}&dependencies=true&limit=2${after}`));
      const body = res.json() as { items: Array<{ id: string }>; nextCursor: string | null };
      seen.push(...body.items.map((c) => c.id));
      expect(body.nextCursor === null, `page ${page}`).toBe(page === 2);
      after = `&after=${body.nextCursor}`;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);

    for (const q of [
      '?dependencies=true',
      `?objectKind=item&dependencies=true`,
      '?objectKind=workspace&objectId=ws-1&dependencies=true',
      '?objectKind=tenant&dependencies=true',
      `?objectKind=item&objectId=${MODEL}&dependencies=yes`,
      `?objectKind=item&objectId=${MODEL}&dependencies=`,
      '?objectKind=gateway&objectId=a%20b&dependencies=true',
    ]) {
      const res = await t.admin('GET', url(q));
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.code, q).toBe('invalid_request');
    }
  });

  it('names where each capacity’s changes are: the connections whose capacity collector reads it', async () => {
    const other = await t.admin('POST', `/orgs/${otherOrg}/tenants`, { ...tenantBody(), name: 'Outra' });
    expect(other.statusCode, other.body).toBe(201);
    // Two capacities of one display name in this connection (the inventory tells them apart by id), one in another organization's.
    await writeState(t.ctx.db, tenantId, 'capacity', [
      { key: 'CAP-1', value: { name: 'P1', state: 'Active', down: false } },
      { key: 'cap-2abcdef0', value: { name: 'Dup', state: 'Active', down: false } },
      { key: 'cap-3abcdef0', value: { name: 'Dup', state: 'Active', down: false } },
    ]);
    await writeState(t.ctx.db, other.json().id, 'capacity', [{ key: 'cap-9', value: { name: 'P1', state: 'Active', down: false } }]);
    const cap = (name: string) => ({ name, sku: 'F2', state: 'Active', region: 'brazilsouth' });
    expect((await t.admin('PUT', `/orgs/${orgId}/capacities`, [cap('P1'), cap('Dup (cap-2abc)'), cap('Dup (cap-3abc)'), cap('Manual')])).statusCode).toBe(200);
    const res = await t.admin('GET', `/orgs/${orgId}/capacities`);
    expect(res.statusCode, res.body).toBe(200);
    const monitored = Object.fromEntries((res.json().items as Array<{ name: string; monitored: unknown }>).map((c) => [c.name, c.monitored]));
    const here = (id: string) => [{ tenantId, tenantName: 'Simulated', id }];
    expect(monitored).toEqual({ P1: here('cap-1'), 'Dup (cap-2abc)': here('cap-2abcdef0'), 'Dup (cap-3abc)': here('cap-3abcdef0'), Manual: [] });
  });
});

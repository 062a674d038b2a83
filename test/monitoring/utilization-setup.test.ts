/**
 * `POST …/tenants/{id}/utilization/eventhouse` against the strict tenant simulator: Vigia creates
 * the Eventhouse, KQL database, table and capacity-events Eventstream through the Fabric item APIs
 * (long-running creates, management commands on the query URI), stores the source on the
 * connection, and the table then receives the capacities' events; a second call finds everything
 * and makes nothing; a principal without the Contributor role is refused with that permission named
 * in both languages and nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { insertOrg } from './support.js';

describe('utilization: Vigia creates the Eventstream and the table', () => {
  let t: TestApp;
  let sim: TenantSim;
  let clock: ManualClock;
  let orgId: string;
  let tenantRef: string;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
    sim = await startSim({ seed: 7, sizes: { capacities: 2, workspaces: 4, gateways: 0 }, now: () => clock.now().getTime(), tokenLifetimeSeconds: 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    orgId = await insertOrg(t.ctx);
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Simulated',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
    });
    expect(res.statusCode).toBe(201);
    tenantRef = res.json().id;
  });
  afterAll(async () => {
    await sim?.stop();
    await t?.close();
  });

  const setUp = (body: Record<string, unknown>, org = orgId, id = tenantRef) => t.admin('POST', `/orgs/${org}/tenants/${id}/utilization/eventhouse`, body);
  const memberWorkspaces = () => sim.state.workspaces.filter((w) => w.member);

  it('creates the items, stores the source, and the table receives the capacities\' events; a second call makes nothing', async () => {
    const ws = memberWorkspaces()[0]!;
    const res = await setUp({ workspaceId: ws.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      outcome: 'created',
      created: ['Eventhouse', 'KQLDatabase', 'Table', 'Eventstream'],
      eventhouse: { queryUri: sim.origin, database: 'VigiaCapacity', table: 'CapacityEvents' },
      refusal: null,
    });
    expect([...res.json().capacityIds].sort()).toEqual(sim.state.capacities.map((c) => c.id.toLowerCase()).sort());
    // Each create was a long-running operation, polled to its result.
    const creates = sim.requests.filter((r) => r.method === 'POST' && /\/(eventhouses|kqlDatabases|eventstreams)$/.test(r.path));
    expect(creates.map((r) => r.status)).toEqual([202, 202, 202]);
    expect(sim.requests.some((r) => r.path.endsWith('/result'))).toBe(true);
    expect(sim.requests.filter((r) => r.path === '/v1/rest/mgmt').map((r) => r.status)).toEqual([200, 200]);
    const stored = (await t.admin('GET', `/orgs/${orgId}/tenants/${tenantRef}`)).json().utilization;
    expect(stored.eventhouse).toEqual({ queryUri: sim.origin, database: 'VigiaCapacity', table: 'CapacityEvents' });

    // Events published after the Eventstream exists arrive in the table the collector reads.
    clock.advance(5 * 60_000);
    const check = (await t.admin('POST', `/orgs/${orgId}/tenants/${tenantRef}/check`)).json();
    const flowing = check.checks.find((c: { id: string }) => c.id === 'utilization.eventhouse.flowing');
    expect(flowing).toMatchObject({ ok: true });

    const again = await setUp({ workspaceId: ws.id });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ outcome: 'existing', created: [], eventhouse: stored.eventhouse, eventstreamId: res.json().eventstreamId });
    expect(sim.requests.filter((r) => r.method === 'POST' && /\/(eventhouses|kqlDatabases|eventstreams)$/.test(r.path))).toHaveLength(3);
    expect(sim.violations).toEqual([]);
  }, 60_000);

  it('refuses clearly when the principal may not create items: the missing permission named in both languages, nothing stored', async () => {
    const before = (await t.admin('GET', `/orgs/${orgId}/tenants/${tenantRef}`)).json().utilization;
    const ws = memberWorkspaces()[1]!;
    sim.control.workspaceRole({ workspaceId: ws.id, role: 'Viewer' });
    const res = await setUp({ workspaceId: ws.id, capacityIds: [sim.state.capacities[0]!.id] });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ outcome: 'refused', created: [], eventhouse: null, refusal: { permission: 'WorkspaceContributor' } });
    expect(body.refusal.detail).toContain('403');
    expect(body.refusal.fix['pt-BR']).toContain('Colaborador');
    expect(body.refusal.fix['pt-BR']).toContain(ws.id);
    expect(body.refusal.fix.en).toContain('Contributor role');
    expect(body.refusal.fix.en).toContain('Manual set-up');
    expect((await t.admin('GET', `/orgs/${orgId}/tenants/${tenantRef}`)).json().utilization).toEqual(before);
    expect(sim.violations).toEqual([]);
  }, 60_000);

  it('refuses bad input with the 400 envelope, another organization\'s connection with 404', async () => {
    for (const [body, words] of [
      [{}, 'workspaceId'],
      [{ workspaceId: 'not-a-guid' }, 'workspaceId must be a GUID'],
      [{ workspaceId: memberWorkspaces()[0]!.id, capacityIds: ['x'] }, 'capacityIds[0]'],
      [{ workspaceId: memberWorkspaces()[0]!.id, extra: 1 }, 'extra'],
      [{ workspaceId: memberWorkspaces()[0]!.id, eventhouseId: '00000000-0000-0000-0000-000000000001' }, 'no Eventhouse 00000000-0000-0000-0000-000000000001'],
    ] as const) {
      const res = await setUp(body as Record<string, unknown>);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.message).toContain(words);
    }
    const other = await insertOrg(t.ctx, 'Other');
    expect((await setUp({ workspaceId: memberWorkspaces()[0]!.id }, other)).statusCode).toBe(404);
  });
});

/**
 * `POST …/tenants/{id}/check` for the utilization sources, against the simulator's Eventhouse:
 * a Kusto token, the table read, events flowing — each missing piece with its fix in pt-BR and
 * English — and the sources this version does not read said so, not silently accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { insertOrg } from './support.js';

describe('tenant check: utilization sources', () => {
  let t: TestApp;
  let sim: TenantSim;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
    sim = await startSim({ seed: 42, sizes: { capacities: 2, workspaces: 4, gateways: 0 }, now: () => clock.now().getTime(), tokenLifetimeSeconds: 86_400 });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
  });
  afterAll(async () => {
    await sim.stop();
    await t.close();
  });

  const connect = async (orgId: string, utilization: Record<string, unknown>) => {
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Simulated',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'member',
      workspaces: [],
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
      utilization,
    });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };
  const check = async (orgId: string, id: string) => {
    const res = await t.admin('POST', `/orgs/${orgId}/tenants/${id}/check`);
    expect(res.statusCode).toBe(200);
    return res.json().checks.filter((c: { id: string }) => c.id.startsWith('utilization.'));
  };

  it('names what is missing for the Eventhouse source, with its fix in both languages', async () => {
    const orgId = await insertOrg(t.ctx);
    const eventhouse = { queryUri: sim.origin, database: 'CapacityMonitoring', table: 'CapacityEvents' };
    const good = await connect(orgId, { eventhouse });
    expect((await check(orgId, good)).map((c: { id: string; ok: boolean }) => [c.id, c.ok])).toEqual([
      ['utilization.eventhouse.token', true],
      ['utilization.eventhouse.read', true],
      ['utilization.eventhouse.flowing', true],
    ]);

    const wrongTable = await connect(orgId, { eventhouse: { ...eventhouse, table: 'CapacityEventsRaw' } });
    const [, read] = await check(orgId, wrongTable);
    expect(read).toMatchObject({ id: 'utilization.eventhouse.read', ok: false });
    expect(read.fix.en).toContain('table name');
    expect(read.fix['pt-BR']).toContain('nome do banco KQL');

    sim.control.eventhouseForbidden({ on: true });
    const [, forbidden] = await check(orgId, good);
    expect(forbidden.ok).toBe(false);
    expect(forbidden.detail).toMatch(/403/);
    expect(forbidden.fix.en).toContain('Viewer role');
    sim.control.eventhouseForbidden({ on: false });

    // Every capacity paused for 11 minutes: nothing flows.
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Paused' });
    clock.advance(11 * 60_000);
    const flowing = (await check(orgId, good)).find((c: { id: string }) => c.id === 'utilization.eventhouse.flowing');
    expect(flowing).toMatchObject({ ok: false });
    expect(flowing.fix['pt-BR']).toContain('Real-Time hub');

    const other = await connect(orgId, { metricsApp: { workspaceId: '00000000-0000-0000-0000-000000000001', datasetId: '00000000-0000-0000-0000-000000000002' } });
    expect((await check(orgId, other)).map((c: { id: string; ok: boolean }) => [c.id, c.ok])).toEqual([['utilization.metricsApp', false]]);
    expect(sim.violations).toEqual([]);
  });

  it('checks the Azure Monitor source: ARM token, the Embedded listing (ARM read on the scope), an A SKU found, one metrics read', async () => {
    const orgId = await insertOrg(t.ctx);
    const sub = sim.state.settings.subscriptionId;
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    const armScopes = [`/subscriptions/${sub}`];
    const id = await connect(orgId, { armScopes });
    // Only F SKUs: the listing works, but there is nothing this source can read.
    let items = await check(orgId, id);
    expect(items.map((c: { id: string; ok: boolean }) => [c.id, c.ok])).toEqual([
      ['utilization.azureMonitor.token', true],
      ['utilization.azureMonitor.list', false],
    ]);
    expect(items[1].fix.en).toContain('F SKUs');
    expect(items[1].fix['pt-BR']).toContain('SKU A ou EM');

    sim.control.capacitySku({ capacityId: sim.state.capacities[1]!.id, sku: 'A1' });
    items = await check(orgId, id);
    expect(items.map((c: { id: string; ok: boolean }) => [c.id, c.ok])).toEqual([
      ['utilization.azureMonitor.token', true],
      ['utilization.azureMonitor.list', true],
      ['utilization.azureMonitor.metrics', true],
    ]);

    sim.control.armReadForbidden({ scope: `subscriptions/${sub}`, on: true });
    items = await check(orgId, id);
    expect(items[1]).toMatchObject({ id: 'utilization.azureMonitor.list', ok: false });
    expect(items[1].detail).toMatch(/403/);
    expect(items[1].fix.en).toContain('Monitoring Reader');
    expect(items[1].fix['pt-BR']).toContain('Leitor de Monitoramento');
    sim.control.armReadForbidden({ scope: `subscriptions/${sub}`, on: false });

    const wrongGroup = await connect(orgId, { armScopes: [`/subscriptions/${sub}/resourceGroups/rg-missing`] });
    items = await check(orgId, wrongGroup);
    expect(items[1]).toMatchObject({ id: 'utilization.azureMonitor.list', ok: false });
    expect(items[1].fix.en).toContain('resource group name');
    sim.control.capacitySku({ capacityId: sim.state.capacities[1]!.id, sku: 'F2' });
    expect(sim.violations).toEqual([]);
  });
});

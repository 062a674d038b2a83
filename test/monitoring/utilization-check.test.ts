/**
 * `POST …/tenants/{id}/check` for the utilization sources, against the simulator's Eventhouse:
 * a Kusto token, the table read, events flowing — each missing piece with its fix in pt-BR and
 * English — and the Capacity Metrics app's model: the query, a known version, recent usage.
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

    expect(sim.violations).toEqual([]);
  });

  it('names what is missing for the Capacity Metrics app source, with its fix in both languages', async () => {
    const orgId = await insertOrg(t.ctx);
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    clock.advance(15 * 60_000);
    const app = sim.state.metricsApp!;
    const good = await connect(orgId, { metricsApp: { workspaceId: app.workspaceId, datasetId: app.datasetId } });
    const items = await check(orgId, good);
    expect(items.map((c: { id: string; ok: boolean }) => [c.id, c.ok])).toEqual([
      ['utilization.metricsApp.query', true],
      ['utilization.metricsApp.version', true],
      ['utilization.metricsApp.fresh', true],
    ]);

    const wrongIds = await connect(orgId, { metricsApp: { workspaceId: app.workspaceId, datasetId: '00000000-0000-0000-0000-000000000002' } });
    const [query] = await check(orgId, wrongIds);
    expect(query).toMatchObject({ id: 'utilization.metricsApp.query', ok: false });
    expect(query.detail).toMatch(/404/);
    expect(query.fix.en).toContain('datasetId');
    expect(query.fix['pt-BR']).toContain('modelo semântico');

    sim.control.metricsAppForbidden({ on: true });
    const [refused] = await check(orgId, good);
    expect(refused).toMatchObject({ id: 'utilization.metricsApp.query', ok: false });
    expect(refused.detail).toMatch(/401/);
    expect(refused.fix.en).toContain('Dataset Execute Queries REST API');
    expect(refused.fix['pt-BR']).toContain('Ler e Criar (Build)');
    sim.control.metricsAppForbidden({ on: false });

    sim.control.metricsAppVersion({ version: 'v99' });
    const unknown = await check(orgId, good);
    expect(unknown.map((c: { id: string; ok: boolean }) => [c.id, c.ok])).toEqual([
      ['utilization.metricsApp.query', true],
      ['utilization.metricsApp.version', false],
    ]);
    expect(unknown[1].fix.en).toContain('v53–v65, v40–v47, v37');
    expect(unknown[1].fix['pt-BR']).toContain('Atualize o Vigia');
    sim.control.metricsAppVersion({ version: 'v37' });

    // Every capacity paused for 31 minutes: the model has no recent usage.
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Paused' });
    clock.advance(31 * 60_000);
    const fresh = (await check(orgId, good)).find((c: { id: string }) => c.id === 'utilization.metricsApp.fresh');
    expect(fresh).toMatchObject({ ok: false });
    expect(fresh.fix.en).toContain('10–15 minutes late');
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

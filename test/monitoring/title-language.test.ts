/**
 * The language of collected titles (docs/alerts.md, "Language of titles"): an organization reads
 * what Vigia's collectors write in its own language (`orgs.language`, set through the admin
 * API), with the platform's error code verbatim beside the translation; the delivery carries the
 * stored title. The same broken tenant is connected to a Portuguese and an English organization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inLanguage, validateSignal } from '../../src/alerts/signals.js';
import { ManualClock } from '../../src/clock.js';
import { createDestination } from '../../src/delivery/destination-service.js';
import { COLLECTOR_NAMES } from '../../src/monitoring/connection/collector-names.js';
import { gatewayCollector } from '../../src/monitoring/sources/gateway/gateway.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import { gatewayOffline } from '../../src/monitoring/messages/titles.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';

interface AlertItem {
  id: string;
  sourceType: string;
  sourceId: string;
  notificationKind: string;
  title: string;
  message: string;
}

describe('language of collected titles', () => {
  let t: TestApp;
  let clock: ManualClock;
  const sims: TenantSim[] = [];
  const schedulers: CollectorScheduler[] = [];
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
  });
  afterAll(async () => {
    await Promise.all(schedulers.map((s) => s.stop()));
    await Promise.all(sims.map((s) => s.stop()));
    await t.close();
  });

  /** An organization made through the admin API (language as given, or the default), a webhook, and a tenant whose only gateway is offline. */
  const connectBroken = async (seed: number, language?: 'pt-BR' | 'en') => {
    const sim = await startSim({ seed, sizes: { capacities: 1, workspaces: 1, gateways: 1, membersPerGateway: 1 } });
    sims.push(sim);
    const gw = sim.state.gateways[0]!;
    sim.control.gatewayOffline({ gatewayId: gw.id, offline: true });
    const made = await t.admin('POST', '/orgs', { name: `Org ${seed}`, ...(language ? { language } : {}) });
    expect(made.statusCode).toBe(201);
    const orgId = made.json().id as string;
    await createDestination(t.ctx, orgId, { name: 'Hook', kind: 'webhook', url: 'https://hooks.example.com/vigia' });
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((n) => [n, n === 'gateway' ? { enabled: true, intervalSeconds: 300 } : { enabled: false }]));
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Contoso',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'member',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
      collectors,
      pageFindingsAtConnection: true,
    });
    expect(res.statusCode).toBe(201);
    const scheduler = new CollectorScheduler(t.ctx, { pollMs: 60_000, stopTimeoutMs: 2_000, collectors: [gatewayCollector] });
    schedulers.push(scheduler);
    await scheduler.pass();
    const list = await t.admin('GET', `/orgs/${orgId}/alerts?pageSize=100`);
    expect(list.statusCode).toBe(200);
    const alerts = list.json().value as AlertItem[];
    const body = async (alertId: string) =>
      (await t.ctx.db.query<{ body: string }>("SELECT body FROM deliveries WHERE alert_id = $1 AND event = 'alert.opened'", [alertId])).rows.map((r) => r.body);
    return { orgId, gw, alerts, body, made: made.json() as { language: string } };
  };

  it('a Portuguese organization (the default) reads the gateway offline and TenantConnected in Portuguese, the platform code verbatim, and so does its webhook', async () => {
    const { gw, alerts, body, made } = await connectBroken(2901);
    expect(made.language).toBe('pt-BR');
    const offline = alerts.find((a) => a.notificationKind === 'GatewayOffline' && a.sourceId === gw.id.toLowerCase())!;
    expect(offline.title).toMatch(/^O (gateway )?.+ está offline$/);
    expect(offline.title).not.toMatch(/Gateway Gateway/);
    expect(offline.message).toContain('está offline: GatewayNotReachable');
    const connected = alerts.find((a) => a.notificationKind === 'TenantConnected')!;
    expect(connected.title).toBe('Tenant conectado com 2 problemas já presentes: Contoso');
    expect(connected.message).toContain('O primeiro olhar do Vigia sobre Contoso encontrou 2 problemas já presentes.');
    expect(connected.message).not.toContain('found');
    const sent = await body(offline.id);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!).alert.title).toBe(offline.title);
  });

  it('an English organization reads them in English; a PATCH switches what the next incident is written in', async () => {
    const { orgId, gw, alerts, body } = await connectBroken(2902, 'en');
    const offline = alerts.find((a) => a.notificationKind === 'GatewayOffline' && a.sourceId === gw.id.toLowerCase())!;
    expect(offline.title).toMatch(/^Gateway .+ is offline$/);
    expect(offline.message).toContain('is offline: GatewayNotReachable');
    const connected = alerts.find((a) => a.notificationKind === 'TenantConnected')!;
    expect(connected.title).toBe('Tenant connected with 2 problems already present: Contoso');
    expect(connected.message).toContain("Vigia's first look at Contoso found 2 problems already present.");
    expect(JSON.parse((await body(offline.id))[0]!).alert.title).toBe(offline.title);

    const patched = await t.admin('PATCH', `/orgs/${orgId}`, { language: 'pt-BR' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().language).toBe('pt-BR');
    expect((await t.admin('GET', `/orgs/${orgId}`)).json().language).toBe('pt-BR');
  });

  it('refuses a language it does not have, in the envelope', async () => {
    const made = await t.admin('POST', '/orgs', { name: 'Org x' });
    const res = await t.admin('PATCH', `/orgs/${made.json().id}`, { language: 'fr' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('language');
  });

  it('a long name in a translated title is cut to the title limit, never half a character, and the signal stays valid', () => {
    const name = `Gateway ${'🚀'.repeat(300)}`;
    const said = gatewayOffline(name, [{ errorCode: 'GatewayNotReachable', message: 'x' }]);
    for (const language of ['pt-BR', 'en'] as const) {
      const s = inLanguage({ sourceType: 'Gateway', sourceId: 'g', sourceName: 'g', kind: 'failure', notificationKind: 'GatewayOffline', ...said }, language);
      expect(s.title.length).toBeLessThanOrEqual(500);
      expect(s.title).not.toMatch(/[\uD800-\uDBFF]$/);
      expect(validateSignal(s, 'signal', clock.now()).title).toBe(s.title);
    }
  });
});

/**
 * Issue 39 item 2: creating a connection, or changing its credentials through PATCH, asks the
 * token endpoint at once (the tenant simulator's Entra ID) and answers with the verdict beside the
 * saved connection. A wrong secret is still saved — the answer says the credentials were refused,
 * with the fix — and the right one says ok; a closed port is named as such; PATCH without credentials asks nothing.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { DEFAULT_COLLECTORS } from '../../src/monitoring/registry.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { insertOrg } from './support.js';

interface Verdict {
  ok: boolean;
  checks: Array<{ id: string; ok: boolean; cause?: string; detail?: string; title: { en: string; 'pt-BR': string } }>;
  fixes: Array<{ fix: { en: string; 'pt-BR': string }; items: string[] }>;
}

describe('a save that sets credentials answers with the token endpoint verdict', () => {
  let t: TestApp;
  let sim: TenantSim;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { destinationAllowlist: ['127.0.0.1'] } });
    sim = await startSim({ sizes: { capacities: 1, workspaces: 1 } });
  });
  afterAll(async () => {
    await sim.stop();
    await t.close();
  });
  const tokenCalls = () => sim.countCalls({ path: `/${sim.tenantId}/oauth2/v2.0/token` });
  const body = (clientSecret: string) => ({
    name: 'Contoso',
    tenantId: sim.tenantId,
    clientId: sim.clientId,
    credentials: { clientSecret },
    mode: 'admin',
    endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
  });

  it('a wrong secret is saved, and the answer says the token endpoint refused it, with the fix', async () => {
    const orgId = await insertOrg(t.ctx);
    const before = tokenCalls();
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, body('not-the-secret'));
    expect(res.statusCode).toBe(201);
    const saved = res.json() as { id: string; credentialCheck: Verdict };
    expect(tokenCalls()).toBe(before + 1);
    expect(saved.credentialCheck.ok).toBe(false);
    expect(saved.credentialCheck.checks).toMatchObject([{ id: 'token.powerbi', ok: false, cause: 'invalid_secret' }]);
    expect(saved.credentialCheck.checks[0]!.detail).toContain('AADSTS7000215');
    expect(saved.credentialCheck.fixes).toHaveLength(1);
    expect(saved.credentialCheck.fixes[0]!.fix['pt-BR']).toMatch(/segredo/);
    // Saved all the same: the connection is there, its credentials sealed.
    const { rows } = await t.ctx.db.query('SELECT id, credentials_sealed FROM tenants WHERE org_id = $1', [orgId]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(saved)).not.toContain('not-the-secret');

    // The right secret through PATCH: saved, and the verdict is ok.
    const fixed = await t.admin('PATCH', `/orgs/${orgId}/tenants/${saved.id}`, { credentials: { clientSecret: sim.clientSecret } });
    expect(fixed.statusCode).toBe(200);
    expect((fixed.json() as { credentialCheck: Verdict }).credentialCheck).toMatchObject({ ok: true, checks: [{ id: 'token.powerbi', ok: true }], fixes: [] });
    expect(JSON.stringify(fixed.json())).not.toContain(sim.clientSecret);

    // A change without credentials asks nothing and answers the connection alone.
    const calls = tokenCalls();
    const renamed = await t.admin('PATCH', `/orgs/${orgId}/tenants/${saved.id}`, { name: 'Contoso BR' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).not.toHaveProperty('credentialCheck');
    expect(tokenCalls()).toBe(calls);
  });

  it("a collector's failure carries its code and facts, and its text in both languages from the catalog", async () => {
    const orgId = await insertOrg(t.ctx);
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      ...body('not-the-secret'),
      collectors: Object.fromEntries(DEFAULT_COLLECTORS.map((c) => [c.name, c.name === 'capacity' ? { intervalSeconds: 60 } : { enabled: false }])),
    });
    const id = (res.json() as { id: string }).id;
    await t.ctx.db.query("UPDATE collector_schedules SET next_run_at = $2 WHERE tenant_ref = $1", [id, new Date('2026-06-15T11:59:00Z')]);
    const scheduler = new CollectorScheduler(t.ctx, { pollMs: 60_000, stopTimeoutMs: 2_000, collectors: [capacityCollector], transport: { timeoutMs: 5_000 } });
    try {
      expect(await scheduler.pass()).toBeGreaterThanOrEqual(1);
    } finally {
      await scheduler.stop();
    }
    const view = (await t.admin('GET', `/orgs/${orgId}/tenants/${id}`)).json() as { collectors: Array<Record<string, unknown>> };
    const capacity = view.collectors.find((c) => c.name === 'capacity')!;
    expect(capacity).toMatchObject({
      lastError: 'the token endpoint refused the credentials: the client secret is wrong (AADSTS7000215)',
      lastErrorCode: 'token.refused',
      lastErrorParams: { code: 'AADSTS7000215', problem: 'invalid_secret' },
      lastErrorText: {
        en: 'the token endpoint refused the credentials: the client secret is wrong (AADSTS7000215)',
        'pt-BR': 'o endpoint de token recusou as credenciais: o segredo do cliente está errado (AADSTS7000215)',
      },
    });
    const { rows } = await t.ctx.db.query('SELECT last_error_code FROM collector_schedules WHERE tenant_ref = $1 AND collector = $2', [id, 'capacity']);
    expect(rows[0].last_error_code).toBe('token.refused');
  });

  it('the right secret at creation: ok', async () => {
    const orgId = await insertOrg(t.ctx);
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, body(sim.clientSecret));
    expect(res.statusCode).toBe(201);
    expect((res.json() as { credentialCheck: Verdict }).credentialCheck).toMatchObject({ ok: true, checks: [{ id: 'token.powerbi', ok: true }] });
  });

  it('a token endpoint nothing listens on: saved, and the verdict names the connection, not the credentials', async () => {
    const orgId = await insertOrg(t.ctx);
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const origin = `https://127.0.0.1:${port}`;
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, { ...body(sim.clientSecret), endpoints: { authorityHost: origin, powerBi: origin, fabric: origin, arm: origin } });
    expect(res.statusCode).toBe(201);
    const verdict = (res.json() as { credentialCheck: Verdict }).credentialCheck;
    expect(verdict).toMatchObject({ ok: false, checks: [{ id: 'token.powerbi', ok: false, cause: 'refused' }] });
    expect(verdict.fixes[0]!.fix.en).not.toMatch(/secret/i);
  });
});

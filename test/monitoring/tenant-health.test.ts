/**
 * What the monitor says when it cannot sign in or cannot connect, through `POST …/check` and the
 * engine's runs against the tenant simulator: throttling and outages of the token endpoint are
 * TenantThrottled and its Retry-After is honoured; each credential refusal (AADSTS code) is
 * TenantAuthFailed at once, named, with its own fix; a refusal seen by check opens the incident
 * even while collectors still hold cached tokens; an untrusted certificate, a certificate for
 * another host name, a host not found and a closed port are named as such, with their own fix,
 * in check, in `last_error` and in a TenantUnreachable incident.
 */
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { setResolver, systemResolver } from '../../src/delivery/guarded-http.js';
import { capacityCollector } from '../../src/monitoring/sources/capacity/capacity.js';
import { DEFAULT_COLLECTORS } from '../../src/monitoring/registry.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import { ensureLocalCert } from '../../src/receiver/local-ca.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { startTenantSimulator } from '../../src/tenant-sim/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startSim } from '../tenant-sim/helpers.js';
import { insertOrg } from './support.js';

const COLLECTOR_NAMES = DEFAULT_COLLECTORS.map((c) => c.name);

describe('tenant health: sign-in and connection failures', () => {
  let t: TestApp;
  let clock: ManualClock;
  const sims: TenantSim[] = [];
  const schedulers: CollectorScheduler[] = [];
  const tmp = mkdtempSync(path.join(tmpdir(), 'vigia-health-'));
  /** What `flip.test` resolves to: a closed port's host, then nothing (a test changes it). */
  let flipAddresses: Array<{ address: string; family: number }> = [{ address: '127.0.0.1', family: 4 }];

  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1', 'mismatch.test', 'missing.test', 'flip.test'] } });
    // Test names: one that resolves to loopback (the certificate does not name it), one that does not resolve.
    setResolver(t.ctx, async (host) => (host === 'mismatch.test' ? [{ address: '127.0.0.1', family: 4 }] : host === 'missing.test' ? [] : host === 'flip.test' ? flipAddresses : systemResolver(host)));
  });
  afterAll(async () => {
    await Promise.all(schedulers.map((s) => s.stop()));
    await Promise.all(sims.map((s) => s.stop()));
    await t.close();
    rmSync(tmp, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await t.ctx.db.query('UPDATE collector_schedules SET enabled = false');
  });

  const sim = async (opts: Parameters<typeof startSim>[0] = {}) => {
    const s = await startSim({ sizes: { capacities: 1, workspaces: 1 }, ...opts });
    sims.push(s);
    return s;
  };
  const scheduler = () => {
    const s = new CollectorScheduler(t.ctx, { pollMs: 60_000, stopTimeoutMs: 2_000, collectors: [capacityCollector], transport: { timeoutMs: 5_000 } });
    schedulers.push(s);
    return s;
  };
  const connect = async (orgId: string, s: { tenantId: string; clientId: string; clientSecret: string }, origin: string) => {
    const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Contoso',
      tenantId: s.tenantId,
      clientId: s.clientId,
      credentials: { clientSecret: s.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: origin, powerBi: origin, fabric: origin, arm: origin },
      // Only the collector these tests run: a refused sign-in marks every enabled one.
      collectors: Object.fromEntries(COLLECTOR_NAMES.map((n) => [n, n === 'capacity' ? { intervalSeconds: 5 } : { enabled: false }])),
    });
    expect(res.statusCode).toBe(201);
    return res.json() as { id: string };
  };
  const check = async (orgId: string, id: string) => {
    const res = await t.admin('POST', `/orgs/${orgId}/tenants/${id}/check`);
    expect(res.statusCode).toBe(200);
    return res.json() as { ok: boolean; checks: Array<{ id: string; ok: boolean; cause?: string; detail?: string; fix: { en: string; 'pt-BR': string } | null }> };
  };
  const tenantAlerts = async (orgId: string) =>
    (await t.ctx.db.query('SELECT notification_kind, status, message FROM alerts WHERE org_id = $1 AND source_type = $2 ORDER BY created_at, id', [orgId, 'Tenant'])).rows;
  const lastError = async (id: string) =>
    (await t.ctx.db.query('SELECT last_error FROM collector_schedules WHERE tenant_ref = $1 AND collector = $2', [id, 'capacity'])).rows[0].last_error as string | null;
  const tokenCalls = (s: TenantSim) => s.countCalls({ path: `/${s.tenantId}/oauth2/v2.0/token` });

  it('a 429 from the token endpoint is throttling, not refused credentials: Retry-After is honoured, TenantThrottled opens after two intervals and recovers', async () => {
    const s = await sim({ seed: 61 });
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s, s.origin);
    const atSave = tokenCalls(s); // the save asked for one token (its verdict)
    s.control.throttle({ family: 'token', count: 1000, retryAfterSeconds: 30 });
    const runner = scheduler();
    await runner.pass();
    expect(await lastError(tenant.id)).toBe('the token endpoint is throttling Vigia (429); next try after 30 s');
    expect(tokenCalls(s)).toBe(atSave + 1);
    expect(await tenantAlerts(orgId)).toEqual([]);
    // Within the Retry-After the next runs do not call the endpoint again.
    clock.advance(5_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toBe('the token endpoint is throttling Vigia (429); next try after 25 s');
    clock.advance(6_000);
    await runner.pass();
    expect(tokenCalls(s)).toBe(atSave + 1);
    expect((await tenantAlerts(orgId)).map((a) => [a.notification_kind, a.status])).toEqual([['TenantThrottled', 'open']]);
    // Past the Retry-After the endpoint is asked again; it answers, the run succeeds, the incident recovers.
    s.control.throttle({ family: 'token', count: 0 });
    clock.advance(20_000);
    await runner.pass();
    expect(tokenCalls(s)).toBeGreaterThan(atSave + 1);
    expect(await lastError(tenant.id)).toBeNull();
    expect((await tenantAlerts(orgId)).map((a) => [a.notification_kind, a.status])).toEqual([['TenantThrottled', 'resolved']]);
    expect(s.violations).toEqual([]);
  });

  it('an outage (503) of the token endpoint is "unavailable", honours Retry-After, and check says the credentials were not refused', async () => {
    const s = await sim({ seed: 62 });
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s, s.origin);
    s.control.refuseTokens({ on: true, kind: 'unavailable' });
    const res = await check(orgId, tenant.id);
    expect(res.checks[0]).toMatchObject({ id: 'token.powerbi', ok: false, cause: 'throttled', detail: 'the token endpoint is unavailable (503); next try after 30 s' });
    expect(res.checks[0]!.fix!.en).toContain('the credentials were not refused');
    expect(res.checks[0]!.fix!['pt-BR']).toContain('as credenciais não foram recusadas');
    const runner = scheduler();
    await runner.pass();
    expect(await lastError(tenant.id)).toBe('the token endpoint is unavailable (503); next try after 30 s');
    expect(await tenantAlerts(orgId)).toEqual([]);
    s.control.refuseTokens({ on: false });
  });

  const refusals = [
    ['invalid_secret', 'AADSTS7000215', 'invalid_secret', 'the client secret is wrong', 'not its Secret ID'],
    ['expired_secret', 'AADSTS7000222', 'expired_secret', 'the client secret has expired', 'create a new one'],
    ['certificate', 'AADSTS700027', 'certificate', 'the certificate is not registered for the app or its signature is not valid', 'upload the certificate'],
    ['disabled', 'AADSTS7000112', 'application', 'the application is disabled', 'are enabled'],
    ['unknown_application', 'AADSTS700016', 'application', 'no application with this client ID exists in the tenant', 'Application (client) ID'],
    ['tenant_not_found', 'AADSTS90002', 'tenant', 'the tenant ID does not exist', 'Directory (tenant) ID'],
  ] as const;

  it.each(refusals)('refusal %s: check names %s with its own fix, and TenantAuthFailed opens at once', async (kind, code, cause, reason, fix) => {
    const s = await sim({ seed: 63 });
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s, s.origin);
    s.control.refuseTokens({ on: true, kind });
    const res = await check(orgId, tenant.id);
    const token = res.checks.find((c) => c.id === 'token.fabric')!;
    expect(token).toMatchObject({ ok: false, cause, detail: `the token endpoint refused the credentials: ${reason} (${code})` });
    expect(token.fix!.en).toContain(fix);
    // The access checks that need that token say why they could not run, with the same fix.
    const admin = res.checks.find((c) => c.id === 'admin.fabric')!;
    expect(admin).toMatchObject({ ok: false, cause });
    expect(admin.fix).toEqual(token.fix);
    // Seen by check: opened at once, its message names the reason and the fix in the organization's language (pt-BR) only.
    const opened = await tenantAlerts(orgId);
    expect(opened.map((a) => [a.notification_kind, a.status])).toEqual([['TenantAuthFailed', 'open']]);
    expect(opened[0].message).toContain(code);
    expect(opened[0].message).toContain(`O que fazer: ${token.fix!['pt-BR']}`);
    expect(opened[0].message).toMatch(/^check: o endpoint de token recusou as credenciais: /);
    expect(opened[0].message).not.toContain('What to do');
    // A second check does not open a second one.
    await check(orgId, tenant.id);
    expect(await tenantAlerts(orgId)).toHaveLength(1);
    s.control.refuseTokens({ on: false });
    expect(s.violations).toEqual([]);
  });

  it('a revoked secret hidden by cached tokens: check opens TenantAuthFailed at once, runs renew their token until it works again, then it recovers', async () => {
    const s = await sim({ seed: 64 });
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s, s.origin);
    const runner = scheduler();
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    s.control.refuseTokens({ on: true, kind: 'invalid_secret' });
    // The collector's cached token still works: the run succeeds and nothing opens (the documented gap).
    clock.advance(5_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect(await tenantAlerts(orgId)).toEqual([]);
    // check asks the endpoint: the refusal opens the incident at once.
    expect((await check(orgId, tenant.id)).ok).toBe(false);
    expect((await tenantAlerts(orgId)).map((a) => [a.notification_kind, a.status])).toEqual([['TenantAuthFailed', 'open']]);
    // The next run does not trust its cached token: it asks again, is refused, the incident stays.
    const before = tokenCalls(s);
    clock.advance(5_000);
    await runner.pass();
    expect(tokenCalls(s)).toBeGreaterThan(before);
    expect(await lastError(tenant.id)).toMatch(/the client secret is wrong \(AADSTS7000215\)/);
    expect((await tenantAlerts(orgId)).map((a) => a.status)).toEqual(['open']);
    // The secret works again: the next run gets a token, succeeds, and the incident recovers.
    s.control.refuseTokens({ on: false });
    clock.advance(5_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect((await tenantAlerts(orgId)).map((a) => a.status)).toEqual(['resolved']);
  });

  const expectConnectionFailure = async (orgId: string, tenantId: string, cause: string, text: RegExp, fix: string) => {
    const res = await check(orgId, tenantId);
    expect(res.ok).toBe(false);
    let ptFix = '';
    for (const c of res.checks) {
      expect(c).toMatchObject({ ok: false, cause });
      expect(c.detail).toMatch(text);
      expect(c.fix!.en).toContain(fix);
      // Not the credentials' fix: nothing about Entra ids or a new secret.
      expect(c.fix!.en).not.toContain('create a new client secret');
      ptFix = c.fix!['pt-BR'];
    }
    expect(await tenantAlerts(orgId)).toEqual([]);
    const runner = scheduler();
    for (let i = 0; i < 4; i++) {
      await runner.pass();
      expect(await lastError(tenantId)).toMatch(text);
      clock.advance(5_000);
    }
    const opened = await tenantAlerts(orgId);
    expect(opened.map((a) => [a.notification_kind, a.status])).toEqual([['TenantUnreachable', 'open']]);
    // In the organization's language (pt-BR): the failure and its fix, from the catalogs.
    expect(opened[0].message).toContain(`O que fazer: ${ptFix}`);
    expect(opened[0].message).toMatch(/^capacity: falha na conexão: /);
  };

  it('a server whose certificate no trusted authority signed: named, with the fix about NODE_EXTRA_CA_CERTS', async () => {
    // Signed by a local authority of its own, which this process does not trust.
    const own = ensureLocalCert(path.join(tmp, 'untrusted'), path.join(tmp, 'untrusted-ca'));
    const base = await sim({ seed: 65 });
    const s = await startTenantSimulator({ tls: { cert: readFileSync(own.certFile), key: readFileSync(own.keyFile) }, strict: true, seed: 65, sizes: { capacities: 1, workspaces: 1 } });
    sims.push(s);
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, base, s.origin);
    await expectConnectionFailure(orgId, tenant.id, 'tls_untrusted', /connection failed: the server's TLS certificate is not signed by a trusted certificate authority \(\w+\)/, 'NODE_EXTRA_CA_CERTS');
  });

  it('a certificate issued for another host name: named, with the fix about the endpoints\' host', async () => {
    const s = await sim({ seed: 66 });
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s, `https://mismatch.test:${new URL(s.origin).port}`);
    await expectConnectionFailure(orgId, tenant.id, 'tls_hostname', /issued for another host name \(ERR_TLS_CERT_ALTNAME_INVALID\)/, "the certificate's name");
  });

  it('a host name DNS does not know: named', async () => {
    const s = await sim({ seed: 67 });
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s, 'https://missing.test:9');
    await expectConnectionFailure(orgId, tenant.id, 'dns', /the host name was not found \(DNS\) \(ENOTFOUND\)/, 'was not found in DNS');
  });

  it('a closed port: named, with the fix to start the server', async () => {
    const s = await sim({ seed: 68 });
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s, `https://127.0.0.1:${port}`);
    await expectConnectionFailure(orgId, tenant.id, 'refused', /refused the connection .*\(ECONNREFUSED\)/, 'is running');
  });

  it('a cause change on an open incident restates its message and sends no recovery; only a run that works recovers it', async () => {
    const s = await sim({ seed: 69 });
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    flipAddresses = [{ address: '127.0.0.1', family: 4 }];
    const orgId = await insertOrg(t.ctx);
    const tenant = await connect(orgId, s, `https://flip.test:${port}`);
    const runner = scheduler();
    for (let i = 0; i < 4; i++) {
      await runner.pass();
      clock.advance(5_000);
    }
    const [opened] = await tenantAlerts(orgId);
    expect(opened).toMatchObject({ notification_kind: 'TenantUnreachable', status: 'open' });
    expect(opened.message).toMatch(/ECONNREFUSED/);
    const eventsOf = async () => (await t.ctx.db.query('SELECT e.event FROM alert_events e JOIN alerts a ON a.id = e.alert_id WHERE a.org_id = $1 ORDER BY e.seq', [orgId])).rows.map((r) => r.event);
    expect(await eventsOf()).toEqual(['alert.opened']);
    // The host is no longer found: still unreachable, for another cause. The open incident says so; nothing recovered.
    flipAddresses = [];
    await runner.pass();
    const [restated] = await tenantAlerts(orgId);
    expect(restated.status).toBe('open');
    expect(restated.message).toMatch(/o nome do host não foi encontrado \(DNS\) \(ENOTFOUND\)/);
    expect(restated.message).toContain('O que fazer:');
    expect(restated.message).not.toMatch(/ECONNREFUSED/);
    expect(await eventsOf()).toEqual(['alert.opened']);
    // The same cause again changes nothing.
    clock.advance(5_000);
    await runner.pass();
    expect((await tenantAlerts(orgId)).map((a) => a.status)).toEqual(['open']);
    expect(await eventsOf()).toEqual(['alert.opened']);
    // The endpoints now name the simulator: the run works, and only now the incident recovers.
    // Straight in the row (a new updated_at drops the cached token client of the old endpoints).
    await t.ctx.db.query(
      `UPDATE tenants SET updated_at = $3, endpoints = jsonb_build_object('authorityHost', $2::text, 'powerBi', $2::text, 'fabric', $2::text, 'arm', $2::text) WHERE id = $1`,
      [tenant.id, s.origin, clock.now()],
    );
    clock.advance(5_000);
    await runner.pass();
    expect(await lastError(tenant.id)).toBeNull();
    expect((await tenantAlerts(orgId)).map((a) => a.status)).toEqual(['resolved']);
    expect(await eventsOf()).toEqual(['alert.opened', 'alert.recovered']);
  });
});

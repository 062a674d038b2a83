/**
 * The restart trap (README tour, then Ctrl-C and a plain `npm start`): the service is started
 * in-process three times on one database and data directory, with one injected clock. Stored
 * connections and destinations at local hosts need VIGIA_DESTINATION_ALLOWLIST and the local
 * authority in NODE_EXTRA_CA_CERTS; a start without them names each setting in one warning line,
 * the collector whose slots were missed runs right after start, its refusal is the connection
 * cause `blocked`, which opens TenantUnreachable at once with the allowlist's fix (and check
 * names the safety rule, not the credentials). A start with them: no warning, and the incident
 * recovers.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { setResolver, systemResolver } from '../../src/delivery/guarded-http.js';
import { createLogger } from '../../src/logger.js';
import { DEFAULT_COLLECTORS } from '../../src/monitoring/registry.js';
import { startService, type RunningService } from '../../src/service.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { certFiles } from '../fakes/fake-server.js';
import { LogCapture } from '../helpers/context.js';
import { ENGINE, createPgTestDatabaseUrl } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { startSim } from '../tenant-sim/helpers.js';

const ADMIN_TOKEN = 'vat_restart_admin_token_0123456789abcdefghijk';
const COLLECTOR_NAMES = DEFAULT_COLLECTORS.map((c) => c.name);

describe('a restart keeps watching', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vigia-restart-'));
  const secretKey = randomBytes(32).toString('base64');
  const clock = new ManualClock('2026-06-15T12:00:00Z');
  const caFile = path.join(dataDir, 'local-ca', 'ca.pem');
  let pg: Awaited<ReturnType<typeof createPgTestDatabaseUrl>> | undefined;
  let sim: TenantSim;
  let running: RunningService | undefined;

  beforeAll(async () => {
    pg = ENGINE === 'pg' ? await createPgTestDatabaseUrl() : undefined;
    sim = await startSim({ seed: 91, sizes: { capacities: 1, workspaces: 1 } });
    // What `vigia listen --cert-only` leaves: the local authority that signs the local tools' certificates
    // (here the test authority, which signs the simulator's).
    mkdirSync(path.dirname(caFile), { recursive: true });
    copyFileSync(certFiles().caCert, caFile);
  });
  afterAll(async () => {
    await running?.stop();
    await sim?.stop();
    await pg?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts the service as `npm start` would, with or without the tour's two settings. */
  const start = async (tourSettings: boolean) => {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      VIGIA_DATA_DIR: dataDir,
      ...(pg ? { DATABASE_URL: pg.url } : {}),
      VIGIA_SECRET_KEY: secretKey,
      VIGIA_ADMIN_TOKEN: ADMIN_TOKEN,
      ...(tourSettings ? { VIGIA_DESTINATION_ALLOWLIST: 'localhost' } : {}),
      VIGIA_LOG_LEVEL: 'warn',
    });
    // localhost is the simulator's loopback address (IPv4 only here).
    setResolver({ config }, async (host) => (host === 'localhost' ? [{ address: '127.0.0.1', family: 4 }] : systemResolver(host)));
    const logs = new LogCapture();
    running = await startService(config, { clock, logger: createLogger('warn', logs), env: tourSettings ? { NODE_EXTRA_CA_CERTS: certFiles().caCert } : {} });
    const origin = running.address!;
    const admin = async (method: string, urlPath: string, body?: unknown) => {
      const res = await fetch(`${origin}/api/admin/v1${urlPath}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as any };
    };
    const warnings = () => logs.lines.map((l) => JSON.parse(l)).filter((l) => l.setting);
    return { service: running, admin, warnings, db: running.ctx.db };
  };
  const stop = async () => {
    await running!.stop();
    running = undefined;
  };

  it('names the missing settings at start, opens TenantUnreachable with the allowlist fix, and recovers once they are back', async () => {
    // 1. The tour: started with both settings; a tenant (the simulator) and a destination at localhost.
    let s = await start(true);
    expect(await s.service.startSettings).toEqual([]);
    const org = await s.admin('POST', '/orgs', { name: 'Acme' });
    expect(org.status).toBe(201);
    const orgId = org.json.id as string;
    const origin = `https://localhost:${new URL(sim.origin).port}`;
    const tenant = await s.admin('POST', `/orgs/${orgId}/tenants`, {
      name: 'Contoso',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: origin, powerBi: origin, fabric: origin, arm: origin },
      collectors: Object.fromEntries(COLLECTOR_NAMES.map((n) => [n, n === 'capacity' ? { intervalSeconds: 60 } : { enabled: false }])),
    });
    expect(tenant.status).toBe(201);
    const tenantRef = tenant.json.id as string;
    expect((await s.admin('POST', `/orgs/${orgId}/destinations`, { name: 'my laptop', kind: 'webhook', url: 'https://localhost:9443/' })).status).toBe(201);
    const schedule = async (db = s.db) =>
      (await db.query('SELECT last_run_at, last_success_at, last_error FROM collector_schedules WHERE tenant_ref = $1 AND collector = $2', [tenantRef, 'capacity'])).rows[0];
    await waitFor(async () => (await schedule())?.last_success_at, { what: 'the first capacity run to succeed', detail: () => JSON.stringify(s.warnings()) });
    await stop();

    // 2. Ctrl-C, three minutes pass, then a plain `npm start`.
    clock.advance(180_000);
    const restartedAt = clock.now();
    s = await start(false);
    const findings = await s.service.startSettings;
    expect(findings.map((f) => [f.setting, f.value])).toEqual([
      ['VIGIA_DESTINATION_ALLOWLIST', 'localhost'],
      ['NODE_EXTRA_CA_CERTS', caFile],
    ]);
    // One warning line per setting, each naming the variable to set and what needs it.
    const lines = s.warnings();
    expect(lines.map((l) => l.setting)).toEqual(['VIGIA_DESTINATION_ALLOWLIST', 'NODE_EXTRA_CA_CERTS']);
    expect(lines[0].msg).toContain('VIGIA_DESTINATION_ALLOWLIST=localhost');
    expect(lines[0].msg).toContain('tenant "Contoso"');
    expect(lines[0].msg).toContain('destination "my laptop"');
    expect(lines[1].msg).toContain(`NODE_EXTRA_CA_CERTS=${caFile}`);
    // The missed slots: the collector runs right after start (no waiting for its next interval).
    const refused = await waitFor(
      async () => {
        const row = await schedule();
        return row && new Date(row.last_run_at).getTime() >= restartedAt.getTime() ? row : null;
      },
      { what: 'the capacity collector to run after the restart' },
    );
    expect(refused.last_error).toContain('the destination-safety rules refuse the address');
    const tenantAlerts = async (db = s.db) =>
      (await db.query('SELECT id, notification_kind, status, message FROM alerts WHERE org_id = $1 AND source_type = $2 ORDER BY created_at, id', [orgId, 'Tenant'])).rows;
    const [opened] = await tenantAlerts();
    expect(opened).toMatchObject({ notification_kind: 'TenantUnreachable', status: 'open' });
    expect(opened.message).toContain('VIGIA_DESTINATION_ALLOWLIST');
    expect(opened.message).not.toContain('create a new client secret');
    // check names the safety rule, not the credentials.
    const check = await s.admin('POST', `/orgs/${orgId}/tenants/${tenantRef}/check`);
    expect(check.status).toBe(200);
    const token = check.json.checks.find((c: any) => c.id === 'token.fabric');
    expect(token).toMatchObject({ ok: false, cause: 'blocked' });
    expect(token.fix.en).toContain('VIGIA_DESTINATION_ALLOWLIST');
    expect(token.fix.en).not.toContain('Entra ID');
    expect(token.fix['pt-BR']).toContain('simulador de tenant');
    // One cause, one fix: given once, with every item it covers.
    expect(check.json.fixes).toEqual([{ fix: token.fix, items: check.json.checks.filter((c: any) => !c.ok).map((c: any) => c.id) }]);
    expect(check.json.fixes[0].items).toEqual(expect.arrayContaining(['token.powerbi', 'token.fabric', 'token.arm', 'admin.fabric']));
    await stop();

    // 3. Started with the settings again: no warning, the next run works and the incident recovers.
    clock.advance(60_000);
    s = await start(true);
    expect(await s.service.startSettings).toEqual([]);
    expect(s.warnings()).toEqual([]);
    await waitFor(async () => (await tenantAlerts())[0]?.status === 'resolved', { what: 'the TenantUnreachable incident to recover' });
    expect((await schedule()).last_error).toBeNull();
    const events = await s.db.query('SELECT event FROM alert_events WHERE alert_id = $1 ORDER BY seq', [opened.id]);
    expect(events.rows.map((r) => r.event)).toEqual(['alert.opened', 'alert.recovered']);
    await stop();
  }, 240_000);
});

/**
 * `vigia tenants …` as a newcomer runs it: a real `vigia serve` child, the tenant simulator,
 * and each subcommand (add with the secret on stdin or in a file, list, show, check, run-now,
 * remove) as a child process talking to the admin API. The secret never appears in any output.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLocalCert } from '../../src/receiver/local-ca.js';
import { startTenantSimulator, type TenantSim } from '../../src/tenant-sim/index.js';
import { createPgTestDatabaseUrl, ENGINE } from '../helpers/db.js';
import { startSim } from '../tenant-sim/helpers.js';
import { serve, stopAll, vigia, type Child } from './processes.js';

describe(`vigia tenants (${ENGINE})`, () => {
  let env: Record<string, string>;
  let dir: string;
  let cleanup: () => Promise<void> = async () => undefined;
  let sim: TenantSim;
  let base: string;
  let token: string;
  let orgId: string;
  /** --url/--token on PostgreSQL; on PGlite the server and its token are found in the data directory. */
  let targetArgs: string[];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigia-tenants-cli-'));
    sim = await startSim({ seed: 47, sizes: { capacities: 2, workspaces: 3, gateways: 2 } });
    env = { VIGIA_DATA_DIR: path.join(dir, 'data'), VIGIA_DESTINATION_ALLOWLIST: '127.0.0.1' };
    if (ENGINE === 'pg') {
      const db = await createPgTestDatabaseUrl();
      Object.assign(env, { DATABASE_URL: db.url, VIGIA_SECRET_KEY: randomBytes(32).toString('base64'), VIGIA_ADMIN_TOKEN: `vat_${randomBytes(20).toString('hex')}` });
      cleanup = db.drop;
    }
    const server = await serve(env);
    base = server.base;
    token = env.VIGIA_ADMIN_TOKEN ?? (await server.waitFor(/Admin token \(shown once, store it now\): (vat_\S+)/))[1]!;
    targetArgs = ENGINE === 'pg' ? ['--url', base, '--token', token] : [];
    const org = await fetch(`${base}/api/admin/v1/orgs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'CLI' }),
    });
    orgId = ((await org.json()) as { id: string }).id;
  }, 120_000);
  afterAll(async () => {
    stopAll();
    await sim.stop();
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (args: string[], stdin?: string): Promise<Child & { code: number | null }> => {
    const c = vigia(['tenants', ...args, '--org', orgId, ...targetArgs], env);
    if (stdin !== undefined) c.child.stdin!.end(stdin);
    const code = await c.exited;
    expect(c.stdout() + c.stderr()).not.toContain(sim.clientSecret);
    return { ...c, code };
  };

  it('add (secret on stdin), list, show, check, run-now and remove', async () => {
    const add = await run(
      ['add', '--name', 'Simulated', '--tenant-id', sim.tenantId, '--client-id', sim.clientId, '--mode', 'admin', '--endpoint', sim.origin,
        '--collector', 'costs=off', '--collector', 'gateway=600', '--client-secret-stdin'],
      `${sim.clientSecret}\n`,
    );
    expect(add.code, add.stderr()).toBe(0);
    const id = /connected Simulated: (tnt_\S+)/.exec(add.stdout())![1]!;
    expect(add.stdout()).toContain('gateway every 600 s');
    expect(add.stdout()).not.toContain('costs every');

    const list = await run(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout()).toMatch(new RegExp(`${id}\\s+Simulated\\s+admin\\s+tenant ${sim.tenantId}`));

    const show = await run(['show', id]);
    expect(show.code).toBe(0);
    expect(show.stdout()).toContain(`endpoints: authorityHost=${sim.origin}`);
    expect(show.stdout()).toMatch(/gateway\s+every 600 s/);
    expect(show.stdout()).toMatch(/costs\s+off/);
    const json = await run(['show', id, '--json']);
    expect(JSON.parse(json.stdout())).toMatchObject({ id, name: 'Simulated', credentialsSet: true });

    const check = await run(['check', id]);
    expect(check.code, check.stdout()).toBe(0);
    expect(check.stdout()).toContain('everything Vigia needs is in place');
    sim.control.adminApisForbidden({ on: true });
    const bad = await run(['check', id, '--lang', 'pt-BR']);
    sim.control.adminApisForbidden({ on: false });
    expect(bad.code).toBe(1);
    expect(bad.stdout()).toMatch(/MISSING admin\.fabric: .*answered 403/);
    expect(bad.stdout()).toContain('grupo de segurança');

    const now = await run(['run-now', id, 'capacity']);
    expect(now.code, now.stderr()).toBe(0);
    expect(now.stdout()).toMatch(new RegExp(`capacity of ${id} is due now`));
    const refused = await run(['run-now', id, 'costs']);
    expect(refused.code).toBe(1);
    expect(refused.stderr()).toMatch(/answered 409/);

    const remove = await run(['remove', id]);
    expect(remove.code).toBe(0);
    expect((await run(['list'])).stdout()).toContain('no tenant connections');
  }, 180_000);

  it('check against a tenant whose certificate is not trusted says so, with the certificate fix, not the Entra one', async () => {
    const own = ensureLocalCert(path.join(dir, 'untrusted'), path.join(dir, 'untrusted-ca'));
    const untrusted = await startTenantSimulator({ tls: { cert: own.cert, key: own.key }, strict: true, seed: 48, sizes: { capacities: 1, workspaces: 1 } });
    try {
      const add = await run(
        ['add', '--name', 'Untrusted', '--tenant-id', untrusted.tenantId, '--client-id', untrusted.clientId, '--mode', 'admin', '--endpoint', untrusted.origin, '--client-secret-stdin'],
        `${untrusted.clientSecret}\n`,
      );
      expect(add.code, add.stderr()).toBe(0);
      const id = /connected Untrusted: (tnt_\S+)/.exec(add.stdout())![1]!;
      const check = await run(['check', id]);
      expect(check.code).toBe(1);
      expect(check.stdout()).toMatch(/FAILED  token\.powerbi: Token for Power BI \(connection failed: the server's TLS certificate is not signed by a trusted certificate authority \(\w+\)\)/);
      expect(check.stdout()).toContain('NODE_EXTRA_CA_CERTS');
      expect(check.stdout()).not.toContain('MISSING');
      expect(check.stdout()).not.toContain('create a new client secret');
      await run(['remove', id]);
    } finally {
      await untrusted.stop();
    }
  }, 120_000);

  it('add from a JSON file with the secret in a file; the secret is never taken from argv', async () => {
    const file = path.join(dir, 'tenant.json');
    writeFileSync(file, JSON.stringify({ name: 'From file', tenantId: sim.tenantId, clientId: sim.clientId, mode: 'member', endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin } }));
    const secretFile = path.join(dir, 'secret');
    writeFileSync(secretFile, `${sim.clientSecret}\n`, { mode: 0o600 });
    const add = await run(['add', '--file', file, '--client-secret-file', secretFile]);
    expect(add.code, add.stderr()).toBe(0);
    expect(add.stdout()).toMatch(/connected From file: tnt_\S+ \(member mode, secret stored sealed/);

    const noSecret = await run(['add', '--file', file]);
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr()).toContain('missing: --client-secret-stdin, --client-secret-file');
    const argvSecret = await run(['add', '--file', file, '--client-secret', 'x']);
    expect(argvSecret.code).not.toBe(0);
    expect(argvSecret.stderr()).toMatch(/unknown option '--client-secret'/);
  }, 120_000);
});

/**
 * `vigia tenants …` as a newcomer runs it: a real `vigia serve` child, the tenant simulator,
 * and each subcommand (add with the secret on stdin or in a file, list, show, check, run-now,
 * remove) as a child process talking to the admin API. The secret never appears in any output.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureLocalCert } from '../../src/receiver/local-ca.js';
import { startTenantSimulator } from '../../src/tenant-sim/index.js';
import { ENGINE } from '../helpers/db.js';
import { useTenantsCli } from './tenants-harness.js';

describe(`vigia tenants (${ENGINE})`, () => {
  const cli = useTenantsCli('vigia-tenants-cli-', { seed: 47, sizes: { capacities: 2, workspaces: 3, gateways: 2 } });
  const run = cli.run;

  it('add (secret on stdin), list, show, check, run-now and remove', async () => {
    const add = await run(
      ['add', '--name', 'Simulated', '--tenant-id', cli.sim.tenantId, '--client-id', cli.sim.clientId, '--mode', 'admin', '--endpoint', cli.sim.origin,
        '--collector', 'costs=off', '--collector', 'gateway=600', '--client-secret-stdin'],
      `${cli.sim.clientSecret}\n`,
    );
    expect(add.code, add.stderr()).toBe(0);
    const id = /connected Simulated: (tnt_\S+)/.exec(add.stdout())![1]!;
    expect(add.stdout()).toContain('gateway every 600 s');
    expect(add.stdout()).not.toContain('costs every');
    // The save asked the token endpoint at once: its verdict is printed.
    expect(add.stdout()).toMatch(/^ok      token\.powerbi: Token for Power BI$/m);
    expect(add.stdout()).toContain('the token endpoint accepted the credentials');

    const list = await run(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout()).toMatch(new RegExp(`${id}\\s+Simulated\\s+admin\\s+tenant ${cli.sim.tenantId}`));

    const show = await run(['show', id]);
    expect(show.code).toBe(0);
    expect(show.stdout()).toContain(`endpoints: authorityHost=${cli.sim.origin}`);
    expect(show.stdout()).toMatch(/gateway\s+every 600 s/);
    expect(show.stdout()).toMatch(/costs\s+off/);
    const json = await run(['show', id, '--json']);
    expect(JSON.parse(json.stdout())).toMatchObject({ id, name: 'Simulated', credentialsSet: true });

    const check = await run(['check', id]);
    expect(check.code, check.stdout()).toBe(0);
    expect(check.stdout()).toContain('everything Vigia needs is in place');
    cli.sim.control.adminApisForbidden({ on: true });
    const bad = await run(['check', id, '--lang', 'pt-BR']);
    cli.sim.control.adminApisForbidden({ on: false });
    expect(bad.code).toBe(1);
    // Portuguese to the last word: labels, details, fixes and the last line.
    expect(bad.stdout()).toMatch(/^FALTA   admin\.fabric: APIs de administração do Fabric \(somente leitura\) \(GET \S+ respondeu 403/m);
    expect(bad.stdout()).toContain('grupo de segurança');
    expect(bad.stdout()).toMatch(/^correção \(admin\.fabric, admin\.activity, admin\.powerbi\): /m);
    expect(bad.stdout()).toMatch(/falta algo: aplique as correções acima e verifique de novo\n$/);
    expect(bad.stdout()).not.toMatch(/\b(MISSING|fix|answered|everything|something|windows)\b/);
    const good = await run(['check', id, '--lang', 'pt-BR']);
    expect(good.stdout()).toContain('tudo de que o Vigia precisa está no lugar');
    expect(good.stdout()).not.toMatch(/\b(everything|windows|place)\b/);

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
    const own = ensureLocalCert(path.join(cli.dir, 'untrusted'), path.join(cli.dir, 'untrusted-ca'));
    const untrusted = await startTenantSimulator({ tls: { cert: own.cert, key: own.key }, strict: true, seed: 48, sizes: { capacities: 1, workspaces: 1 } });
    try {
      const add = await run(
        ['add', '--name', 'Untrusted', '--tenant-id', untrusted.tenantId, '--client-id', untrusted.clientId, '--mode', 'admin', '--endpoint', untrusted.origin, '--client-secret-stdin'],
        `${untrusted.clientSecret}\n`,
      );
      // Saved, but the save's verdict already names the certificate (and the command exits 1).
      expect(add.code, add.stderr()).toBe(1);
      expect(add.stdout()).toMatch(/^FAILED  token\.powerbi: Token for Power BI \(connection failed: the server's TLS certificate is not signed/m);
      expect(add.stdout()).toContain('the connection is saved anyway');
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
    const file = path.join(cli.dir, 'tenant.json');
    writeFileSync(file, JSON.stringify({ name: 'From file', tenantId: cli.sim.tenantId, clientId: cli.sim.clientId, mode: 'member', endpoints: { authorityHost: cli.sim.origin, powerBi: cli.sim.origin, fabric: cli.sim.origin, arm: cli.sim.origin } }));
    const secretFile = path.join(cli.dir, 'secret');
    writeFileSync(secretFile, `${cli.sim.clientSecret}\n`, { mode: 0o600 });
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

  it('connect with a wrong secret: saved, and the token endpoint verdict printed in Portuguese (exit 1); set-credentials replaces it through PATCH and answers with the check', async () => {
    const add = await run(
      ['connect', '--name', 'Rotated', '--tenant-id', cli.sim.tenantId, '--client-id', cli.sim.clientId, '--mode', 'admin', '--endpoint', cli.sim.origin, '--client-secret-stdin', '--lang', 'pt-BR'],
      'not-the-secret\n',
    );
    expect(add.code, add.stderr()).toBe(1);
    const id = /Rotated conectado: (tnt_\S+) \(modo admin, segredo guardado selado/.exec(add.stdout())![1]!;
    expect(add.stdout()).toMatch(/^FALTA   token\.powerbi: Token para Power BI \(o endpoint de token recusou as credenciais: o segredo do cliente está errado \(AADSTS7000215\)\)$/m);
    expect(add.stdout()).toMatch(/^correção \(token\.powerbi\): O segredo do cliente está errado/m);
    expect(add.stdout()).toContain('a conexão foi salva mesmo assim');
    expect((await run(['list'])).stdout()).toContain(`${id}  Rotated`);
    const wrong = await run(['set-credentials', id, '--client-secret-stdin'], 'still-not-the-secret\n');
    expect(wrong.code).toBe(1);
    expect(wrong.stdout()).toContain(`saved new credentials of Rotated (${id}, secret`);
    expect(wrong.stdout()).toMatch(/token\.powerbi: .*the client secret is wrong \(AADSTS7000215\)/);
    expect(wrong.stdout()).toContain('the new credentials are saved anyway');
    // The refused secret fails every token and probe: its fix is printed once, naming them.
    expect(wrong.stdout().match(/^fix \(/gm)).toHaveLength(1);
    expect(wrong.stdout()).toMatch(/^fix \(token\.powerbi, token\.fabric, token\.arm, admin\.fabric, admin\.activity, admin\.powerbi\): The client secret is wrong/m);
    const right = await run(['set-credentials', id, '--client-secret-stdin'], `${cli.sim.clientSecret}\n`);
    expect(right.code, right.stdout()).toBe(0);
    expect(right.stdout()).toContain('everything Vigia needs is in place');
    expect(right.stdout() + right.stderr()).not.toContain(cli.sim.clientSecret);
    const none = await run(['set-credentials', id]);
    expect(none.code).toBe(1);
    expect(none.stderr()).toContain('give the new credential');
    await run(['remove', id]);
  }, 120_000);
});

/**
 * `vigia tenants utilization-setup` as a newcomer runs it: a real `vigia serve` child, the strict
 * tenant simulator, the command as a child process. It creates the Eventhouse, database, table
 * and Eventstream and says what it made; run again it makes nothing; in a workspace where the
 * principal is only a Viewer it exits 1 naming the permission, in English or Portuguese.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createPgTestDatabaseUrl, ENGINE } from '../helpers/db.js';
import { startSim } from '../tenant-sim/helpers.js';
import { serve, stopAll, vigia, type Child } from './processes.js';

describe(`vigia tenants utilization-setup (${ENGINE})`, () => {
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
    dir = mkdtempSync(path.join(tmpdir(), 'vigia-tenants-util-'));
    sim = await startSim({ seed: 49, sizes: { capacities: 2, workspaces: 3, gateways: 0 } });
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

  it('creates the items and reads them; a second run makes nothing; a Viewer is refused naming the permission', async () => {
    const add = await run(
      ['add', '--name', 'Simulated', '--tenant-id', sim.tenantId, '--client-id', sim.clientId, '--mode', 'admin', '--endpoint', sim.origin, '--client-secret-stdin'],
      `${sim.clientSecret}\n`,
    );
    expect(add.code, add.stderr()).toBe(0);
    const id = /connected Simulated: (tnt_\S+)/.exec(add.stdout())![1]!;
    const [ws, viewerWs] = sim.state.workspaces.filter((w) => w.member);

    const first = await run(['utilization-setup', id, '--workspace', ws!.id]);
    expect(first.code, first.stderr()).toBe(0);
    expect(first.stdout()).toContain('created Eventhouse, KQLDatabase, Table, Eventstream');
    expect(first.stdout()).toContain('of 2 capacities to VigiaCapacity.CapacityEvents');
    expect(first.stdout()).toContain(`the utilization collector reads ${sim.origin} (database VigiaCapacity, table CapacityEvents)`);
    const shown = await run(['show', id, '--json']);
    expect(JSON.parse(shown.stdout()).utilization.eventhouse).toEqual({ queryUri: sim.origin, database: 'VigiaCapacity', table: 'CapacityEvents' });

    const second = await run(['utilization-setup', id, '--workspace', ws!.id]);
    expect(second.code, second.stderr()).toBe(0);
    expect(second.stdout()).toContain('everything was already in place; nothing created');

    sim.control.workspaceRole({ workspaceId: viewerWs!.id, role: 'Viewer' });
    const refused = await run(['utilization-setup', id, '--workspace', viewerWs!.id, '--lang', 'pt-BR']);
    expect(refused.code).toBe(1);
    expect(refused.stdout()).toMatch(/refused: the service principal lacks WorkspaceContributor \(.*403/);
    expect(refused.stdout()).toContain(`função Colaborador (ou Membro/Administrador) no workspace ${viewerWs!.id}`);

    const bad = await run(['utilization-setup', id, '--workspace', 'nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr()).toContain('workspaceId must be a GUID');
    expect(sim.violations).toEqual([]);
  }, 180_000);
});

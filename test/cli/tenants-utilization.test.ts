/**
 * `vigia tenants utilization-setup` as a newcomer runs it: a real `vigia serve` child, the strict
 * tenant simulator, the command as a child process. It creates the Eventhouse, database, table
 * and Eventstream and says what it made; run again it makes nothing; in a workspace where the
 * principal is only a Viewer it exits 1 naming the permission, in English or Portuguese.
 */
import { describe, expect, it } from 'vitest';
import { ENGINE } from '../helpers/db.js';
import { useTenantsCli } from './tenants-harness.js';

describe(`vigia tenants utilization-setup (${ENGINE})`, () => {
  const cli = useTenantsCli('vigia-tenants-util-', { seed: 49, sizes: { capacities: 2, workspaces: 3, gateways: 0 } });
  const run = cli.run;

  it('creates the items and reads them; a second run makes nothing; a Viewer is refused naming the permission', async () => {
    const add = await run(
      ['add', '--name', 'Simulated', '--tenant-id', cli.sim.tenantId, '--client-id', cli.sim.clientId, '--mode', 'admin', '--endpoint', cli.sim.origin, '--client-secret-stdin'],
      `${cli.sim.clientSecret}\n`,
    );
    expect(add.code, add.stderr()).toBe(0);
    const id = /connected Simulated: (tnt_\S+)/.exec(add.stdout())![1]!;
    const [ws, viewerWs] = cli.sim.state.workspaces.filter((w) => w.member);

    const first = await run(['utilization-setup', id, '--workspace', ws!.id]);
    expect(first.code, first.stderr()).toBe(0);
    expect(first.stdout()).toContain('created Eventhouse, KQLDatabase, Table, Eventstream');
    expect(first.stdout()).toContain('of 2 capacities to VigiaCapacity.CapacityEvents');
    expect(first.stdout()).toContain(`the utilization collector reads ${cli.sim.origin} (database VigiaCapacity, table CapacityEvents)`);
    const shown = await run(['show', id, '--json']);
    expect(JSON.parse(shown.stdout()).utilization.eventhouse).toEqual({ queryUri: cli.sim.origin, database: 'VigiaCapacity', table: 'CapacityEvents' });

    const second = await run(['utilization-setup', id, '--workspace', ws!.id]);
    expect(second.code, second.stderr()).toBe(0);
    expect(second.stdout()).toContain('everything was already in place; nothing created');

    cli.sim.control.workspaceRole({ workspaceId: viewerWs!.id, role: 'Viewer' });
    const refused = await run(['utilization-setup', id, '--workspace', viewerWs!.id, '--lang', 'pt-BR']);
    expect(refused.code).toBe(1);
    expect(refused.stdout()).toMatch(/refused: the service principal lacks WorkspaceContributor \(.*403/);
    expect(refused.stdout()).toContain(`função Colaborador (ou Membro/Administrador) no workspace ${viewerWs!.id}`);

    const bad = await run(['utilization-setup', id, '--workspace', 'nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr()).toContain('workspaceId must be a GUID');
    expect(cli.sim.violations).toEqual([]);
  }, 180_000);
});

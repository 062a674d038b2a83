/**
 * What the `vigia tenants …` tests share: a real `vigia serve` child on its own data directory
 * (and database on PostgreSQL), the tenant simulator, one organization, and `run` — a
 * `vigia tenants` child process against them whose output never holds the tenant's secret.
 * Registers its beforeAll/afterAll in the calling describe block.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createPgTestDatabaseUrl, ENGINE } from '../helpers/db.js';
import { startSim } from '../tenant-sim/helpers.js';
import { serve, stopAll, vigia, type Child } from './processes.js';

export interface TenantsCli {
  env: Record<string, string>;
  dir: string;
  sim: TenantSim;
  base: string;
  token: string;
  orgId: string;
  /** A `vigia tenants` subcommand in the organization, `stdin` written to it; resolves when it exits. */
  run(args: string[], stdin?: string): Promise<Child & { code: number | null }>;
}

export function useTenantsCli(dirPrefix: string, simOptions: Parameters<typeof startSim>[0]): TenantsCli {
  let cleanup: () => Promise<void> = async () => undefined;
  /** --url/--token on PostgreSQL; on PGlite the server and its token are found in the data directory. */
  let targetArgs: string[] = [];
  const cli = {
    async run(args: string[], stdin?: string) {
      const c = vigia(['tenants', ...args, '--org', cli.orgId, ...targetArgs], cli.env);
      if (stdin !== undefined) c.child.stdin!.end(stdin);
      const code = await c.exited;
      expect(c.stdout() + c.stderr()).not.toContain(cli.sim.clientSecret);
      return { ...c, code };
    },
  } as TenantsCli;

  beforeAll(async () => {
    cli.dir = mkdtempSync(path.join(tmpdir(), dirPrefix));
    cli.sim = await startSim(simOptions);
    cli.env = { VIGIA_DATA_DIR: path.join(cli.dir, 'data'), VIGIA_DESTINATION_ALLOWLIST: '127.0.0.1' };
    if (ENGINE === 'pg') {
      const db = await createPgTestDatabaseUrl();
      Object.assign(cli.env, { DATABASE_URL: db.url, VIGIA_SECRET_KEY: randomBytes(32).toString('base64'), VIGIA_ADMIN_TOKEN: `vat_${randomBytes(20).toString('hex')}` });
      cleanup = db.drop;
    }
    const server = await serve(cli.env);
    cli.base = server.base;
    cli.token = cli.env.VIGIA_ADMIN_TOKEN ?? (await server.waitFor(/Admin token \(shown once, store it now\): (vat_\S+)/))[1]!;
    targetArgs = ENGINE === 'pg' ? ['--url', cli.base, '--token', cli.token] : [];
    const org = await fetch(`${cli.base}/api/admin/v1/orgs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cli.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'CLI' }),
    });
    cli.orgId = ((await org.json()) as { id: string }).id;
  }, 120_000);
  afterAll(async () => {
    stopAll();
    await cli.sim?.stop();
    await cleanup();
    if (cli.dir) rmSync(cli.dir, { recursive: true, force: true });
  });
  return cli;
}

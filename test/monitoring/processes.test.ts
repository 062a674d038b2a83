/**
 * The collector engine in real `vigia serve` processes: with PostgreSQL two processes share one
 * database and one process is killed (-9) while collecting; with the embedded engine one process
 * is killed and started again on its data directory. Either way a capacity that is suspended,
 * resumed and suspended again gives exactly two incidents, each counted once: the leases kept
 * the processes from running the collector twice, and the killed process lost nothing.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { createPgTestDatabaseUrl, ENGINE } from '../helpers/db.js';
import { serve, stopAll } from '../cli/processes.js';
import { startSim } from '../tenant-sim/helpers.js';

const TOKEN = 'vat_monitoring_processes_0123456789abcdefghijkl';

async function waitUntil<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe(`collector engine in real processes (${ENGINE})`, () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let sim: TenantSim;
  beforeAll(async () => {
    sim = await startSim({ seed: 71, sizes: { capacities: 2, workspaces: 2, gateways: 1 } });
    for (const c of sim.state.capacities) sim.control.capacityState({ capacityId: c.id, state: 'Active' });
    const common = { VIGIA_DESTINATION_ALLOWLIST: '127.0.0.1', VIGIA_ADMIN_TOKEN: TOKEN };
    if (ENGINE === 'pg') {
      const db = await createPgTestDatabaseUrl();
      env = { ...common, DATABASE_URL: db.url, VIGIA_SECRET_KEY: randomBytes(32).toString('base64') };
      cleanup = db.drop;
    } else {
      const dir = mkdtempSync(path.join(tmpdir(), 'vigia-monitor-'));
      env = { ...common, VIGIA_DATA_DIR: dir };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    stopAll();
    await sim.stop();
    await cleanup();
  });

  it('kill -9 while collecting: the transitions are signalled once each, by whoever holds the lease', async () => {
    const first = await serve(env);
    const second = ENGINE === 'pg' ? await serve(env) : null;
    const api = async (base: string, method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}/api/admin/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, json: (await res.json()) as any };
    };
    const org = (await api(first.base, 'POST', '/orgs', { name: 'Processes' })).json;
    const created = await api(first.base, 'POST', `/orgs/${org.id}/tenants`, {
      name: 'Simulated',
      tenantId: sim.tenantId,
      clientId: sim.clientId,
      credentials: { clientSecret: sim.clientSecret },
      mode: 'admin',
      endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
      collectors: { capacity: { intervalSeconds: 5 }, inventory: { enabled: false }, gateway: { enabled: false }, costs: { enabled: false } },
    });
    expect(created.status).toBe(201);
    const target = sim.state.capacities[0]!;
    const capacityAlerts = async (base: string) =>
      (await api(base, 'GET', `/orgs/${org.id}/alerts?sourceType=Capacity`)).json.value as { sourceId: string; status: string; failureCount: number }[];

    await waitUntil('a first capacity run', async () => sim.countCalls({ path: '/v1/capacities' }) >= 1);
    sim.control.capacityState({ capacityId: target.id, state: 'Suspended' });
    await waitUntil('the Capacity incident', async () => (await capacityAlerts(first.base)).length === 1);

    // Kill the first process in the middle of its work (its lease, if any, expires by itself).
    first.child.kill('SIGKILL');
    await first.exited;
    const restarted = second ? null : await serve(env);
    const survivor = second ?? restarted!;
    sim.control.capacityState({ capacityId: target.id, state: 'Active' });
    await waitUntil('the recovery', async () => (await capacityAlerts(survivor.base))[0]?.status === 'resolved');
    sim.control.capacityState({ capacityId: target.id, state: 'Suspended' });
    await waitUntil('the second incident', async () => (await capacityAlerts(survivor.base)).length === 2);
    // Two more runs: nothing is signalled again while the state holds.
    const calls = sim.countCalls({ path: '/v1/capacities' });
    await waitUntil('two more runs', async () => sim.countCalls({ path: '/v1/capacities' }) >= calls + 2);
    const all = await capacityAlerts(survivor.base);
    expect(all.map((a) => [a.sourceId, a.failureCount]).sort()).toEqual([
      [target.id.toLowerCase(), 1],
      [target.id.toLowerCase(), 1],
    ]);
    expect(all.map((a) => a.status).sort()).toEqual(['open', 'resolved']);
    const view = (await api(survivor.base, 'GET', `/orgs/${org.id}/tenants/${created.json.id}`)).json;
    expect(view.collectors.find((c: { name: string }) => c.name === 'capacity').lastError).toBeNull();
    expect(sim.violations).toEqual([]);
    const output = [first, second, restarted].map((c) => (c ? c.stdout() + c.stderr() : '')).join('');
    expect(output).not.toContain(sim.clientSecret);
  }, 180_000);
});

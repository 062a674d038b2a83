/**
 * One process per embedded data directory, and what a newcomer does in the first minutes:
 * `npm start` in one shell, `npm run demo` in another. Real child processes on real ports, on the
 * engine under test (with PostgreSQL, several processes on one database are allowed).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgTestDatabaseUrl, ENGINE } from '../helpers/db.js';
import { signal } from '../helpers/fixtures.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';
import { serve, slowSupervisor, stopAll, vigia } from './processes.js';

describe(`data directory and demo (${ENGINE})`, () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let receiver: TestReceiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.fallback = { status: 200 };
    const common = { VIGIA_DESTINATION_ALLOWLIST: '127.0.0.1' };
    if (ENGINE === 'pg') {
      const db = await createPgTestDatabaseUrl();
      env = { ...common, DATABASE_URL: db.url, VIGIA_SECRET_KEY: randomBytes(32).toString('base64') };
      cleanup = db.drop;
    } else {
      const dir = mkdtempSync(path.join(tmpdir(), 'vigia-datadir-'));
      env = { ...common, VIGIA_DATA_DIR: dir };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    stopAll();
    await receiver.close();
    await cleanup();
  });

  let adminToken: string;

  it('server and demo at once: the key the demo prints works on the running server', async () => {
    const server = await serve(env);
    adminToken = (await server.waitFor(/Admin token \(shown once, store it now\): (vat_\S+)/))[1]!;
    const demo = vigia(['demo', '--no-live'], env); // the live story: test/cli/readme-tour.test.ts
    const code = await demo.exited;
    expect(demo.stderr()).toBe('');
    expect(code).toBe(0);
    expect(demo.stdout()).not.toContain(adminToken); // the demo never prints the admin token
    const key = /API key \(all scopes, shown once; for .*?\): (vgk_\S+)/.exec(demo.stdout())![1]!;
    // The curl lines point at the running server, whatever PORT the demo's shell has.
    if (ENGINE === 'pglite') expect(demo.stdout()).toContain(`curl -H "X-Api-Key: ${key}" "${server.base}/api/public/v1/alerts"`);
    const alerts = await fetch(`${server.base}/api/public/v1/alerts?status=open`, { headers: { 'x-api-key': key } });
    expect(alerts.status).toBe(200);
    expect(((await alerts.json()) as { value: unknown[] }).value.length).toBeGreaterThan(0);
    const orgs = await fetch(`${server.base}/api/admin/v1/orgs`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(((await orgs.json()) as { name: string }[]).map((o) => o.name)).toContain('Demo — Contoso Analytics');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 180_000);

  if (ENGINE === 'pglite') {
    it('a second serve on the same directory exits at once, naming the holder pid and what to do', async () => {
      const first = await serve(env);
      const second = vigia(['serve'], { ...env, PORT: '0' });
      expect(await second.exited).not.toBe(0);
      expect(second.stderr()).toContain(`pid ${first.child.pid}`);
      expect(second.stderr()).toMatch(/stop that process first|VIGIA_DATA_DIR/);
      // The first one still serves.
      expect((await fetch(`${first.base}/readyz`)).status).toBe(200);
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
    }, 120_000);

    it('kill -9 of the process group and an immediate restart, five times: each restart takes the directory', async () => {
      for (let run = 0; run < 5; run++) {
        const flag = path.join(env.VIGIA_DATA_DIR!, `reaped-${run}`);
        const supervisor = slowSupervisor(env, flag);
        await supervisor.waitFor(/"msg":"vigia listening"/);
        // As a supervisor does: the whole group at once, and start again without waiting. This
        // one is busy and reaps the killed server late, so it lingers as a zombie meanwhile.
        supervisor.child.stdin!.write('kill\n');
        await supervisor.waitFor(/^killed$/m);
        const again = vigia(['serve'], { ...env, PORT: '0' });
        const started = await again.waitFor(/"msg":"vigia listening"/).then(
          () => true,
          () => false,
        );
        writeFileSync(flag, '');
        expect(started, `run ${run + 1}: ${again.stderr()}`).toBe(true);
        again.child.kill('SIGTERM');
        expect(await again.exited).toBe(0);
        await supervisor.exited;
      }
    }, 600_000);
  } else {
    it('with PostgreSQL a second serve on the same database runs alongside the first', async () => {
      const first = await serve(env);
      const second = await serve(env);
      expect((await fetch(`${second.base}/readyz`)).status).toBe(200);
      expect((await fetch(`${first.base}/readyz`)).status).toBe(200);
      first.child.kill('SIGTERM');
      second.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect(await second.exited).toBe(0);
    }, 120_000);
  }

  it('kill -9 in the middle of a signal burst: after a restart every acknowledged signal and its deliveries are there', async () => {
    const server = await serve(env);
    const admin = async (base: string, method: string, url: string, body?: unknown) =>
      fetch(`${base}/api/admin/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const org = (await (await admin(server.base, 'POST', '/orgs', { name: 'burst' })).json()) as { id: string };
    const dest = await admin(server.base, 'POST', `/orgs/${org.id}/destinations`, { name: 'hook', kind: 'webhook', url: `${receiver.origin}/hook` });
    expect(dest.status).toBe(201);
    const destinationId = ((await dest.json()) as { id: string }).id;

    // Four writers send one new incident per request until the process dies under them.
    const acknowledged: string[] = [];
    let n = 0;
    let killed = false;
    const writer = async () => {
      while (!killed) {
        const res = await admin(server.base, 'POST', `/orgs/${org.id}/signals`, signal({ sourceId: `burst-${n++}` })).catch(() => null);
        if (!res) return; // connection refused or reset: the server is gone
        if (res.status >= 200 && res.status < 300) acknowledged.push(((await res.json()) as { alertId: string }).alertId);
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    await waitFor(() => acknowledged.length >= 30, { what: '30 acknowledged signals', timeoutMs: 60_000 });
    server.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    await server.exited;

    const again = await serve(env);
    expect((await fetch(`${again.base}/readyz`)).status).toBe(200);
    for (const alertId of acknowledged) {
      const res = await admin(again.base, 'GET', `/orgs/${org.id}/alerts/${alertId}`);
      expect(res.status).toBe(200);
    }
    const deliveries = (await (await admin(again.base, 'GET', `/orgs/${org.id}/destinations/${destinationId}/deliveries?pageSize=500`)).json()) as {
      value: { alertId: string; event: string }[];
    };
    const delivered = new Set(deliveries.value.filter((d) => d.event === 'alert.opened').map((d) => d.alertId));
    for (const alertId of acknowledged) expect(delivered.has(alertId)).toBe(true);
    // The restarted server keeps taking signals.
    const after = await admin(again.base, 'POST', `/orgs/${org.id}/signals`, signal({ sourceId: 'after-restart' }));
    expect(after.status).toBe(200);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 240_000);
});

/**
 * The local tools share one local certificate authority: `vigia listen` and `vigia tenant-sim`
 * serve certificates it signed, so a process started with ONE `NODE_EXTRA_CA_CERTS` (the file
 * `listen --cert-only` prints) reaches both. The files are written owner-only, so the next start
 * does not warn that the data directory "was readable by others".
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tightenTree } from '../../src/db/data-dir.js';
import { ENGINE } from '../helpers/db.js';
import { serve, stopAll, vigia } from './processes.js';

describe(`one local certificate authority (${ENGINE})`, () => {
  let work: string;
  let dataDir: string;
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'vigia-local-ca-'));
    dataDir = path.join(work, 'data');
  });
  afterAll(() => {
    stopAll();
    rmSync(work, { recursive: true, force: true });
  });

  it('listen --cert-only prints the one file to trust; with it alone a process reaches the receiver and the tenant simulator', async () => {
    const made = vigia(['listen', '--cert-only'], { VIGIA_DATA_DIR: dataDir });
    expect(await made.exited).toBe(0);
    const caFile = made.stdout().trim();
    expect(caFile).toBe(path.join(dataDir, 'local-ca', 'ca.pem'));

    const sim = vigia(['tenant-sim', '--port', '0', '--gateways', '1', '--workspaces', '1'], { VIGIA_DATA_DIR: dataDir });
    const origin = (await sim.waitFor(/on (https:\/\/localhost:\d+)/))[1]!;
    await sim.waitFor(/control, for example/);
    expect(sim.stdout()).toContain(`NODE_EXTRA_CA_CERTS=${caFile}`);
    expect(statSync(path.join(dataDir, 'tenant-sim', 'cert.pem')).isFile()).toBe(true);

    const listener = vigia(['listen', '--secret', 'whsec_local_ca_test_secret_0123456789', '--port', '0'], { VIGIA_DATA_DIR: dataDir });
    const receiver = (await listener.waitFor(/listening on (https:\/\/localhost:\d+\/)/))[1]!;
    expect(listener.stdout()).toContain(`NODE_EXTRA_CA_CERTS=${caFile}`);

    // A process that trusts only that file (not the test CA): both answer over verified TLS.
    const probe = `
      const sim = await fetch(process.argv[1] + '/_sim/state');
      const rx = await fetch(process.argv[2]);
      console.log(JSON.stringify([sim.status, rx.status]));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', probe, origin, receiver], {
      env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: caFile },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([200, 405]); // the receiver accepts POST only: TLS got through

    // Without it, the same process is refused by both: the file is what makes them trusted.
    const untrusted = spawnSync(process.execPath, ['--input-type=module', '-e', probe, origin, receiver], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 30_000 });
    expect(untrusted.status).not.toBe(0);
    listener.child.kill('SIGTERM');
    sim.child.kill('SIGTERM');
  });

  it('the certificates and keys are owner-only, and the next start does not warn about the data directory', async () => {
    for (const file of ['local-ca/ca.pem', 'local-ca/ca-key.pem', 'listen/cert.pem', 'listen/key.pem', 'tenant-sim/cert.pem', 'tenant-sim/key.pem']) {
      expect((statSync(path.join(dataDir, file)).mode & 0o777).toString(8), file).toBe('600');
    }
    for (const dir of ['', 'local-ca', 'listen', 'tenant-sim']) expect((statSync(path.join(dataDir, dir)).mode & 0o777).toString(8), dir).toBe('700');
    // The start-up check that warned finds nothing to tighten.
    expect(tightenTree(dataDir)).toBe(0);
    if (ENGINE !== 'pglite') return;
    const server = await serve({ VIGIA_DATA_DIR: dataDir });
    expect(server.stdout() + server.stderr()).not.toContain('readable by others');
    server.child.kill('SIGTERM');
    await server.exited;
  });
});

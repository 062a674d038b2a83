// @engine-neutral: the tenant simulator alone, no database
/**
 * `vigia tenant-sim` starts the simulator, prints what a client needs to connect, and answers a
 * client that uses the printed credentials; its control API changes state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfidentialClientApplication } from '@azure/msal-node';
import { afterAll, describe, expect, it } from 'vitest';
import { certFiles } from '../fakes/fake-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('vigia tenant-sim', () => {
  let child: ChildProcess | null = null;
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('prints origin, tenant, client id and secret; a client connects with them', async () => {
    const files = certFiles();
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'tenant-sim', '--port', '0', '--gateways', '2', '--workspaces', '3', '--cert', files.cert, '--key', files.key], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const banner = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner in 30 s: ${out} ${err}`)), 30_000);
      child!.stdout!.on('data', (d) => {
        out += d;
        if (out.includes('control, for example')) {
          clearTimeout(timer);
          resolve(out);
        }
      });
      child!.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    const field = (name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(banner)?.[1] ?? '';
    const origin = /on (https:\/\/\S+)/.exec(banner)![1]!;
    expect(origin).toMatch(/^https:\/\/localhost:\d+$/);
    expect(banner).toMatch(/2 gateways/);
    const app = new ConfidentialClientApplication({
      auth: { clientId: field('clientId'), authority: `${origin}/${field('tenantId')}`, clientSecret: field('clientSecret'), knownAuthorities: [new URL(origin).host] },
    });
    const token = (await app.acquireTokenByClientCredential({ scopes: ['https://api.fabric.microsoft.com/.default'] }))!.accessToken;
    const gateways = await (await fetch(`${origin}/v1/gateways`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(gateways.value).toHaveLength(2);
    const id = gateways.value[0].id;
    const off = await fetch(`${origin}/_sim/gatewayOffline`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ gatewayId: id }) });
    expect(off.status).toBe(200);
    const status = await (await fetch(`${origin}/v1/gateways/${id}/checkStatus`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).json();
    expect(status.status).toBe('Offline');
  });
});

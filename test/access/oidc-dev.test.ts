/**
 * `npm run oidc-dev`: the local OpenID provider a newcomer starts to try the console's company
 * sign-in (docs/access.md). The command starts, prints the settings Vigia needs, and serves a
 * discovery document whose issuer and endpoints are its own, over https with the certificate it
 * names; Vigia's own OpenID client discovers it with that certificate trusted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emailOf } from '../../scripts/oidc-dev.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function getJson(url: string, ca: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    })
      .on('error', reject)
      .end();
  });
}

describe('npm run oidc-dev', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vigia-oidc-dev-'));
  let child: ChildProcess | undefined;

  afterAll(() => {
    child?.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts, prints what Vigia needs, and serves discovery over https', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'scripts/oidc-dev.ts'], {
      cwd: ROOT,
      env: { ...process.env, VIGIA_DATA_DIR: dataDir, OIDC_DEV_PORT: '0', VIGIA_BASE_URL: 'http://localhost:8123' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const issuer = await new Promise<string>((resolve, reject) => {
      child!.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /at (https:\/\/localhost:\d+)/.exec(out);
        if (m && out.includes('Ctrl-C')) resolve(m[1]!);
      });
      child!.on('exit', (code) => reject(new Error(`oidc-dev exited ${code}: ${out}`)));
    });
    const certFile = path.join(dataDir, 'local-ca', 'ca.pem');
    expect(out).toContain(`NODE_EXTRA_CA_CERTS=${certFile}`);
    expect(out).toContain(`VIGIA_OIDC_ISSUER=${issuer}`);
    expect(out).toContain('VIGIA_OIDC_CLIENT_ID=vigia-dev');
    expect(out).toContain('http://localhost:8123/api/admin/v1/session/oidc/callback');

    const discovery = await getJson(`${issuer}/.well-known/openid-configuration`, readFileSync(certFile, 'utf8'));
    expect(discovery.status).toBe(200);
    expect(discovery.body.issuer).toBe(issuer);
    expect(discovery.body.authorization_endpoint).toBe(`${issuer}/auth`);
    expect(discovery.body.code_challenge_methods_supported).toContain('S256');
  }, 60_000);

  it('names people by their login', () => {
    expect(emailOf('alice')).toBe('alice@example.test');
    expect(emailOf('bob@contoso.com')).toBe('bob@contoso.com');
  });
});

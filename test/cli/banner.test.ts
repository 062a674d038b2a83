/**
 * What `npm start` shows a person: on a terminal one readable banner (API, docs, console, where
 * the admin token went); off a terminal only JSON log lines. And `vigia --version`.
 * The terminal is a real pseudo-terminal made by util-linux `script`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createPgTestDatabaseUrl, ENGINE } from '../helpers/db.js';
import { baseEnv, root, serve, stopAll, vigia } from './processes.js';

describe(`banner and version (${ENGINE})`, () => {
  let env: Record<string, string>;
  let dir: string;
  let cleanup: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigia-banner-'));
    env = { VIGIA_DATA_DIR: dir };
    if (ENGINE === 'pg') {
      const db = await createPgTestDatabaseUrl();
      Object.assign(env, { DATABASE_URL: db.url, VIGIA_SECRET_KEY: randomBytes(32).toString('base64') });
      cleanup = db.drop;
    }
  });
  afterAll(async () => {
    stopAll();
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('on a terminal, serve prints one banner with the addresses and where the admin token went', async () => {
    const child = spawn('script', ['-qefc', `${process.execPath} --import tsx src/main.ts serve`, '/dev/null'], {
      cwd: root,
      env: baseEnv({ ...env, PORT: '0' }),
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((r) => child.on('exit', r));
    // A failed expectation must not leave the server holding the data directory for the next test.
    onTestFinished(() => {
      if (child.exitCode === null) {
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          // already gone
        }
      }
    });
    await new Promise<void>((resolve, reject) => {
      // The banner (stdout) and the JSON "listening" line (the logger's own stream) arrive in either
      // order: wait for both.
      const check = () => (/Stop with Ctrl\+C/.test(out) && /"address":"http:\/\/127\.0\.0\.1:\d+"/.test(out) ? resolve() : undefined);
      child.stdout.on('data', check);
      void exited.then(() => reject(new Error(`exited before the banner:\n${out}`)));
    });
    const port = /"address":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(out)![1];
    expect(out).toContain(`Public API   http://localhost:${port}/api/public/v1`);
    expect(out).toContain(`API docs     http://localhost:${port}/docs`);
    expect(out).toContain(`Console      http://localhost:${port}/`);
    const token = /Admin token \(shown once, store it now\): (vat_\S+)/.exec(out)![1]!;
    if (ENGINE === 'pglite') {
      expect(out).toContain(`Admin token  printed above, and saved to ${path.join(dir, 'admin-token')}`);
      expect(readFileSync(path.join(dir, 'admin-token'), 'utf8').trim()).toBe(token);
    } else {
      expect(out).toContain('Admin token  printed above (shown once)');
    }
    expect(out.match(/Stop with Ctrl\+C/g)).toHaveLength(1);
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }, 120_000);

  it('off a terminal, stdout carries JSON log lines and no banner', async () => {
    const s = await serve({ ...env, VIGIA_ADMIN_TOKEN: 'vat_banner_test_token_0123456789abcdefghij' });
    expect(s.stdout()).not.toContain('Stop with Ctrl+C');
    for (const line of s.stdout().split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  }, 120_000);

  it('vigia --version prints the package version', async () => {
    const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const v = vigia(['--version'], {});
    expect(await v.exited).toBe(0);
    expect(v.stdout().trim()).toBe(version);
  });
});

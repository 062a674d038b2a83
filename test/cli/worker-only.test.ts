/**
 * `vigia serve --worker-only` serves no HTTP, so its log is the only sign it started: it says in
 * one line what it is doing, and stops cleanly on SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgTestDatabaseUrl, ENGINE } from '../helpers/db.js';
import { stopAll, vigia } from './processes.js';

describe(`vigia serve --worker-only (${ENGINE})`, () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    if (ENGINE === 'pg') {
      const db = await createPgTestDatabaseUrl();
      env = { DATABASE_URL: db.url, VIGIA_SECRET_KEY: randomBytes(32).toString('base64') };
      cleanup = db.drop;
    } else {
      const dir = mkdtempSync(path.join(tmpdir(), 'vigia-worker-'));
      env = { VIGIA_DATA_DIR: dir };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    stopAll();
    await cleanup();
  });

  it('prints one line saying it runs the workers and serves no HTTP', async () => {
    const worker = vigia(['serve', '--worker-only'], { ...env, PORT: '0' });
    const [line] = await worker.waitFor(/^.*"msg":"vigia worker running[^\n]*$/m);
    expect(line).toMatch(/no HTTP served/);
    expect(worker.stdout()).not.toMatch(/vigia listening/);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 120_000);
});

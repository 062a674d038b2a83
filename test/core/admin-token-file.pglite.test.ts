/**
 * Embedded engine: VIGIA_DATA_DIR/admin-token follows the admin token in force, so the tour's
 * `cat data/admin-token` and `vigia demo` keep working after the token is replaced as
 * docs/operations.md says (set VIGIA_ADMIN_TOKEN, restart).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/service.js';
import { LogCapture } from '../helpers/context.js';

describe('the admin-token file follows the token in force', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vigia-admin-token-'));
  const file = path.join(dataDir, 'admin-token');
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Starts the server, answers the admin API's status for each token, stops. */
  async function start(env: Record<string, string>, tokens: string[]): Promise<{ statuses: number[]; logs: string }> {
    const logs = new LogCapture();
    const service = await startService(loadConfig({ VIGIA_DATA_DIR: dataDir, PORT: '0', ...env }), {
      worker: false,
      logger: createLogger('info', logs),
      onAdminToken: () => {},
    });
    try {
      const statuses: number[] = [];
      for (const token of tokens) {
        statuses.push((await fetch(`${service.address}/api/admin/v1/orgs`, { headers: { authorization: `Bearer ${token}` } })).status);
      }
      return { statuses, logs: logs.text };
    } finally {
      await service.stop();
    }
  }
  const saved = () => readFileSync(file, 'utf8').trim();

  it('generated, then replaced through VIGIA_ADMIN_TOKEN: the file holds the new token, which works', async () => {
    await start({}, []);
    const generated = saved();
    expect(generated).toMatch(/^vat_/);
    const replacement = `vat_${'r'.repeat(48)}`;
    const replaced = await start({ VIGIA_ADMIN_TOKEN: replacement }, [replacement, generated]);
    expect(replaced.statuses).toEqual([200, 401]);
    expect(saved()).toBe(replacement);
    // Later starts without the variable keep the stored token, and the file still matches it.
    const later = await start({}, [saved()]);
    expect(later.statuses).toEqual([200]);
    expect(saved()).toBe(replacement);
  });

  it('a file holding a token no longer in force is removed at start, with a warning', async () => {
    writeFileSync(file, `vat_${'s'.repeat(48)}\n`, { mode: 0o600 });
    const { logs } = await start({}, []);
    expect(existsSync(file)).toBe(false);
    expect(logs).toMatch(/removed VIGIA_DATA_DIR\/admin-token/);
  });
});

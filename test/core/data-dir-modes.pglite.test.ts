/**
 * The embedded data directory is the owner's alone, whatever the umask: the directory and every
 * directory under it 0700, every file 0600 (database, master key, admin token), and a directory
 * left readable by others is tightened at the next start with a log line. Embedded engine only:
 * with PostgreSQL nothing is written under VIGIA_DATA_DIR.
 */
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/service.js';
import { LogCapture } from '../helpers/context.js';

/** Every entry under dir with its permission bits, for the ones open to group or others. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (entry: string) => {
    const stat = lstatSync(entry);
    if ((stat.mode & 0o077) !== 0) found.push(`${(stat.mode & 0o777).toString(8)} ${entry}`);
    if (stat.isDirectory()) for (const name of readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dir);
  return found;
}

function countEntries(dir: string): number {
  let n = 1;
  if (lstatSync(dir).isDirectory()) for (const name of readdirSync(dir)) n += countEntries(path.join(dir, name));
  return n;
}

async function startAndStop(dataDir: string): Promise<LogCapture> {
  const logs = new LogCapture();
  const service = await startService(loadConfig({ VIGIA_DATA_DIR: dataDir, VIGIA_LOG_LEVEL: 'info' }), {
    http: false,
    worker: false,
    logger: createLogger('info', logs),
    onAdminToken: () => {},
  });
  await service.ctx.db.query('CREATE TABLE IF NOT EXISTS mode_probe (x int)');
  await service.ctx.db.query('INSERT INTO mode_probe VALUES (1)');
  await service.stop();
  return logs;
}

describe('embedded data directory modes', () => {
  const parent = mkdtempSync(path.join(tmpdir(), 'vigia-modes-'));
  const dataDir = path.join(parent, 'data');
  let umask: number;
  beforeAll(() => {
    // The most permissive umask: every mode below comes from Vigia, not from the shell.
    umask = process.umask(0);
  });
  afterAll(() => {
    process.umask(umask);
    rmSync(parent, { recursive: true, force: true });
  });

  it('a new data directory is created 0700 and every file in it 0600, with a umask of 0', async () => {
    await startAndStop(dataDir);
    expect(countEntries(dataDir)).toBeGreaterThan(100); // the database's files are there
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    expect(lstatSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(lstatSync(path.join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it('an existing directory open to others is tightened at start, and the start says so', async () => {
    const loosen = (entry: string) => {
      chmodSync(entry, lstatSync(entry).isDirectory() ? 0o777 : 0o666);
      if (lstatSync(entry).isDirectory()) for (const name of readdirSync(entry)) loosen(path.join(entry, name));
    };
    loosen(dataDir);
    const logs = await startAndStop(dataDir);
    expect(openToOthers(dataDir)).toEqual([]);
    const line = logs.lines.map((l) => JSON.parse(l) as { msg: string; entries?: number }).find((l) => /tightened to owner-only/.test(l.msg));
    expect(line?.entries).toBeGreaterThan(100);
    // The next start finds nothing to tighten and says nothing.
    const quiet = await startAndStop(dataDir);
    expect(quiet.text).not.toMatch(/tightened/);
  });
});

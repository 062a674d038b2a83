// @engine-neutral: no database is opened here
/** `npm test` names, in one line, what the selected tests need and is missing, with the install command. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { missingPrerequisites } from '../../scripts/test-prerequisites.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const emptyBin = mkdtempSync(path.join(os.tmpdir(), 'vigia-empty-path-'));
afterAll(() => rmSync(emptyBin, { recursive: true, force: true }));
const check = missingPrerequisites as (root: string, args: string[], env?: NodeJS.ProcessEnv) => Promise<string | null>;

describe('test prerequisites', () => {
  it('lists every missing command of the whole suite in one line with the apt-get command', async () => {
    const line = await check(root, ['--project', 'pglite'], { PATH: emptyBin });
    expect(line).not.toContain('\n');
    expect(line).toMatch(/^npm test needs: .*go.*python3.*curl.*jq.*script/);
    expect(line).toContain('apt-get install -y openssl golang-go python3 curl jq bsdutils');
  });

  it('checks only what the named files need', async () => {
    expect(await check(root, ['test/core/config.test.ts', '--project', 'pglite'], { PATH: emptyBin })).toBe(
      'npm test needs: openssl — install: apt-get install -y openssl',
    );
    expect(await check(root, ['test/examples/receivers.test.ts', '--project', 'pglite'], { PATH: emptyBin })).toBe(
      'npm test needs: openssl, go, python3 — install: apt-get install -y openssl golang-go python3',
    );
  });

  it('names an unreachable PostgreSQL unless only PGlite runs', async () => {
    const env = { PATH: process.env.PATH, VIGIA_TEST_PG_URL: 'postgres://postgres@127.0.0.1:9/test' };
    expect(await check(root, ['test/core/config.test.ts'], env)).toMatch(/PostgreSQL at 127\.0\.0\.1:9 .*not reachable/);
    expect(await check(root, ['test/core/config.test.ts', '--project', 'pglite'], env)).toBeNull();
  });

  it('is satisfied on this machine (CI installs everything)', async () => {
    expect(await check(root, [])).toBeNull();
  });
});

// @engine-neutral: no database is opened here
/**
 * `vigia` (bin/vigia.mjs, also `npm start`) runs the compiled dist/main.js when it is up to date
 * with src/, and otherwise the TypeScript sources through tsx, saying why in one stderr line.
 * Run on a scratch copy of the bin with a stand-in main on each side, times set explicitly.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'vigia-bin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

mkdirSync(path.join(dir, 'bin'));
mkdirSync(path.join(dir, 'src'));
copyFileSync(path.join(ROOT, 'bin', 'vigia.mjs'), path.join(dir, 'bin', 'vigia.mjs'));
symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
const mainTs = path.join(dir, 'src', 'main.ts');
writeFileSync(mainTs, "const from: string = 'source';\nconsole.log(from, process.argv.slice(2).join(' '));\n");
const mainJs = path.join(dir, 'dist', 'main.js');

async function run(): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [path.join(dir, 'bin', 'vigia.mjs'), 'serve', '--worker-only'], { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' } });
}
const at = (file: string, seconds: number) => utimesSync(file, seconds, seconds);

/** Each test states its own checkout: a built dist/ or none, and the modification times. */
function checkout(times: { source: number; compiled?: number }): void {
  rmSync(path.dirname(mainJs), { recursive: true, force: true });
  at(mainTs, times.source);
  if (times.compiled === undefined) return;
  mkdirSync(path.dirname(mainJs), { recursive: true });
  writeFileSync(mainJs, "console.log('compiled', process.argv.slice(2).join(' '));\n");
  at(mainJs, times.compiled);
}

describe('the vigia command', () => {
  it('runs the sources through tsx and says so when dist/ was never built', async () => {
    checkout({ source: 1_700_000_000 });
    const { stdout, stderr } = await run();
    expect(stdout).toBe('source serve --worker-only\n');
    expect(stderr).toBe('vigia: dist/main.js is missing; running the TypeScript sources through tsx (npm run build:lib compiles them)\n');
  });

  it('runs the compiled JavaScript, silently, when dist/ is newer than every source', async () => {
    checkout({ source: 1_700_000_000, compiled: 1_700_000_100 });
    expect(await run()).toEqual({ stdout: 'compiled serve --worker-only\n', stderr: '' });
  });

  it('runs the sources again as soon as one of them is newer than dist/', async () => {
    checkout({ source: 1_700_000_200, compiled: 1_700_000_100 });
    const { stdout, stderr } = await run();
    expect(stdout).toBe('source serve --worker-only\n');
    expect(stderr).toContain('vigia: src/ changed after dist/ was built');
  });
});

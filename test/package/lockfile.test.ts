// @engine-neutral: no database is opened here
/**
 * package-lock.json is committed exactly as npm writes it, so `npm install` in a fresh clone has
 * nothing to rewrite — including after scripts/complete-lockfile.cjs has added the optional
 * platform builds npm left out.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../cli/processes.js';

const lockFile = path.join(root, 'package-lock.json');
const { stringifyLikeNpm } = createRequire(import.meta.url)(path.join(root, 'scripts/complete-lockfile.cjs')) as { stringifyLikeNpm: (v: unknown) => string };

describe('package-lock.json', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigia-lock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is in the order npm writes', () => {
    const text = readFileSync(lockFile, 'utf8');
    expect(stringifyLikeNpm(JSON.parse(text))).toBe(text);
  });

  it('complete-lockfile re-adds a missing platform build where npm would put it, changing nothing else', () => {
    const text = readFileSync(lockFile, 'utf8');
    const lock = JSON.parse(text) as { packages: Record<string, unknown> };
    const missing = Object.keys(lock.packages).filter((k) => /^node_modules\/@biomejs\/cli-(darwin|win32)-/.test(k));
    expect(missing.length).toBeGreaterThan(0);
    for (const k of missing) delete lock.packages[k];
    const copy = path.join(dir, 'package-lock.json');
    writeFileSync(copy, `${JSON.stringify(lock, null, 2)}\n`);
    const out = execFileSync(process.execPath, [path.join(root, 'scripts/complete-lockfile.cjs'), copy], { encoding: 'utf8' });
    expect(out.trim().split('\n').sort()).toEqual(missing.map((k) => `${k}@${(JSON.parse(text).packages[k] as { version: string }).version}`).sort());
    expect(readFileSync(copy, 'utf8')).toBe(text);
  });
});

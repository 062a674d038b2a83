/**
 * `npm install` on the oldest Node the project supports prints no EBADENGINE warning: every
 * package in the lockfile accepts the floor in package.json `engines`, and the README states
 * that same floor.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};

describe('Node version floor', () => {
  const floor = semver.minVersion(pkg.engines.node)!.version;

  it('every locked dependency accepts the floor declared in package.json', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([name, p]) => name !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node)
      .filter(([, p]) => !semver.satisfies(floor, (p.engines as { node: string }).node))
      .map(([name, p]) => `${name} wants ${(p.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });

  it('the README states the same floor', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme).toContain(`Node.js ${floor}`);
    expect(readme).not.toMatch(/Node\s*>=?\s*20\.18/);
  });
});

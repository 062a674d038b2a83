// The test files whose outcome does not depend on the database engine. Each says so itself, in a
// line `// @engine-neutral: <why>` among its first lines, so the reason sits beside the tests and a
// new file runs on both engines unless its author decides otherwise. vitest.config.ts runs these
// files once (the `once` project) and every other file on PostgreSQL and on PGlite.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MARKER = /^\/\/ @engine-neutral: \S/m;
const HEAD_LINES = 20;

function testFiles(dir) {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return testFiles(rel);
    return entry.name.endsWith('.test.ts') ? [rel] : [];
  });
}

/** Repository-relative paths (`test/…`) of the engine-neutral test files. */
export function engineNeutralTestFiles() {
  return testFiles('test').filter((file) => {
    const head = readFileSync(path.join(root, file), 'utf8').split('\n', HEAD_LINES).join('\n');
    return MARKER.test(head);
  });
}

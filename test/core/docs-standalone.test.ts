/** README.md and docs/ stand alone: no pointers to design files a user of the repository does not have. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const files = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('documentation stands alone', () => {
  it.each(files)('%s names no file outside the repository and no spec section', (file) => {
    const text = readFileSync(path.join(root, file), 'utf8');
    expect(text).not.toMatch(/\.\.\/shared|SPEC §|CONTRACT §|ARCHITECTURE §|SPEC order/);
  });

  it('the production and operations guides exist and are linked from the README', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(files).toEqual(expect.arrayContaining(['docs/production.md', 'docs/operations.md']));
    expect(readme).toContain('(docs/production.md)');
    expect(readme).toContain('(docs/operations.md)');
  });
});

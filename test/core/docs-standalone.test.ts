// @engine-neutral: no database is opened here
/**
 * README.md, docs/ and the code's comments stand alone: no pointers to design files a user of the
 * repository does not have.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Spelled in parts so this file does not cite a section itself.
const SECTION_CITATION = new RegExp(['SPEC', 'CONTRACT', 'ARCHITECTURE'].map((w) => `${w} \u00a7`).join('|'));
const CODE_DIRS = ['src', 'test', 'web', 'bench', 'scripts', 'examples'];
const CODE_FILE = /\.(ts|tsx|mjs|cjs|js|py|go|sh)$/;

function codeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(root, dir))) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const rel = `${dir}/${name}`;
    if (statSync(path.join(root, rel)).isDirectory()) out.push(...codeFiles(rel));
    else if (CODE_FILE.test(name)) out.push(rel);
  }
  return out;
}

const files = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('documentation stands alone', () => {
  it.each(files)('%s names no file outside the repository and no spec section', (file) => {
    const text = readFileSync(path.join(root, file), 'utf8');
    expect(text).not.toMatch(/\.\.\/shared|SPEC order/);
    expect(text).not.toMatch(SECTION_CITATION);
  });

  it('no source, test, script or example cites a section of a design file', () => {
    const citing = CODE_DIRS.flatMap(codeFiles).filter((file) => SECTION_CITATION.test(readFileSync(path.join(root, file), 'utf8')));
    expect(citing).toEqual([]);
  });

  it('the production and operations guides exist and are linked from the README', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(files).toEqual(expect.arrayContaining(['docs/production.md', 'docs/operations.md']));
    expect(readme).toContain('(docs/production.md)');
    expect(readme).toContain('(docs/operations.md)');
  });
});

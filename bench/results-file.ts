import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Replaces the `## {heading}` section of bench/RESULTS.md with `section` (or appends it), leaving
 * every other benchmark's section as it is.
 */
export function writeResultsSection(file: string, heading: string, section: string): void {
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n\n';
  const start = text.indexOf(`## ${heading}`);
  if (start >= 0) {
    const next = text.indexOf('\n## ', start + 1);
    text = text.slice(0, start) + section + (next >= 0 ? text.slice(next + 1) : '');
  } else {
    text = `${text.replace(/\n*$/, '\n\n')}${section}`;
  }
  writeFileSync(file, text);
}

import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Replaces the `## {heading}` section of bench/RESULTS.md with `section` (or appends it), leaving
 * every other benchmark's section as it is. The replaced section's own `### ` subsections (dated
 * write-ups of earlier rounds, added by hand) are kept after the new text: a run rewrites only the
 * generated part, never the history.
 */
export function writeResultsSection(file: string, heading: string, section: string): void {
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n\n';
  const start = text.indexOf(`## ${heading}`);
  if (start >= 0) {
    const next = text.indexOf('\n## ', start + 1);
    const old = next >= 0 ? text.slice(start, next + 1) : text.slice(start);
    const sub = old.indexOf('\n### ');
    const kept = sub >= 0 ? `${old.slice(sub + 1).replace(/\n*$/, '')}\n\n` : '';
    const fresh = kept ? `${section.replace(/\n*$/, '')}\n\n${kept}` : section;
    text = text.slice(0, start) + fresh + (next >= 0 ? text.slice(next + 1) : '');
  } else {
    text = `${text.replace(/\n*$/, '\n\n')}${section}`;
  }
  writeFileSync(file, text);
}

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

/**
 * Replaces the `### {blockHeading}` block inside the `## {heading}` section with `block` (which
 * starts with that heading), or appends it to the section (creating the section when missing).
 * Everything else in the section stays where it is: for a bench that writes only its latest run
 * into a section that also holds hand-written history.
 */
export function writeResultsBlock(file: string, heading: string, blockHeading: string, block: string): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n\n';
  const body = `${block.replace(/\n*$/, '')}\n\n`;
  const start = text.indexOf(`## ${heading}\n`);
  if (start < 0) {
    writeFileSync(file, `${text.replace(/\n*$/, '\n\n')}## ${heading}\n\n${body}`);
    return;
  }
  const nextSection = text.indexOf('\n## ', start + 1);
  const end = nextSection >= 0 ? nextSection + 1 : text.length;
  const g = text.indexOf(`${blockHeading}\n`, start);
  if (g < 0 || g >= end) {
    writeFileSync(file, `${text.slice(0, end).replace(/\n*$/, '\n\n')}${body}${text.slice(end)}`);
    return;
  }
  const after = text.slice(g + blockHeading.length, end);
  const nextHeading = after.search(/\n##+ /);
  const rest = nextHeading >= 0 ? text.slice(g + blockHeading.length + nextHeading + 1) : text.slice(end);
  writeFileSync(file, text.slice(0, g) + body + rest);
}

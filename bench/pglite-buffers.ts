/**
 * `npm run bench -- pglite-buffers`: the embedded engine's (PGlite) delivery drain and memory for
 * several `shared_buffers` settings, measured in turns in one run so every setting sees the same
 * machine. For each round and setting: a fresh in-memory database, BENCH_DELIVERIES (4000)
 * deliveries committed, then drained by the real dispatcher to a local HTTPS receiver (the same
 * drain as `npm run bench -- delivery`'s PGlite column); memory is the process's `external` (where
 * PGlite's WebAssembly memory lives, and it never shrinks) after the drain, less the same figure
 * before the database opened, after a forced GC.
 *
 * BENCH_BUFFERS (comma list, default 16MB,32MB,64MB,128MB), BENCH_RUNS (3), BENCH_WRITE=0 leaves
 * bench/RESULTS.md alone. The first setting listed is the baseline of the ratios.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReceiver } from '../test/helpers/receiver.js';
import { machine, median, pgliteDrain } from './delivery.js';
import { writeResultsSection } from './results-file.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const self = fileURLToPath(import.meta.url);

function statusMb(field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? NaN) / 1024;
}

/** One drain in this process (the child's part): prints `{ rate, peakRssMb, baseRssMb }`. */
async function one(setting: string, n: number): Promise<void> {
  const rx = await startReceiver();
  const baseRssMb = statusMb('VmRSS');
  const dir = process.env.BENCH_PGLITE_DISK === '1' ? mkdtempSync(path.join(tmpdir(), 'vigia-bench-pglite-')) : undefined;
  try {
    const rate = await pgliteDrain(rx, n, setting, dir);
    process.stdout.write(`${JSON.stringify({ rate, peakRssMb: statusMb('VmHWM'), baseRssMb })}\n`);
  } finally {
    await rx.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** Each drain in a fresh Node process, so one setting's WebAssembly memory never counts for another's. */
function drainInChild(setting: string, n: number): { rate: number; peakRssMb: number; baseRssMb: number } {
  const r = spawnSync(process.execPath, [...process.execArgv, self, `--one=${setting}`, `--n=${n}`], { encoding: 'utf8', env: process.env });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !last.startsWith('{')) throw new Error(`bench: pglite drain with shared_buffers=${setting} failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(last);
}

export async function runPgliteBuffersBench(): Promise<void> {
  const settings = (process.env.BENCH_BUFFERS ?? '16MB,32MB,64MB,128MB').split(',').map((s) => s.trim());
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const n = Number(process.env.BENCH_DELIVERIES ?? 4000);
  const rate: Record<string, number[]> = Object.fromEntries(settings.map((s) => [s, []]));
  const mem: Record<string, number[]> = Object.fromEntries(settings.map((s) => [s, []]));
  const loads: string[] = [];
  const t0 = Date.now();
  for (let round = 0; round < runs; round++) {
    const before = loadavg()[0]!;
    // Each round starts with a different setting, so no setting always runs first or last.
    const order = settings.map((_, i) => settings[(i + round) % settings.length]!);
    for (const s of order) {
      const r = drainInChild(s, n);
      rate[s]!.push(r.rate);
      mem[s]!.push(r.peakRssMb - r.baseRssMb);
      process.stdout.write(`round ${round + 1} shared_buffers=${s}: drain ${r.rate.toFixed(0)}/s, peak RSS +${(r.peakRssMb - r.baseRssMb).toFixed(0)} MB\n`);
    }
    loads.push(`${before.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`);
  }
  const base = settings[0]!;
  const baseRate = median(rate[base]!);
  const rows = settings.map((s) => {
    const r = median(rate[s]!);
    return `| \`shared_buffers=${s}\` | ${rate[s]!.map((x) => x.toFixed(0)).join(' / ')} | **${r.toFixed(0)}** | ${(r / baseRate).toFixed(2)}× | ${median(mem[s]!).toFixed(0)} MB |`;
  });
  const section = [
    '## Embedded engine: shared_buffers and the drain',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}; load per round ${loads.join(', ')}.`,
    `Command: \`npm run bench -- pglite-buffers\` (bench/pglite-buffers.ts, ${runs} rounds in turns, ${((Date.now() - t0) / 1000).toFixed(0)} s):`,
    `the PGlite drain of ${n} deliveries per setting, each in a fresh Node process (fresh ${process.env.BENCH_PGLITE_DISK === '1' ? 'database in a data directory' : 'in-memory database'}, real dispatcher,`,
    `local HTTPS receiver); ratios against \`${base}\` measured in the same run. Memory: the process's peak RSS during the`,
    'drain less its RSS before the database opened (PGlite\'s WebAssembly memory never shrinks, so the peak is what it keeps).',
    '',
    '| setting | drain per round (/s) | median (/s) | vs baseline | peak RSS growth (median) |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (process.env.BENCH_WRITE !== '0') writeResultsSection(path.join(here, 'RESULTS.md'), 'Embedded engine: shared_buffers and the drain', section);
}

const oneArg = process.argv.find((a) => a.startsWith('--one='));
if (oneArg) {
  const nArg = process.argv.find((a) => a.startsWith('--n='));
  await one(oneArg.slice('--one='.length), Number(nArg?.slice('--n='.length) ?? 4000));
  process.exit(0);
}

/**
 * Signal batches, this checkout against an earlier commit, in one run (issue 21 item 6): signals/s
 * of one 1,000-signal `ingestSignals` call — fresh opens (1,000 new keys, each event fanned out to
 * one webhook destination), then the same 1,000 again (reoccurrences, no event). Both versions are
 * loaded into this process (the baseline from a git worktree of BENCH_BASELINE_REF beside the
 * temp dir, sharing node_modules), each with its own database module and migrations, and measured
 * in turns (A, B, A, B, …) on a scratch PostgreSQL database each, then on in-memory PGlite.
 *
 * Run: `npm run bench -- signals`. Env: BENCH_BASELINE_REF (default fe16e76, the last commit with
 * the per-signal statements), BENCH_ROUNDS (5 on PostgreSQL), BENCH_PGLITE_ROUNDS (2; 0 skips
 * PGlite), BENCH_NO_WRITE=1 to skip writing bench/RESULTS.md. Needs PostgreSQL
 * (VIGIA_BENCH_PG_URL or VIGIA_TEST_PG_URL; default postgres://postgres@127.0.0.1:5432/test).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createScratchDatabase, machine, median } from './kit.js';
import { writeResultsSection } from './results-file.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BATCH = 1000;

/** The modules a version is measured with, imported from its own checkout. */
interface Version {
  label: string;
  ingestSignals: (ctx: any, orgId: string, body: unknown) => Promise<{ outcomes: Array<{ outcome: string }> }>;
  createOrg: (ctx: any, input: { name: string }) => Promise<{ id: string }>;
  createDestination: (ctx: any, orgId: string, input: unknown) => Promise<unknown>;
  migrate: (db: any) => Promise<unknown>;
  createPgDatabase: (url: string, logger?: unknown, opts?: { max?: number }) => any;
  createPgliteDatabase: () => Promise<any>;
  loadConfig: (env: Record<string, string>) => any;
  systemClock: unknown;
  Sealer: new (key: Buffer) => unknown;
}

/** A detached worktree of `ref` beside the temp dir, sharing this checkout's node_modules. */
function baselineCheckout(ref: string): string {
  const dir = path.join(tmpdir(), `vigia-baseline-${ref}`);
  if (!existsSync(dir)) {
    execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: ROOT, stdio: 'ignore' });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  }
  return dir;
}

async function loadVersion(root: string, label: string): Promise<Version> {
  const mod = (p: string) => import(pathToFileURL(path.join(root, p)).href);
  const [lifecycle, orgs, destinations, db, pgMod, pgliteMod, config, clock, sealing] = await Promise.all([
    mod('src/alerts/lifecycle.ts'), mod('src/orgs/orgs.ts'), mod('src/delivery/destination-service.ts'), mod('src/db/index.ts'),
    mod('src/db/pg.ts'), mod('src/db/pglite.ts'), mod('src/config.ts'), mod('src/clock.ts'), mod('src/secrets/sealing.ts'),
  ]);
  return {
    label,
    ingestSignals: lifecycle.ingestSignals,
    createOrg: orgs.createOrg,
    createDestination: destinations.createDestination,
    migrate: db.migrate,
    createPgDatabase: pgMod.createPgDatabase,
    createPgliteDatabase: pgliteMod.createPgliteDatabase,
    loadConfig: config.loadConfig,
    systemClock: clock.systemClock,
    Sealer: sealing.Sealer,
  };
}

function batch(run: number): Array<Record<string, unknown>> {
  return Array.from({ length: BATCH }, (_, i) => ({
    sourceType: 'Dataset',
    sourceId: `ds-${run}-${i}`,
    sourceName: `Dataset ${i}`,
    kind: 'failure',
    notificationKind: 'RefreshFailed',
    title: 'Refresh failed',
    message: `The refresh of dataset ${i} failed: timeout after 7200 s`,
    workspaceName: 'Finance',
  }));
}

interface Side {
  v: Version;
  ctx: any;
  opens: number[];
  reoccurrences: number[];
}

async function side(v: Version, db: any): Promise<Side> {
  await v.migrate(db);
  const key = randomBytes(32);
  const config = v.loadConfig({ VIGIA_SECRET_KEY: key.toString('base64'), VIGIA_BASE_URL: 'https://vigia.example.test' });
  return { v, ctx: { config, db, clock: v.systemClock, sealer: new v.Sealer(key), log: { info() {}, warn() {}, error() {}, debug() {} } }, opens: [], reoccurrences: [] };
}

/** One round: a new organization with one webhook; 1,000 opens, then the same 1,000 again. */
async function round(s: Side, run: number): Promise<void> {
  const org = await s.v.createOrg(s.ctx, { name: `bench ${run}` });
  await s.v.createDestination(s.ctx, org.id, { name: 'Hook', kind: 'webhook', url: 'https://hooks.example.com/vigia' });
  const signals = batch(run);
  for (const [list, expected] of [[s.opens, 'opened'], [s.reoccurrences, 'reoccurred']] as const) {
    const t0 = performance.now();
    const { outcomes } = await s.v.ingestSignals(s.ctx, org.id, signals);
    const seconds = (performance.now() - t0) / 1000;
    if (outcomes.length !== BATCH || outcomes.some((o) => o.outcome !== expected)) throw new Error(`${s.v.label}: expected ${expected}`);
    list.push(BATCH / seconds);
  }
}

const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');

export async function runSignalsBench(): Promise<void> {
  const ref = process.env.BENCH_BASELINE_REF ?? 'fe16e76';
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const pgliteRounds = Number(process.env.BENCH_PGLITE_ROUNDS ?? 2);
  const current = await loadVersion(ROOT, 'this checkout');
  const baseline = await loadVersion(baselineCheckout(ref), `baseline ${ref}`);
  const started = new Date();
  const load0 = loadavg()[0]!;
  const lines: string[] = [];

  const measure = async (engine: string, n: number, open: (v: Version) => Promise<{ db: any; close(): Promise<void> }>) => {
    const handles = await Promise.all([current, baseline].map(open));
    const sides = [await side(current, handles[0]!.db), await side(baseline, handles[1]!.db)] as const;
    try {
      await round(sides[0], -1); // warm-up of both (plans, JIT), not counted
      await round(sides[1], -1);
      sides.forEach((s) => {
        s.opens.length = 0;
        s.reoccurrences.length = 0;
      });
      for (let r = 0; r < n; r++) {
        for (const s of sides) await round(s, r);
        process.stdout.write(
          `${engine} round ${r + 1}: opens ${sides[0].opens[r]!.toFixed(0)} vs ${sides[1].opens[r]!.toFixed(0)}, ` +
            `reoccurrences ${sides[0].reoccurrences[r]!.toFixed(0)} vs ${sides[1].reoccurrences[r]!.toFixed(0)} signals/s\n`,
        );
      }
    } finally {
      for (const h of handles) await h.close();
    }
    const [a, b] = sides;
    lines.push(
      `| ${engine} | fresh opens | ${median(a.opens).toFixed(0)} | ${median(b.opens).toFixed(0)} | ${(median(a.opens) / median(b.opens)).toFixed(1)}× | ${fmt(a.opens)} / ${fmt(b.opens)} |`,
      `| ${engine} | reoccurrences | ${median(a.reoccurrences).toFixed(0)} | ${median(b.reoccurrences).toFixed(0)} | ${(median(a.reoccurrences) / median(b.reoccurrences)).toFixed(1)}× | ${fmt(a.reoccurrences)} / ${fmt(b.reoccurrences)} |`,
    );
  };

  await measure('PostgreSQL', rounds, async (v) => {
    const scratch = await createScratchDatabase();
    const db = v.createPgDatabase(scratch.url, undefined, { max: 2 });
    return { db, close: async () => { await db.close(); await scratch.drop(); } };
  });
  if (pgliteRounds > 0) {
    await measure('PGlite (in memory)', pgliteRounds, async (v) => {
      const db = await v.createPgliteDatabase();
      return { db, close: () => db.close() };
    });
  }

  const section = [
    '## Signal batches, this checkout against a baseline commit',
    '',
    `Written by \`npm run bench -- signals\` (bench/signals.ts) on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${machine()}.`,
    `One \`ingestSignals\` call of ${BATCH} failure signals (one organization, one webhook destination, so each opening also writes its event and one delivery), timed from the call to its return;`,
    `then the same ${BATCH} signals again (reoccurrences). Baseline: \`${ref}\` (one or more statements per signal), loaded from a git worktree into the same process and measured in turns with this checkout, each on its own scratch database.`,
    `Medians of ${rounds} rounds on PostgreSQL${pgliteRounds > 0 ? ` and ${pgliteRounds} on PGlite` : ''} after one warm-up round each. The host is shared with other engineers' builds and tests`,
    `(load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, on 2 cores): absolute numbers move from run to run; the ratio of the two, measured in alternation, is the figure to read.`,
    '',
    '| Engine | Batch | This checkout (signals/s) | Baseline (signals/s) | Ratio | Rounds (this / baseline) |',
    '|---|---|---|---|---|---|',
    ...lines,
    '',
  ].join('\n');
  process.stdout.write(`\n${section}\n`);
  if (process.env.BENCH_NO_WRITE !== '1') writeResultsSection(path.join(ROOT, 'bench', 'RESULTS.md'), 'Signal batches, this checkout against a baseline commit', section);
}

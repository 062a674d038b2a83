/** What the HTTP benchmarks share: the machine line, a scratch database, the load generator. */
import { cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Pool } from 'undici';
import { randomBase62 } from '../src/ids.js';

/** One line naming the machine, for RESULTS.md. */
export function machine(): string {
  const c = cpus();
  return `${c.length} × ${c[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}`;
}

/** The value below which `p` % of `xs` lie (nearest rank). */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export const median = (xs: readonly number[]) => percentile(xs, 50);

/**
 * A fresh PostgreSQL database for one run (VIGIA_BENCH_PG_URL or VIGIA_TEST_PG_URL names the
 * admin connection); `drop` removes it unless BENCH_KEEP_DB=1.
 */
export async function createScratchDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.VIGIA_BENCH_PG_URL ?? process.env.VIGIA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `vigia_bench_${randomBase62(8).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (process.env.BENCH_KEEP_DB === '1') {
        process.stdout.write(`kept database ${name}\n`);
        return;
      }
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await c.end();
    },
  };
}

/** Requests/s of GET `pathAndQuery` with `concurrency` requests in flight for `seconds`; any non-200 fails the run. */
export async function throughput(pool: Pool, pathAndQuery: string, headers: Record<string, string>, concurrency: number, seconds: number) {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const res = await pool.request({ method: 'GET', path: pathAndQuery, headers });
      await res.body.arrayBuffer();
      if (res.statusCode === 200) done += 1;
      else failed += 1;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  if (failed > 0) throw new Error(`${pathAndQuery}: ${failed} non-200 answers`);
  return done / elapsed;
}

/** Sequential latencies (ms) of `n` GET requests after `warm` warm-up requests. */
export async function latencies(pool: Pool, pathAndQuery: string, headers: Record<string, string>, n: number, warm = 3) {
  const out: number[] = [];
  for (let i = 0; i < n + warm; i++) {
    const t0 = performance.now();
    const res = await pool.request({ method: 'GET', path: pathAndQuery, headers });
    const body = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${pathAndQuery}: ${res.statusCode} ${body.slice(0, 200)}`);
    if (i >= warm) out.push(performance.now() - t0);
  }
  return out;
}

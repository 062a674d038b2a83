/**
 * One PGlite drain in this process, for A/B runs across checkouts (bench/RESULTS.md, "Embedded
 * engine: the drain and the claim's planning"): prints `{"rate": deliveries per second}` for
 * N (default 4000) deliveries committed to a fresh in-memory database and drained by the real
 * dispatcher to a local HTTPS receiver — the drain of `npm run bench -- delivery`'s PGlite column.
 *
 * Run it from the checkout being measured, alternating checkouts so each sees the same machine:
 *
 *   git worktree add --detach /tmp/old <commit>; cp -al node_modules /tmp/old/; cp -r .test-certs /tmp/old/
 *   for r in 1 2 3 4 5; do for d in /tmp/old $PWD; do
 *     (cd $d && NODE_EXTRA_CA_CERTS=$PWD/.test-certs/ca.crt node --import tsx $OLDPWD/bench/pglite-drain-one.ts 4000)
 *   done; done
 *
 * It loads `bench/delivery.ts` and `test/helpers/receiver.ts` of the current directory's checkout
 * (in commits before 2026-11-26, `pgliteDrain` in bench/delivery.ts must be exported first).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.cwd();
const { startReceiver } = await import(pathToFileURL(path.join(root, 'test/helpers/receiver.ts')).href);
const { pgliteDrain } = await import(pathToFileURL(path.join(root, 'bench/delivery.ts')).href);
const rx = await startReceiver();
try {
  const rate: number = await pgliteDrain(rx, Number(process.argv[2] ?? 4000));
  process.stdout.write(`${JSON.stringify({ rate: Math.round(rate) })}\n`);
} finally {
  await rx.close();
}
process.exit(0);

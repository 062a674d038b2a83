import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { engineNeutralTestFiles } from './scripts/engine-neutral.mjs';
import LongestFirstSequencer from './test/helpers/sequencer.js';

// Three projects:
// - `pg` and `pglite` run every test whose outcome can depend on the database engine, once per engine;
// - `once` runs the engine-neutral files (pure logic, the browser, spawned CLIs, example receivers,
//   the simulator): each says so in a line `// @engine-neutral: why` near its top
//   (scripts/engine-neutral.mjs finds them) and runs a single time, on PostgreSQL.
// A file named *.pg.test.ts needs PostgreSQL servers (races between connections, other processes);
// *.pglite.test.ts is about the embedded engine itself. Each runs in its own project only, so no
// test is registered and then skipped.
const neutral = engineNeutralTestFiles();

export default defineConfig({
  test: {
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: one on a 2-core machine, though most of a
    // test's time is spent waiting on sockets, databases and child processes. Two files per core
    // keep both cores busy.
    maxWorkers: Math.max(2, availableParallelism() * 2),
    // The longest files first, across the three projects (test/helpers/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Builds the web console when it is missing or stale (test/console drives it in Chromium), and
    // the migrated template databases each file's fresh database is copied from.
    globalSetup: ['test/console/build-console.ts', 'test/helpers/db-template-setup.ts'],
    projects: [
      {
        extends: true,
        // include and exclude are per project: `extends` would concatenate them with a root list.
        test: { name: 'pg', env: { VIGIA_TEST_ENGINE: 'pg' }, include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', 'test/**/*.pglite.test.ts', ...neutral] },
      },
      {
        extends: true,
        test: { name: 'pglite', env: { VIGIA_TEST_ENGINE: 'pglite' }, include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', 'test/**/*.pg.test.ts', ...neutral] },
      },
      { extends: true, test: { name: 'once', env: { VIGIA_TEST_ENGINE: 'pg' }, include: neutral.length > 0 ? neutral : ['no-engine-neutral-file'] } },
    ],
  },
});

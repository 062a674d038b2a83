import { defineConfig } from 'vitest/config';

// The whole suite runs twice: once on a real PostgreSQL, once on embedded PGlite.
export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: ['test/**/*.test.ts'],
    // Builds the web console when it is missing or stale (test/console drives it in Chromium).
    globalSetup: ['test/console/build-console.ts'],
    // A file named *.pg.test.ts needs PostgreSQL servers (races between connections, other
    // processes); *.pglite.test.ts is about the embedded engine itself. Each runs in its own
    // project only, so no test is registered and then skipped.
    projects: [
      { extends: true, test: { name: 'pg', env: { VIGIA_TEST_ENGINE: 'pg' }, exclude: ['**/node_modules/**', 'test/**/*.pglite.test.ts'] } },
      { extends: true, test: { name: 'pglite', env: { VIGIA_TEST_ENGINE: 'pglite' }, exclude: ['**/node_modules/**', 'test/**/*.pg.test.ts'] } },
    ],
  },
});

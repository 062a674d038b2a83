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
    projects: [
      { extends: true, test: { name: 'pg', env: { VIGIA_TEST_ENGINE: 'pg' } } },
      { extends: true, test: { name: 'pglite', env: { VIGIA_TEST_ENGINE: 'pglite' } } },
    ],
  },
});

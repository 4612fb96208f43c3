import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Files that run alone, after the rest: those that measure how long something takes against a
 * bound, or stop processes on a signal's timing, so another file's load cannot fail them; and
 * those that run the README's `npm start`, whose build empties `packages/dashboard/dist` for a
 * moment: a browser test's server started in that moment served no dashboard for its whole life
 * (it reads the page once at start), and every test of its file failed (a CI run of
 * `dashboard-review`).
 */
const ALONE = [
  'packages/server/test/cli.test.ts',
  'packages/server/test/shutdown.test.ts',
  'packages/server/test/readme-commands.test.ts',
  'packages/server/test/data-dir-restart.test.ts',
];

export default defineConfig({
  resolve: {
    alias: { '@feedloop/core': fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)) },
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The dashboard and widget bundles, built once from this tree before any file runs.
    globalSetup: ['./vitest.global-setup.ts'],
    projects: [
      {
        extends: true,
        // Every file has its own databases (a PGlite, a Postgres schema, a Redis prefix), and most
        // of a file's time is waiting on them or on child processes: two files at once on two cores.
        // At most four: each file holds up to ~20 Postgres connections, and Postgres allows 100.
        test: { name: 'parallel', include: ['packages/*/test/**/*.test.ts'], exclude: ALONE, maxWorkers: Math.min(4, Math.max(2, availableParallelism())) },
      },
      { extends: true, test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});

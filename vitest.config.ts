import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Files that measure how long something takes against a bound, or stop processes on a signal's
 * timing: they run alone, after the rest, so another file's load cannot fail them.
 */
const ALONE = ['packages/server/test/cli.test.ts', 'packages/server/test/shutdown.test.ts'];

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

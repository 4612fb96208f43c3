/**
 * Where the test suites find the real third-party datasets: `../shared/datasets/` beside the
 * repository (CI puts them there), or `FEEDLOOP_DATASETS_DIR`. They are never copied into the
 * repository. Missing: a failure in CI, a loud skip elsewhere.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './process-helpers.js';

export const DATASETS_DIR = resolve(process.env.FEEDLOOP_DATASETS_DIR ?? join(REPO_ROOT, '../shared/datasets'));

/** Whether the datasets are there (throws in CI when they are not). */
export function datasetsAvailable(): boolean {
  if (existsSync(join(DATASETS_DIR, 'README.md'))) return true;
  if (process.env.CI === 'true') throw new Error(`the datasets are required in CI but ${DATASETS_DIR} is missing`);
  console.warn(`\n*** SKIPPING DATASET TESTS: ${DATASETS_DIR} is missing (set FEEDLOOP_DATASETS_DIR). ***\n`);
  return false;
}

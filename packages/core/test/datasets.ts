/**
 * Where the shared third-party datasets are: `../shared/datasets` beside the repository (as in
 * the main checkout), or one level further up from a worktree under `wt/`. Tests read them in
 * place and skip when they are absent; nothing of them is copied into the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO_ROOT = new URL('../../../', import.meta.url).pathname;

/**
 * The datasets folder, or undefined when this machine has none (the tests on it then skip, saying
 * so). CI has them: there a missing folder fails the run instead of skipping quietly.
 */
export const DATASETS_DIR = [join(REPO_ROOT, '../shared/datasets'), join(REPO_ROOT, '../../shared/datasets')].find((d) => existsSync(d));
if (DATASETS_DIR === undefined) {
  if (process.env.CI === 'true') throw new Error(`CI=true but the shared datasets are missing (looked for ${join(REPO_ROOT, '../shared/datasets')})`);
  process.stderr.write(`SKIPPING the dataset tests: no ../shared/datasets beside ${REPO_ROOT}\n`);
}

/** The records of a JSON-lines file under the datasets folder. */
export function readJsonLines<T>(relativePath: string): T[] {
  if (DATASETS_DIR === undefined) return [];
  return readFileSync(join(DATASETS_DIR, relativePath), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

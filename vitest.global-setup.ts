/**
 * Runs once before the test files: builds the dashboard and the widget's bundle from this tree.
 * The browser tests load them from their `dist/` folders, so they test this change's pages; built
 * here rather than in each file, because a build empties `dist/` while another file (running at
 * the same time) loads it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/** Vitest's global setup: the two builds, ~1.5 s together. */
export default function setup(): void {
  execFileSync('npm', ['run', 'build', '-w', '@feedloop/dashboard'], { cwd: ROOT, stdio: 'ignore' });
  execFileSync(process.execPath, ['packages/widget/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
}

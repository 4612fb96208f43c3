/**
 * A new PGlite data folder is created in a child process. PGlite's initdb runs a second
 * Postgres instance and the initdb program, each with its own WebAssembly heap, and copies the
 * result through an in-memory tarball: ~850 MB peak, of which ~450 MB stayed resident in the
 * server for good (the heaps are only freed by a full garbage collection, which an idle server
 * never runs, and the main heap keeps what it touched). In a child, all of it is returned to the
 * system when the child exits; it costs one more Node start, on the first start only. The child
 * also applies the migrations, whose catalog work grows the same heaps.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, rmdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FeedloopError } from '../errors.js';
import type { MigrationReport } from './migrate.js';

/** A migration applied, as `migrate` reports it. */
type AppliedMigration = MigrationReport['applied'][number];
/** The child's module: compiled `.js` from `dist/`, else the `.ts` source loaded through tsx (vitest). */
function initdbScript(): { args: string[] } {
  const js = fileURLToPath(new URL('./pglite-initdb-main.js', import.meta.url));
  if (existsSync(js)) return { args: [js] };
  return { args: ['--import', 'tsx', fileURLToPath(new URL('./pglite-initdb-main.ts', import.meta.url))] };
}

/** Where a new folder is built before it is moved into place: `<name>.creating-<pid>-<time>`. */
const stagingPrefix = (dataDir: string): string => `${basename(dataDir)}.creating-`;

/**
 * Creates the data folder's database in a child process, and migrates it there, unless it already
 * holds one (`PG_VERSION`, the file PGlite itself looks for). The caller holds the folder's lock.
 *
 * The child builds the folder under a staging name beside it, and only a finished, migrated folder
 * is renamed into place (one atomic rename). A start killed half-way (SIGKILL during initdb or the
 * first migrations) leaves only a staging folder, which the next start deletes and builds again:
 * before, it left a folder with `PG_VERSION` but no complete database, and every later start
 * failed on it.
 *
 * @returns the migrations the child applied (none when the folder existed).
 * @throws FeedloopError `FEEDLOOP_ERR_INTERNAL` when initdb fails (its output is in the message),
 *   or when the folder exists, is not empty and holds no database (it is left as it is).
 * @example
 * await ensurePgliteDataDir('./.feedloop/pgdata');
 */
export async function ensurePgliteDataDir(dataDir: string): Promise<AppliedMigration[]> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return [];
  if (existsSync(dataDir)) {
    if (readdirSync(dataDir).length > 0) {
      throw new FeedloopError(
        'FEEDLOOP_ERR_INTERNAL',
        `${dataDir} is not empty but holds no database (no PG_VERSION): move it away, and feedloop creates a new one`,
      );
    }
    rmdirSync(dataDir);
  }
  removeStaleStaging(dataDir);
  const staging = join(dirname(dataDir), `${stagingPrefix(dataDir)}${process.pid}-${Date.now()}`);
  const child = spawn(process.execPath, [...initdbScript().args, staging], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode, signal) => resolve(signal ? null : exitCode));
  });
  if (code !== 0 || !existsSync(join(staging, 'PG_VERSION'))) {
    rmSync(staging, { recursive: true, force: true });
    throw new FeedloopError('FEEDLOOP_ERR_INTERNAL', `creating the embedded database in ${dataDir} failed (exit ${code ?? 'by signal'}): ${stderr.trim()}`);
  }
  renameSync(staging, dataDir);
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as AppliedMigration[];
}

/**
 * Deletes staging folders that earlier, interrupted starts left beside `dataDir`. Safe: the
 * caller holds the data folder's lock, so no other start is building one.
 */
function removeStaleStaging(dataDir: string): void {
  const parent = dirname(dataDir);
  if (!existsSync(parent)) return;
  const prefix = stagingPrefix(dataDir);
  for (const name of readdirSync(parent)) {
    if (name.startsWith(prefix)) rmSync(join(parent, name), { recursive: true, force: true });
  }
}

/**
 * The lock that keeps a second process off an embedded data folder: PGlite is single-process and
 * two processes on one folder corrupt it (DESIGN principle 6). A lock file holds the owner's pid;
 * a lock left by a killed process (its pid no longer alive) is taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FeedloopError } from '../errors.js';

/** A held lock; `release` removes it. */
export interface DataDirLock {
  readonly path: string;
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the lock of a data folder, creating the folder when missing.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_DATA_DIR_LOCKED` when a live process holds it.
 * @example
 * const lock = acquireDataDirLock('./.feedloop'); try { ... } finally { lock.release(); }
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'feedloop.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      let held = true;
      return {
        path,
        release() {
          if (held && readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true });
          held = false;
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new FeedloopError(
          'FEEDLOOP_ERR_DATA_DIR_LOCKED',
          `the data folder ${dataDir} is in use by feedloop process ${owner}; stop it first, or use its HTTP API`,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new FeedloopError('FEEDLOOP_ERR_DATA_DIR_LOCKED', `could not take the lock on ${dataDir}`);
}

/**
 * The lock that keeps a second process off an embedded data folder: PGlite is single-process and
 * two processes on one folder corrupt it (DESIGN principle 6).
 *
 * `feedloop.lock` names its owner by pid, start time and boot (see process-identity.ts) plus a
 * random token, so a killed owner never blocks a start, even while it is an unreaped zombie or
 * after its pid went to another program. Every file is born complete: it is written under a
 * private name first and then linked or renamed into place, so nobody ever reads half a lock.
 *
 * Taking over a stale lock is where two starters could both win (both see it stale, one replaces
 * it, the other removes the replacement). So only the starter that creates the takeover claim
 * `feedloop.lock.takeover-<token of the stale lock>-0` (link() fails when it exists) may replace
 * that lock, after checking it is still the one it judged. A claim whose maker died is passed
 * over by making claim `-1`, and so on, so a starter killed mid-takeover blocks nobody either.
 *
 * Once it listens, the owner announces its address in the lock (`url`), so a command run on the
 * same folder (`feedloop demo`) finds the running server without being told where it is.
 */
import { createHash, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FeedloopError } from '../errors.js';
import { currentProcessIdentity, isProcessRunning, type ProcessIdentity } from './process-identity.js';

/** A held lock; `release` removes it. */
export interface DataDirLock {
  readonly path: string;
  /** Adds the owner's address to the lock (rewritten whole, under the same token). */
  announce(details: { url: string }): void;
  release(): void;
}

/** Who holds a data folder, as {@link readDataDirLock} finds it. */
export interface DataDirHolder {
  pid: number | undefined;
  /** Whether that process still runs (a dead owner's lock is stale: the next start takes it over). */
  live: boolean;
  /** The address the owner announced once listening; absent while it starts. */
  url: string | undefined;
}

/** Options of {@link acquireDataDirLock}. */
export interface DataDirLockOptions {
  /** How long to wait for another starter that is in the middle of taking over a stale lock. */
  takeoverWaitMs?: number;
}

const LOCK_FILE = 'feedloop.lock';
const TAKEOVER_PREFIX = `${LOCK_FILE}.takeover-`;
const TEMP_SUFFIX = '.tmp';
/** More dead takeover claims on one lock than this means something else is wrong. */
const MAX_CLAIMS = 1_000;

/** A lock file as read: who owns it and the token that names this lock. */
interface LockRecord {
  readonly owner: ProcessIdentity | undefined;
  readonly token: string;
  readonly url?: string;
}

/** An announced address: an absolute http(s) URL, else none (a lock is anyone's to write). */
function announcedUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a lock (or claim) file; `undefined` when it does not exist. */
function readRecord(path: string): LockRecord | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const fallbackToken = createHash('sha256').update(text).digest('hex').slice(0, 24);
  // Written by feedloop before locks named their owner fully: a pid alone.
  if (/^\s*\d+\s*$/.test(text)) {
    const pid = Number(text);
    // That is never this process (it writes the full form), though the pid may be ours now.
    return { owner: pid === process.pid ? undefined : { pid }, token: fallbackToken };
  }
  try {
    const parsed = JSON.parse(text) as Partial<ProcessIdentity> & { token?: unknown; url?: unknown };
    const token = typeof parsed.token === 'string' && /^[0-9a-z]{1,64}$/.test(parsed.token) ? parsed.token : fallbackToken;
    if (typeof parsed.pid !== 'number') return { owner: undefined, token };
    const url = announcedUrl(parsed.url);
    return {
      ...(url ? { url } : {}),
      owner: {
        pid: parsed.pid,
        ...(typeof parsed.start === 'string' ? { start: parsed.start } : {}),
        ...(typeof parsed.boot === 'string' ? { boot: parsed.boot } : {}),
      },
      token,
    };
  } catch {
    return { owner: undefined, token: fallbackToken };
  }
}

function isLive(record: LockRecord): boolean {
  return record.owner !== undefined && isProcessRunning(record.owner);
}

/** link() as "create if absent", atomically and with full content. */
function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function lockedError(dataDir: string, pid: number | undefined): FeedloopError {
  return new FeedloopError(
    'FEEDLOOP_ERR_DATA_DIR_LOCKED',
    `the data folder ${dataDir} is in use by feedloop process ${pid ?? '(unknown)'}; stop it first, or use its HTTP API`,
  );
}

/**
 * Claims the right to replace the stale lock named by `staleToken`: `claimed` with the claim's path,
 * or `busy` with the pid of a live starter that claimed it first.
 */
function claimTakeover(dataDir: string, staleToken: string, ours: string): { claimed: string } | { busy: number } {
  for (let k = 0; k < MAX_CLAIMS; k++) {
    const claim = join(dataDir, `${TAKEOVER_PREFIX}${staleToken}-${k}`);
    if (tryLink(ours, claim)) return { claimed: claim };
    const holder = readRecord(claim);
    // Gone already: its maker finished or backed off; look again from the start.
    if (!holder) return { busy: 0 };
    if (isLive(holder)) return { busy: holder.owner?.pid ?? 0 };
    // Its maker died mid-takeover: the next claim decides.
  }
  throw new FeedloopError('FEEDLOOP_ERR_DATA_DIR_LOCKED', `too many abandoned takeovers of the lock in ${dataDir}; remove its ${TAKEOVER_PREFIX}* files by hand`);
}

/** Removes what dead starters left: claims on locks other than ours, and temporary files of dead processes. */
function sweepLeftovers(dataDir: string, ourToken: string): void {
  for (const name of readdirSync(dataDir)) {
    if (!name.startsWith(`${LOCK_FILE}.`)) continue;
    const path = join(dataDir, name);
    if (name.startsWith(TAKEOVER_PREFIX)) {
      if (!name.startsWith(`${TAKEOVER_PREFIX}${ourToken}-`)) rmSync(path, { force: true });
    } else if (name.endsWith(TEMP_SUFFIX)) {
      // One without an owner may be a starter's that is being written this very moment: kept.
      const record = readRecord(path);
      if (record?.owner && record.token !== ourToken && !isLive(record)) rmSync(path, { force: true });
    }
  }
}

/**
 * Takes the lock of a data folder, creating the folder when missing. A lock whose owner is dead
 * (also a zombie, or a pid reused by another program) is taken over; of several starters racing
 * over it exactly one wins.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_DATA_DIR_LOCKED` when a live process holds it.
 * @example
 * const lock = acquireDataDirLock('./.feedloop'); try { ... } finally { lock.release(); }
 */
export function acquireDataDirLock(dataDir: string, options: DataDirLockOptions = {}): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const token = randomBytes(12).toString('hex');
  const temp = `${path}.${token}${TEMP_SUFFIX}`;
  writeFileSync(temp, `${JSON.stringify({ ...currentProcessIdentity(), token })}\n`, { flag: 'wx' });
  const deadline = Date.now() + (options.takeoverWaitMs ?? 10_000);
  try {
    for (;;) {
      if (tryLink(temp, path)) break;
      const current = readRecord(path);
      if (!current) continue; // released a moment ago
      if (isLive(current)) throw lockedError(dataDir, current.owner?.pid);
      const claim = claimTakeover(dataDir, current.token, temp);
      if ('busy' in claim) {
        if (Date.now() > deadline) throw lockedError(dataDir, claim.busy || undefined);
        sleepSync(10);
        continue;
      }
      // Only the claim's holder replaces this lock, and nobody removes it but its (dead) owner:
      // if it is still the one judged stale, it stays so until the rename below.
      if (readRecord(path)?.token !== current.token) {
        rmSync(claim.claimed, { force: true });
        continue;
      }
      renameSync(temp, path);
      break;
    }
    sweepLeftovers(dataDir, token);
  } finally {
    rmSync(temp, { force: true });
  }
  let held = true;
  return {
    path,
    announce({ url }) {
      if (!held || readRecord(path)?.token !== token) return;
      // Born complete under a private name, then renamed over the lock: readers see the old
      // record or the new one, and a starter judging it sees the same live owner and token.
      const next = `${path}.${token}.announce${TEMP_SUFFIX}`;
      writeFileSync(next, `${JSON.stringify({ ...currentProcessIdentity(), token, url })}\n`);
      renameSync(next, path);
    },
    release() {
      if (held && readRecord(path)?.token === token) rmSync(path, { force: true });
      held = false;
    },
  };
}

/**
 * Who holds a data folder's lock, without taking it: `undefined` when nobody does (no lock file).
 * A lock left by a dead process reads `live: false`.
 *
 * @example
 * const holder = readDataDirLock('./.feedloop'); if (holder?.live) console.log(holder.url);
 */
export function readDataDirLock(dataDir: string): DataDirHolder | undefined {
  const record = readRecord(join(dataDir, LOCK_FILE));
  if (!record) return undefined;
  return { pid: record.owner?.pid, live: isLive(record), url: record.url };
}

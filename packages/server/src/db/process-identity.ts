/**
 * Who a pid is: a pid alone does not name a process for long. Once its process has died it stays
 * "alive" to `kill(pid, 0)` until its parent reaps it (a zombie: supervisors and container inits
 * may take their time), and later the kernel hands the number to another program. On Linux the
 * pid plus its start time (field 22 of `/proc/<pid>/stat`) and the boot it belongs to names one
 * process for good; elsewhere `kill(pid, 0)` is the best there is.
 */
import { readFileSync } from 'node:fs';

/** A process as recorded by whoever wants to recognize it later. */
export interface ProcessIdentity {
  readonly pid: number;
  /** Clock ticks after boot at which it started (Linux); absent where /proc is missing. */
  readonly start?: string;
  /** `/proc/sys/kernel/random/boot_id` at the time (Linux). */
  readonly boot?: string;
}

const PROC = '/proc';

/** Fields 3 (state) and 22 (start time) of `/proc/<pid>/stat`; `undefined` when there is no such process. */
function readStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`${PROC}/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0] ?? '', start: rest[19] ?? '' };
}

function hasProcfs(): boolean {
  return readStat(process.pid) !== undefined;
}

function bootId(): string | undefined {
  try {
    return readFileSync(`${PROC}/sys/kernel/random/boot_id`, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The identity of this process, to be written where others will check it.
 *
 * @example
 * writeFileSync(path, JSON.stringify(currentProcessIdentity())); // {"pid":4711,"start":"26811","boot":"…"}
 */
export function currentProcessIdentity(): ProcessIdentity {
  const stat = readStat(process.pid);
  const boot = bootId();
  return { pid: process.pid, ...(stat ? { start: stat.start } : {}), ...(boot ? { boot } : {}) };
}

/**
 * Whether the process an identity names is still running. Dead, zombie (exited, not yet reaped)
 * and dying processes are not; nor is a process that now has the pid but started at another time
 * or in another boot. An identity without a start time (written where /proc was missing) is
 * checked by pid alone; then only a zombie can be told from a live process.
 *
 * @example
 * if (!isProcessRunning(JSON.parse(readFileSync(lockPath, 'utf8')))) takeOver();
 */
export function isProcessRunning(identity: ProcessIdentity): boolean {
  if (!Number.isInteger(identity.pid) || identity.pid <= 0) return false;
  if (!hasProcfs()) {
    try {
      process.kill(identity.pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  const boot = bootId();
  if (identity.boot !== undefined && boot !== undefined && identity.boot !== boot) return false;
  const stat = readStat(identity.pid);
  if (!stat) return false;
  // Z: zombie, X/x: dead (being reaped).
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  return identity.start === undefined || identity.start === stat.start;
}

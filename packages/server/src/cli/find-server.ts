/**
 * Finds the running feedloop a command on this machine means, as a user would expect with no
 * flags: `--url` (else `FEEDLOOP_URL`) when given; else the server that holds the data folder's
 * lock, at the address it announced there; else `http://HOST:PORT` from the settings `feedloop
 * start` reads, when a feedloop answers there. With the server found through its data folder
 * comes its local admin credential, when this user may read it (db/local-admin-credential.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import { readDataDirLock } from '../db/data-dir-lock.js';
import { readLocalAdminCredential, type LocalAdminCredential } from '../db/local-admin-credential.js';
import { FeedloopError } from '../errors.js';

/** A running server, and how it was found. */
export interface FoundServer {
  url: string;
  /** How it was found, for messages: `--url`, `FEEDLOOP_URL`, `the data folder's lock` or `HOST and PORT`. */
  via: string;
  /** The process holding the data folder, when found through it. */
  pid?: number;
  /** Its local admin credential, for that same address only. */
  admin?: LocalAdminCredential;
}

/** How long a server that holds the folder but has not announced its address (it is starting) is waited for. */
const STARTING_WAIT_MS = 60_000;
const POLL_MS = 200;
/** How long the configured address is given to answer. */
const PROBE_MS = 1_000;

/** The address to reach a server listening on `host` from this machine (a wildcard host is reached on loopback). */
export function reachableUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** The folder's admin credential when it is for the server at `url`: the token never goes elsewhere. */
function credentialFor(dataDir: string, url: string): LocalAdminCredential | undefined {
  const admin = readLocalAdminCredential(dataDir);
  return admin && sameOrigin(admin.url, url) ? admin : undefined;
}

/**
 * The local admin credential of the server holding `dataDir` now, without waiting: `undefined`
 * when no live server has announced its address there, or this user may not read the credential.
 *
 * @example
 * const admin = runningServerCredential(config.dataDir); // then createKeyThroughServer(admin, …)
 */
export function runningServerCredential(dataDir: string): LocalAdminCredential | undefined {
  const holder = readDataDirLock(dataDir);
  return holder?.live && holder.url ? credentialFor(dataDir, holder.url) : undefined;
}

/** Whether a feedloop answers at `url` (its `/healthz`). */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(PROBE_MS) });
    const body = (await res.json().catch(() => undefined)) as { status?: unknown } | undefined;
    return res.ok && body?.status === 'ok';
  } catch {
    return false;
  }
}

/**
 * The running server, or `undefined` when none is given and none runs (then a command may start
 * its own). A live lock whose owner never announces an address (a feedloop from before
 * addresses were announced) is an error naming the process: the folder is taken, and where its
 * server listens is unknown.
 *
 * @example
 * const server = await findRunningServer(config, { url: values.url });
 */
export async function findRunningServer(
  config: Pick<Config, 'dataDir' | 'host' | 'port' | 'client'>,
  given: { url?: string | undefined },
): Promise<FoundServer | undefined> {
  const flagged = given.url ?? config.client.url;
  if (flagged) {
    const url = flagged.replace(/\/+$/, '');
    // The address of this folder's server given by hand: its credential still serves.
    const admin = runningServerCredential(config.dataDir);
    return { url, via: given.url ? '--url' : 'FEEDLOOP_URL', ...(admin && sameOrigin(admin.url, url) ? { admin } : {}) };
  }
  const until = Date.now() + STARTING_WAIT_MS;
  for (let holder = readDataDirLock(config.dataDir); holder?.live; holder = readDataDirLock(config.dataDir)) {
    if (holder.url) {
      const admin = credentialFor(config.dataDir, holder.url);
      return { url: holder.url, via: "the data folder's lock", ...(holder.pid ? { pid: holder.pid } : {}), ...(admin ? { admin } : {}) };
    }
    if (Date.now() > until) {
      throw new FeedloopError(
        'FEEDLOOP_ERR_DATA_DIR_LOCKED',
        `the data folder ${config.dataDir} is in use by feedloop process ${holder.pid ?? '(unknown)'}, which has not said where it listens; give its address with --url or FEEDLOOP_URL`,
      );
    }
    await sleep(POLL_MS);
  }
  const url = reachableUrl(config.host, config.port);
  return (await answers(url)) ? { url, via: 'HOST and PORT' } : undefined;
}

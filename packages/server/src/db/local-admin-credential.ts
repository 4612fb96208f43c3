/**
 * The local admin credential of a server on an embedded data folder: a random token the server
 * makes at each start, keeps in memory, and writes to `admin-credential.json` in its data folder,
 * readable by its owner only (mode 0600). A command run on the same machine, as the same user and
 * with the same FEEDLOOP_DATA_DIR (`feedloop demo`, `feedloop key create`), reads it and may
 * then create workspaces and keys through the server's `/v1/admin` routes, where it could not
 * open the database itself (a PGlite folder takes one process). The token grants what the
 * database files beside it do to whoever may read them, no more.
 *
 * The file names the address it is for, and the CLI sends the token there only: never to an
 * address given on the command line. The server removes the file when it stops; one left by a
 * killed server holds a token nobody accepts any more.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'admin-credential.json';
/** Owner read and write only. */
const OWNER_ONLY = 0o600;

/** A server's local admin credential. */
export interface LocalAdminCredential {
  /** The server's address the token is for. */
  url: string;
  /** The bearer token of the `/v1/admin` routes (`fl_admin_…`). */
  token: string;
}

/**
 * A new token for a server's `/v1/admin` routes.
 *
 * @example
 * const token = newLocalAdminToken(); // 'fl_admin_3q2…'
 */
export function newLocalAdminToken(): string {
  return `fl_admin_${randomBytes(32).toString('base64url')}`;
}

/**
 * Writes the credential into the data folder, owner-only from its first byte (created with mode
 * 0600 under a private name, then renamed into place); returns the function that removes it,
 * which leaves a later server's file alone.
 *
 * @example
 * const remove = writeLocalAdminCredential(config.dataDir, { url, token }); … remove();
 */
export function writeLocalAdminCredential(dataDir: string, credential: LocalAdminCredential): () => void {
  const path = join(dataDir, FILE);
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify(credential)}\n`, { mode: OWNER_ONLY, flag: 'wx' });
  renameSync(temp, path);
  return () => {
    if (readLocalAdminCredential(dataDir)?.token === credential.token) rmSync(path, { force: true });
  };
}

/**
 * The credential of the server on `dataDir`, or `undefined` when there is none or this user may
 * not read it.
 *
 * @example
 * const admin = readLocalAdminCredential(config.dataDir);
 */
export function readLocalAdminCredential(dataDir: string): LocalAdminCredential | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as Partial<LocalAdminCredential>;
    return typeof parsed.url === 'string' && typeof parsed.token === 'string' ? { url: parsed.url, token: parsed.token } : undefined;
  } catch {
    return undefined;
  }
}

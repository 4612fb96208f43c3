/**
 * Opens the database the configuration names: a Postgres server with `DATABASE_URL`, else PGlite
 * in the data folder, whose lock this process then holds until `close`.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';
import { openPglite } from './pglite-client.js';
import { ensurePgliteDataDir } from './pglite-initdb.js';
import type { MigrationReport } from './migrate.js';
import type { SqlClient } from './sql-client.js';

/**
 * An opened database; an embedded folder created now says which migrations its creation applied,
 * and an embedded one carries its folder's lock (the server announces its address in it).
 */
export type OpenedDatabase = SqlClient & { readonly appliedAtCreation?: MigrationReport['applied']; readonly dataDirLock?: DataDirLock };

/**
 * Opens and returns the database; closing it also releases the data folder lock.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_DATA_DIR_LOCKED` when another process holds the folder.
 * @example
 * const db = await openDatabase(loadConfig());
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'dataDir' | 'pgliteSharedBuffersMb' | 'statementProfile'>,
): Promise<OpenedDatabase> {
  if (config.databaseUrl) {
    // Imported here, not at the top: the embedded profile never loads the pg driver (~14 MB resident).
    const { openPostgres } = await import('./postgres-client.js');
    return openPostgres(config.databaseUrl, { max: config.databasePoolSize });
  }
  const lock = acquireDataDirLock(config.dataDir);
  try {
    const pgdata = join(config.dataDir, 'pgdata');
    // initdb's peak stays in the process that runs it: a child's, returned when it exits.
    const appliedAtCreation = await ensurePgliteDataDir(pgdata);
    const db = await openPglite(pgdata, { sharedBuffersMb: config.pgliteSharedBuffersMb, ...(config.statementProfile ? { statementProfile: config.statementProfile } : {}) });
    return {
      ...db,
      appliedAtCreation,
      dataDirLock: lock,
      close: async () => {
        try {
          await db.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}

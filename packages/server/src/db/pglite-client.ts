/**
 * The embedded database: PGlite, Postgres compiled to WebAssembly, in this process. One
 * connection, so statements are naturally serialized.
 *
 * PGlite executes on the event loop's own thread, and awaiting its answer resumes in a microtask:
 * a job of many statements (the pipeline's processing, a rescore run) would hold the loop from
 * its first statement to its last, and every request arriving meanwhile waited for all of it
 * (p99 of 500-850 ms at 50 connections). Each statement therefore first lets the loop run what
 * is waiting, so a request waits at most for the statement in progress: p99 74 ms in the same
 * run. The hop costs a few microseconds a statement.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB } from '../config.js';
import { limitWasmCompilationThreads, type PgliteMemoryOptions, pgliteStartParams } from './pglite-settings.js';
import { SET_UTC, type SqlClient, type SqlExecutor } from './sql-client.js';

/**
 * Opens PGlite on a data folder, or in memory when `dataDir` is undefined (tests), with the
 * memory settings of `pglite-settings.ts`. A folder without a database gets one from PGlite's
 * initdb in this process: `openDatabase` creates it in a child first (see `pglite-initdb.ts`).
 *
 * @example
 * const db = await openPglite('./.feedloop/data');
 */
export async function openPglite(
  dataDir: string | undefined,
  memory: PgliteMemoryOptions = { sharedBuffersMb: DEFAULT_PGLITE_SHARED_BUFFERS_MB },
): Promise<SqlClient> {
  const startParams = pgliteStartParams(memory);
  limitWasmCompilationThreads();
  const db = await PGlite.create(dataDir === undefined ? { startParams } : { dataDir, startParams });
  // Days are UTC days: the one connection runs in UTC, whatever the data folder's configuration.
  await db.exec(SET_UTC);
  type Ex = Pick<PGlite, 'query' | 'exec'>;
  const run = async <R>(ex: Ex, text: string, params?: readonly unknown[]): Promise<R[]> => {
    await nextTurn();
    return (await ex.query<R>(text, params as unknown[] | undefined)).rows;
  };
  const executor = (ex: Ex): SqlExecutor => ({
    query: (text, params) => run(ex, text, params),
    exec: async (script) => {
      await nextTurn();
      await ex.exec(script);
    },
  });
  return {
    dialect: 'pglite',
    ...executor(db),
    transaction: (fn, options) =>
      db.transaction(async (tx) => {
        if (options?.begin) await tx.exec(options.begin);
        return fn(executor(tx));
      }),
    close: () => db.close(),
  };
}

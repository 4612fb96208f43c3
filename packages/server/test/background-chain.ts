/**
 * Run in the embedded database's thread by pglite-lanes.test.ts (SqlClient.runInThread): a chain
 * of background transactions back to back, as a rescore run's are.
 */
import type { SqlClient } from '../src/db/sql-client.js';

/** This module's URL, for runInThread. */
export const BACKGROUND_CHAIN_MODULE = import.meta.url;

/**
 * Runs `count` background transactions one after another, each sleeping `seconds` in the
 * database; resolves with the wall-clock time each ended.
 */
export async function backgroundChain(db: SqlClient, count: number, seconds: number): Promise<number[]> {
  const ends: number[] = [];
  for (let i = 0; i < count; i++) {
    await db.transaction((tx) => tx.query('SELECT pg_sleep($1)', [seconds]), { background: true });
    ends.push(Date.now());
  }
  return ends;
}

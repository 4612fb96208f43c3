/**
 * What the database needs from feedloop beyond its own statements: a liveness probe, and on
 * PGlite, which has no autovacuum, vacuuming the tables whose rows live briefly.
 */
import type { SqlClient, SqlExecutor } from './sql-client.js';

/** Tables whose rows are short-lived or often rewritten (outboxes, dirty marks, open fingerprints, current votes, alert ticks). */
const CHURNING_TABLES = ['pipeline_pending', 'pipeline_effects', 'score_dirty', 'rollup_dirty', 'feedback_fingerprints', 'feedback_current_votes', 'alert_ticks'];

/**
 * Resolves when the database answers a trivial statement; throws (as the driver does) when it is
 * away. A failed job asks it to tell a database outage from a poison event.
 *
 * @example
 * await probeDatabase(db); // throws ECONNREFUSED while Postgres is down
 */
export async function probeDatabase(db: SqlExecutor): Promise<void> {
  await db.query('SELECT 1');
}

/**
 * PGlite: vacuums the churning tables, whose every row is deleted soon after it is written: with
 * no autovacuum their dead rows would stay forever and the sweep's scans slow with them. One
 * statement a table, so requests get their turn between them. Does nothing on Postgres.
 *
 * @example
 * await vacuumChurningTables(db);
 */
export async function vacuumChurningTables(db: SqlClient): Promise<void> {
  if (db.dialect !== 'pglite') return;
  for (const table of CHURNING_TABLES) await db.exec(`VACUUM ${table}`);
}

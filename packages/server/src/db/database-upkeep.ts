/**
 * What the database needs from feedloop beyond its own statements: a liveness probe, and on
 * PGlite, which has no autovacuum, vacuuming the tables whose rows live briefly.
 */
import type { SqlClient, SqlExecutor } from './sql-client.js';

/** Tables whose rows are short-lived or often rewritten (outboxes, dirty marks, open fingerprints, current votes, alert ticks). */
const CHURNING_TABLES = ['pipeline_pending', 'pipeline_effects', 'score_dirty', 'rollup_dirty', 'feedback_fingerprints', 'feedback_current_votes', 'alert_ticks'];
/**
 * The churning tables are vacuumed at most this often. Each VACUUM scans its table's indexes
 * whole, 30-140 ms of the one connection, and the sweep that asks for it runs every 5 s: 112 of
 * them took 4.9 s in the keep-up benchmark's 100 s. PGlite keeps no dead-row counts to vacuum by,
 * as autovacuum does (single-user mode collects no table statistics).
 */
const VACUUM_EVERY_MS = 30_000;
/** When each database was last vacuumed (performance.now()). */
const lastVacuum = new WeakMap<SqlClient, number>();

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
 * statement a table, so requests get their turn between them; at most every 30 s a database
 * ({@link VACUUM_EVERY_MS}). Does nothing on Postgres.
 *
 * @returns whether it vacuumed.
 * @example
 * await vacuumChurningTables(db); // true, then false until 30 s have passed
 */
export async function vacuumChurningTables(db: SqlClient, now = performance.now()): Promise<boolean> {
  if (db.dialect !== 'pglite') return false;
  const last = lastVacuum.get(db);
  if (last !== undefined && now - last < VACUUM_EVERY_MS) return false;
  lastVacuum.set(db, now);
  for (const table of CHURNING_TABLES) await db.exec(`VACUUM ${table}`);
  return true;
}

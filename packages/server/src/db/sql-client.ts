/**
 * The one database interface the store is written against. Two implementations, PGlite
 * (embedded default) and node-postgres (production), both speaking the Postgres dialect, so the
 * same SQL and migrations run on both and one test suite covers both.
 */

/**
 * The first statement of every connection: days are UTC days (rollups, live counters),
 * so a session never takes the server's or the database's default time zone.
 */
export const SET_UTC = "SET TimeZone = 'UTC'";

/** How a statement is run. */
export interface QueryOptions {
  /** A hot statement of fixed text (never built from values): prepared once a connection. */
  prepare?: boolean;
}

/** Runs SQL: plain statements with `$1` parameters. */
export interface SqlExecutor {
  /**
   * Runs one statement and returns its rows. `options.prepare` marks a hot statement of fixed
   * text: Postgres then parses and plans it once a connection, not on every call (planning the
   * writer's statement took as long as running it for a 15-event flush); PGlite ignores it.
   */
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** Which store a client talks to: PGlite in this process, or a Postgres server. */
export type SqlDialect = 'pglite' | 'postgres';

/** A database connection (PGlite) or pool (Postgres). */
export interface SqlClient extends SqlExecutor {
  /** Which engine this is: `pglite` (embedded, one process) or `postgres` (a server). */
  readonly dialect: SqlDialect;
  /**
   * Runs `fn` in one transaction, committing when it resolves and rolling back when it throws.
   * `options.begin` is a parameterless statement sent in the same round trip as `BEGIN` (e.g.
   * taking advisory locks), one round trip less on every transaction that starts with one.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options?: { begin?: string }): Promise<T>;
  /** Closes the connection or pool; pending work finishes first. */
  close(): Promise<void>;
}

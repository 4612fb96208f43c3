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
   * writer's statement took as long as running it for a 15-event flush); on PGlite too
   * (db/pglite-prepared.ts).
   */
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** How a transaction starts. */
export interface TransactionOptions {
  /**
   * A parameterless statement sent in the same round trip as `BEGIN` (e.g. taking advisory
   * locks), one round trip less on every transaction that starts with one.
   */
  begin?: string;
  /**
   * Background work (the pipeline's): on PGlite's one connection it starts only when no request's
   * statement or transaction waits, and it is not counted in `inFlight`. Ignored on Postgres.
   */
  background?: boolean;
  /**
   * With `background`: the pipeline's processing of committed events, which every live figure
   * waits on. On PGlite it goes before the other background transactions (rescores, rollups,
   * training batches, ANALYZE: upkeep, which may wait). Ignored on Postgres.
   */
  processing?: boolean;
}

/** Which store a client talks to: PGlite in this process, or a Postgres server. */
export type SqlDialect = 'pglite' | 'postgres';

/** A database connection (PGlite) or pool (Postgres). */
export interface SqlClient extends SqlExecutor {
  /** Which engine this is: `pglite` (embedded, one process) or `postgres` (a server). */
  readonly dialect: SqlDialect;
  /**
   * Runs `fn` in one transaction, committing when it resolves and rolling back when it throws.
   * See {@link TransactionOptions}.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * How many statements and transactions are running or waiting for the connection now (PGlite's
   * one connection; undefined on a Postgres pool). A long job asks it before its next transaction
   * to keep that transaction short while others want the connection (pipeline/batch-sizer.ts).
   */
  inFlight?(): number;
  /**
   * Calls `module`'s exported `fn(db, ...args)` in the database's own thread (PGlite only;
   * undefined elsewhere), where `db` is a client of that thread: its statements cross no thread
   * boundary, so a transaction of a dozen statements never waits between them for a busy event
   * loop. `module` is a file URL (`import.meta.url` of the module that exports `fn`); arguments and
   * result are plain data.
   */
  runInThread?<R>(module: string, fn: string, args: readonly unknown[]): Promise<R>;
  /**
   * The same database for heavy reads (exports, user contexts, insights, stats ranges): on PGlite's
   * one connection their statements wait while a request's statement waits, so a thumbs is not
   * held up behind a queue of export pages (db/pglite-thread.ts). Undefined on Postgres, whose
   * pool serves every statement alike; use {@link heavyReadClient}.
   */
  heavyReads?(): SqlClient;
  /** Closes the connection or pool; pending work finishes first. */
  close(): Promise<void>;
}

/**
 * The client heavy reads should use: `db`'s {@link SqlClient.heavyReads} where it has one (PGlite),
 * else `db` itself.
 *
 * @example
 * const rows = exportJsonl(heavyReadClient(db), workspaceId, request);
 */
export function heavyReadClient(db: SqlClient): SqlClient {
  return db.heavyReads?.() ?? db;
}

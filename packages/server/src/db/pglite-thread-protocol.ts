/**
 * The messages between the embedded database's thread (`pglite-thread.ts`) and its client
 * (`pglite-client.ts`). Plain data only: they cross threads by structured clone.
 */

/** What the thread is started with (`workerData`). */
export interface PgliteThreadInit {
  /** The data folder; undefined keeps the database in memory (tests). */
  dataDir: string | undefined;
  sharedBuffersMb: number;
  /** Where to write statement timings (db/statement-profile.ts); undefined: not timed. */
  statementProfile?: string | undefined;
  /** A file written by the `dump` request: an in-memory database starts as a copy of it (no initdb, no migrations to run). */
  loadDataDir?: string | undefined;
}

/**
 * A request to the thread; `id` pairs it with its reply. `heavy`: a heavy read's statement or
 * transaction (an export page...), which waits while a request's statement waits (pglite-thread.ts).
 */
export type PgliteRequest =
  /** `prepare`: a hot statement of fixed text, prepared once on the connection (pglite-prepared.ts). */
  | { id: number; op: 'query'; text: string; params: readonly unknown[] | undefined; tx?: number; prepare?: boolean; heavy?: boolean }
  | { id: number; op: 'exec'; script: string; tx?: number; heavy?: boolean }
  /** Waits for the database, opens a transaction (with `begin` run first) and answers its id; a background one waits for every other (a `processing` one for requests and heavy reads only). */
  | { id: number; op: 'begin'; begin?: string; background?: boolean; processing?: boolean; heavy?: boolean }
  | { id: number; op: 'commit' | 'rollback'; tx: number }
  /** Calls `module`'s export `fn(db, ...args)` in the thread, with a client of the thread's own (SqlClient.runInThread). */
  | { id: number; op: 'run'; module: string; fn: string; args: readonly unknown[] }
  /** Writes the whole database, as PGlite's uncompressed tarball of its folder, to the file `path`. */
  | { id: number; op: 'dump'; path: string }
  | { id: number; op: 'close' };

/** An error as it crossed the thread boundary: the message and Postgres's fields (`code` is the SQLSTATE). */
export interface PgliteErrorData {
  message: string;
  name?: string;
  fields: Record<string, string | number | undefined>;
}

/** The thread's answer to one request. */
export type PgliteReply =
  | { id: number; ok: true; rows?: unknown[]; tx?: number; result?: unknown }
  | { id: number; ok: false; error: PgliteErrorData };

/** What the thread says on its own: started, or failed to start. */
export type PgliteNotice = { ready: true } | { ready: false; error: PgliteErrorData };

/** The Postgres error fields kept when an error crosses the boundary. */
export const ERROR_FIELDS = ['code', 'detail', 'hint', 'constraint', 'table', 'column', 'schema', 'severity', 'position', 'where', 'routine'] as const;

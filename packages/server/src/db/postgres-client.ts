/**
 * The production database: a Postgres server through a node-postgres pool.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { SET_UTC, type QueryOptions, type SqlClient, type SqlExecutor } from './sql-client.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** Counts and sequence numbers come back as numbers, as PGlite returns them; both stay below 2^53. */
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID || oid === NUMERIC_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format),
};

/** Pool options a caller may set. */
export interface PostgresOptions {
  /** Connections in the pool; default 10. */
  max?: number;
  /** `search_path` for every connection: tests give each suite its own schema. */
  schema?: string;
}

/**
 * Opens a pool on a Postgres server.
 *
 * @example
 * const db = await openPostgres('postgres://postgres@127.0.0.1:5432/feedloop');
 */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<SqlClient> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    types,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    // Days are UTC days (rollups, live counters): every connection runs in UTC, whatever the
    // server's or the database's default. A SET rather than a startup option, which an `options`
    // parameter in the URL would replace; `onConnect` runs it before the pool hands the client out.
    onConnect: async (client: pg.ClientBase) => {
      await client.query(SET_UTC);
    },
  });
  // A pool reports idle-client errors (a server restart) here; queries then fail and are retried
  // by their callers, so an unhandled 'error' must not crash the process.
  pool.on('error', () => undefined);
  const run = async <R>(ex: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[], options?: QueryOptions): Promise<R[]> => {
    const values = params as unknown[] | undefined;
    const result = options?.prepare ? await ex.query({ name: statementName(text), text, values }) : await ex.query(text, values);
    return result.rows as R[];
  };
  const executor = (ex: pg.Pool | pg.PoolClient): SqlExecutor => ({
    query: (text, params, options) => run(ex, text, params, options),
    exec: async (script) => {
      await ex.query(script);
    },
  });
  return {
    dialect: 'postgres',
    ...executor(pool),
    async transaction(fn, options) {
      const client = await pool.connect();
      // A checked-out client has no pool listener: without this, a connection cut mid-transaction
      // (a server restart, pg_terminate_backend) is an unhandled 'error' that kills the process.
      let broken: Error | undefined;
      const onError = (err: Error): void => {
        broken = err;
      };
      client.on('error', onError);
      try {
        await client.query(options?.begin ? `BEGIN; ${options.begin}` : 'BEGIN');
        const result = await fn(executor(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken ??= rollbackError;
        });
        throw err;
      } finally {
        client.off('error', onError);
        // A broken client is discarded rather than handed to the next caller.
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

/** Names of prepared statements by their text: node-postgres prepares a name once a connection. */
const statementNames = new Map<string, string>();

/** A stable name for a statement's text (the same on every connection and process). */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `fl_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

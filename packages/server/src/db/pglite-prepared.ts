/**
 * Named prepared statements on PGlite, which has none of its own: `PGlite.query` parses and plans
 * every statement on every call. The pipeline's and the writer's statements are large CTEs whose
 * planning costs as much as running them for a small batch, and a transaction runs a dozen of
 * them, so a short transaction was mostly planning. Marked statements (`{ prepare: true }`, fixed
 * text) are parsed once per connection here and then only bound and executed, as node-postgres
 * does on a Postgres server; the thread plans them for their parameters each time
 * (`plan_cache_mode`, see pglite-thread.ts). Runs inside the database's thread.
 */
import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';

const { serialize } = protocol;

/** A statement prepared on the connection: its name and its parameters' type oids. */
interface Prepared {
  name: string;
  paramTypes: number[];
}

/** Statements prepared at most; past it, new texts run unprepared (fixed texts are few: this only bounds a misuse). */
const MAX_PREPARED = 500;
/** Postgres's `json` type oid: its binary format is its text's UTF-8 bytes (json_recv), so a JSON parameter can go as bytes. */
const JSON_OID = 114;
/**
 * From this length a `json` parameter goes to PGlite as its UTF-8 bytes, an ArrayBuffer (binary
 * format), not as a string: PGlite sizes a string parameter by walking it character by character,
 * twice, before encoding it (0.57-0.59 ms for a 130,000-character batch document against
 * 0.13-0.16 ms for `TextEncoder.encode` and a copy; docs/benchmarks.md, "Seventeenth session").
 * Below it the walk costs less than the allocation.
 */
const BYTES_FROM_LENGTH = 2_048;
const encoder = new TextEncoder();

/** "cached plan must not change result type" (SQLSTATE 0A000): a table changed under a prepared statement. */
const planChanged = (err: unknown): boolean => (err as { code?: string }).code === '0A000' && /cached plan/.test((err as Error).message);

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * The prepared statements of one PGlite connection.
 *
 * @example
 * const prepared = new PreparedStatements(db);
 * const { rows } = await prepared.query('SELECT * FROM responses WHERE id = $1', ['r1']);
 */
export class PreparedStatements {
  readonly #named = new Map<string, Prepared>();
  #next = 1;

  constructor(private readonly db: PGlite) {}

  /**
   * Runs `text` as a prepared statement, preparing it on first use. Safe inside a transaction: a
   * statement is prepared for the session, and one that fails to prepare is not kept.
   */
  query<R>(text: string, params: readonly unknown[] = []): Promise<Results<R>> {
    if (!this.#named.has(text) && this.#named.size >= MAX_PREPARED) return this.db.query<R>(text, params as unknown[]);
    return this.db._runExclusiveQuery(async () => {
      try {
        return await this.#run<R>(text, params);
      } catch (err) {
        // A table changed under the statement (a migration): prepare the text again, once. In a
        // transaction the error has aborted it, and the retry fails too: the first error is the one to tell.
        if (!planChanged(err)) throw err;
        await this.#forget(text);
        return this.#run<R>(text, params).catch(() => Promise.reject(err));
      }
    });
  }

  async #run<R>(text: string, params: readonly unknown[]): Promise<Results<R>> {
    const stmt = this.#named.get(text) ?? (await this.#prepare(text));
    const { serializers, parsers } = this.db;
    const values = params.map((p, i) => {
      if (p === null || p === undefined) return null;
      const type = stmt.paramTypes[i] as number;
      const serializer = serializers[type];
      const value: string = serializer ? serializer(p) : String(p);
      // A fresh encoding owns its whole buffer: PGlite copies a view's bytes out first, an ArrayBuffer not.
      return type === JSON_OID && value.length >= BYTES_FROM_LENGTH ? encoder.encode(value).buffer : value;
    });
    const messages = await this.db.execProtocolStream(
      concat([serialize.bind({ statement: stmt.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
      { syncToFs: false },
    );
    return parse.parseResults(messages, parsers)[0] as Results<R>;
  }

  async #prepare(text: string): Promise<Prepared> {
    const name = `fl_prepared_${this.#next++}`;
    const messages = await this.db.execProtocolStream(concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]), {
      syncToFs: false,
    });
    const stmt = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    this.#named.set(text, stmt);
    return stmt;
  }

  async #forget(text: string): Promise<void> {
    const stmt = this.#named.get(text);
    if (!stmt) return;
    this.#named.delete(text);
    await this.db.execProtocolStream(concat([serialize.close({ type: 'S', name: stmt.name }), serialize.sync()]), { syncToFs: false });
  }
}

/**
 * The embedded database's own thread: PGlite (Postgres compiled to WebAssembly) runs here, not on
 * the event loop that serves requests. Started by `openPglite` (pglite-client.ts), never imported.
 *
 * PGlite executes synchronously on the thread that calls it. On the API's thread every statement
 * stopped every request, so the pipeline had to cut its work into ~10 ms transactions that yielded
 * after each statement, and an event cost a dozen of them: a backlog drained at 17-140 events a
 * second (docs/benchmarks.md, "Embedded processing"). Here, the requests' thread parses, validates
 * and answers while this one runs SQL: the two cores both work, and a long statement delays only
 * the statements queued behind it.
 *
 * One connection: statements and transactions run one at a time, and the statements of an open
 * transaction go straight to it. Three lanes take it, each in arrival order:
 * - requests' statements and transactions (foreground) first;
 * - heavy reads' statements (exports, user contexts, insights, stats ranges: `heavy`) when no
 *   request waits, and not until a request's next statement has had {@link ANTICIPATE_MS} to
 *   arrive: a request is a chain of statements (its key, its consent, its write), and a heavy
 *   statement started between two of them would delay the whole chain (issue 22: a thumbs' p99
 *   went from 17-76 ms to 121-320 ms under 16 export loops, each of its three or four statements
 *   waiting for an export page);
 * - a background transaction (the pipeline's) when neither waits, the processing of committed
 *   events before upkeep (rescores, rollups, training batches, ANALYZE), and only once the messages
 *   already sent to the thread are taken in: the pipeline's jobs run in this thread (rescores,
 *   processing), and their transactions, chained by promises, would otherwise follow each other
 *   while requests' statements sat unread in the port (a rescore run's ten 100 ms transactions
 *   stopped every request for a second: docs/benchmarks.md, "Eleventh session").
 * A waiter of a later lane that has waited long enough goes first ({@link BACKGROUND_MAX_WAIT_MS},
 * {@link UPKEEP_MAX_WAIT_MS}, {@link HEAVY_MAX_WAIT_MS}), so a request waits at most for one
 * background transaction and no lane starves. A statement once started runs to its end: heavy
 * reads keep theirs short instead (export pages are sized to a time, store/export-stream.ts).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { PreparedStatements } from './pglite-prepared.js';
import { limitWasmCompilationThreads, pgliteStartParams } from './pglite-settings.js';
import { ERROR_FIELDS, type PgliteErrorData, type PgliteNotice, type PgliteReply, type PgliteRequest, type PgliteThreadInit } from './pglite-thread-protocol.js';
import { profileStatementsTo, timedStatement } from './statement-profile.js';
import { SET_UTC, type QueryOptions, type SqlClient, type SqlExecutor } from './sql-client.js';

const port = parentPort;
if (!port) throw new Error('pglite-thread.ts runs as a worker thread (see pglite-client.ts)');
const init = workerData as PgliteThreadInit;
profileStatementsTo(init.statementProfile);

/** An open transaction: its PGlite handle and how it ends (resolve commits, reject rolls back). */
interface OpenTx {
  tx: Transaction;
  end: { commit(): void; rollback(): void };
  /** Settles when PGlite has committed or rolled back. */
  ended: Promise<void>;
}

/** Rolls a transaction back without counting as a failure of it. */
const ROLLBACK = Symbol('rollback');

function errorData(err: unknown): PgliteErrorData {
  const e = (err ?? {}) as Record<string, unknown>;
  const fields: PgliteErrorData['fields'] = {};
  for (const f of ERROR_FIELDS) {
    const v = e[f];
    if (typeof v === 'string' || typeof v === 'number') fields[f] = v;
  }
  return { message: err instanceof Error ? err.message : String(err), ...(err instanceof Error ? { name: err.name } : {}), fields };
}

limitWasmCompilationThreads();
let db: PGlite;
try {
  const startParams = pgliteStartParams({ sharedBuffersMb: init.sharedBuffersMb });
  const loadDataDir = init.loadDataDir === undefined ? {} : { loadDataDir: new Blob([await readFile(init.loadDataDir)]) };
  db = await PGlite.create(init.dataDir === undefined ? { startParams, ...loadDataDir } : { dataDir: init.dataDir, startParams });
  // Days are UTC days: the one connection runs in UTC, whatever the data folder's configuration.
  await db.exec(SET_UTC);
  // Prepared statements (pglite-prepared.ts) keep their parse, never a generic plan: PGlite runs
  // no ANALYZE, and without statistics the writer's generic plan took 27 ms a flush, its custom
  // plan 4 ms. The write function sets its own (migration 0054): its plan is the same for any batch.
  await db.exec("SET plan_cache_mode = 'force_custom_plan'");
} catch (err) {
  port.postMessage({ ready: false, error: errorData(err) } satisfies PgliteNotice);
  process.exit(1);
}

const open = new Map<number, OpenTx>();
const prepared = new PreparedStatements(db);

/**
 * A processing transaction that has waited this long goes before the requests' statements: under
 * a steady stream of requests the pipeline would otherwise wait for a gap that never comes, and its
 * backlog (and every figure behind it) would grow without end. A request then waits at most for
 * one background transaction (aimed at pipeline/batch-sizer.ts's EMBEDDED_TRANSACTION_MS).
 */
const BACKGROUND_MAX_WAIT_MS = 20;

/**
 * An upkeep transaction (a background one that is not processing events) that has waited this
 * long goes before the requests' statements and the processing: upkeep waits for both, since every
 * live figure waits on processing (a rescore run's transactions, taking turns with processing's,
 * let a backlog build for seconds: docs/benchmarks.md, "Eleventh session"), but not without end.
 */
const UPKEEP_MAX_WAIT_MS = 100;

/**
 * A heavy read's statement that has waited this long goes before the requests' statements: heavy
 * reads are slow anyway and may wait, but not without end under a steady stream of requests.
 */
const HEAVY_MAX_WAIT_MS = 100;

/**
 * Before a heavy statement takes the connection, the thread first takes in the messages already
 * sent to it (a request's statement sent while the last statement ran is not seen before), and
 * after a request's statement it waits this long for that request's next one: a request is a
 * chain of statements, each sent within a fraction of a millisecond of the last one's reply, and
 * a heavy statement started between two of them would delay the whole chain (anticipatory
 * scheduling). A request's statement that arrives meanwhile takes the connection.
 */
const ANTICIPATE_MS = 2;

/**
 * A request's statement started within this long counts as one wanting the connection (see
 * `local.inFlight`): under a steady stream of single requests (one every few ms) the instant a
 * batch is sized rarely has one waiting, and the sizer, seeing the connection free, aimed its
 * transactions at 100 ms (ten of them back to back in a rescore run) while requests kept coming
 * (docs/benchmarks.md, "Eleventh session").
 */
const REQUEST_STREAM_MS = 50;

/** Which lane a statement or transaction waits in (see the file's comment); `background` is upkeep. */
type Lane = 'foreground' | 'heavy' | 'processing' | 'background';

interface Waiter {
  since: number;
  go: () => void;
}

/** Whether a statement or transaction holds the connection (or it is kept while a heavy statement waits its turn), and who waits for it, by lane. */
let held = false;
const waiters = { foreground: [] as Array<() => void>, heavy: [] as Waiter[], processing: [] as Waiter[], background: [] as Waiter[] };
/** The lane of the current holder. */
let holder: Lane = 'foreground';
/** While the connection is kept before a heavy statement: ends the wait early. */
let anticipating: (() => void) | undefined;

/** When a request's statement or transaction last asked for the connection. */
let lastRequestAt = -Infinity;

/** Resolves when the connection is this caller's, in its lane's turn (see the file's comment). */
function acquire(lane: Lane): Promise<void> {
  if (lane === 'foreground') lastRequestAt = performance.now();
  if (anticipating && lane === 'foreground') {
    anticipating();
    anticipating = undefined;
    holder = lane;
    return Promise.resolve();
  }
  if (!held && lane === 'foreground') {
    held = true;
    holder = lane;
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const go = () => {
      holder = lane;
      resolve();
    };
    if (lane === 'foreground') waiters.foreground.push(go);
    else waiters[lane].push({ since: performance.now(), go });
    if (!held) {
      held = true;
      anticipate(0);
    }
  });
}

const overdue = (w: Waiter | undefined, maxMs: number): boolean => w !== undefined && performance.now() - w.since >= maxMs;

/** Keeps the connection `ms` (0: until the messages already sent are taken in), then hands it on without waiting again. */
function anticipate(ms: number): void {
  const next = () => {
    anticipating = undefined;
    handOn(false);
  };
  if (ms > 0) {
    const timer = setTimeout(next, ms);
    anticipating = () => clearTimeout(timer);
  } else {
    const immediate = setImmediate(next);
    anticipating = () => clearImmediate(immediate);
  }
}

/** Hands the connection to the next waiter (see the file's comment for the order); `wait`: a heavy or background one only after {@link anticipate}. */
function handOn(wait: boolean): void {
  const next = overdue(waiters.processing[0], BACKGROUND_MAX_WAIT_MS)
    ? waiters.processing.shift()?.go
    : overdue(waiters.background[0], UPKEEP_MAX_WAIT_MS)
      ? waiters.background.shift()?.go
      : overdue(waiters.heavy[0], HEAVY_MAX_WAIT_MS)
        ? waiters.heavy.shift()?.go
        : waiters.foreground.shift();
  if (next) return next();
  if (wait && waiters.heavy.length > 0) return anticipate(holder === 'foreground' ? ANTICIPATE_MS : 0);
  if (wait && (waiters.processing.length > 0 || waiters.background.length > 0)) return anticipate(0);
  const later = waiters.heavy.shift()?.go ?? waiters.processing.shift()?.go ?? waiters.background.shift()?.go;
  if (later) later();
  else held = false;
}

/** Gives the connection up: the next waiter gets it. */
function release(): void {
  handOn(true);
}

/** Runs `fn` holding the connection. */
async function holding<T>(lane: Lane, fn: () => Promise<T>): Promise<T> {
  await acquire(lane);
  try {
    return await fn();
  } finally {
    release();
  }
}

/** Opens a transaction; resolves once it holds the connection (and ran `begin`). */
async function begin(id: number, beginSql: string | undefined, lane: Lane): Promise<void> {
  await acquire(lane);
  return new Promise<void>((started, failed) => {
    let end!: OpenTx['end'];
    const decided = new Promise<void>((commit, rollback) => {
      end = { commit, rollback: () => rollback(ROLLBACK) };
    });
    const ended = db
      .transaction(async (tx) => {
        if (beginSql) await tx.exec(beginSql);
        open.set(id, { tx, end, ended });
        started();
        await decided;
      })
      .then(() => undefined);
    // A transaction that never started (BEGIN or `begin` failed) reports to its opener.
    ended.catch((err: unknown) => {
      if (!open.has(id)) failed(err);
    });
    ended.then(release, release);
  });
}

/** Statements of this thread's own code: straight to PGlite, through the lanes as requests' are. */
function localExecutor(tx: Transaction | undefined): SqlExecutor {
  const run = async <R>(text: string, params: readonly unknown[] | undefined, options: QueryOptions | undefined): Promise<R[]> =>
    (await timedStatement(text, () => (options?.prepare ? prepared.query<R>(text, params) : (tx ?? db).query<R>(text, params as unknown[] | undefined)))).rows;
  return {
    query: (text, params, options) => (tx ? run(text, params, options) : holding('foreground', () => run(text, params, options))),
    exec: async (script) => {
      if (tx) await tx.exec(script);
      else await holding('foreground', () => db.exec(script));
    },
  };
}

/** The client that functions run in this thread get (SqlClient.runInThread). */
const local: SqlClient = {
  dialect: 'pglite',
  ...localExecutor(undefined),
  // Requests waiting for the connection, or one lately (a stream of them): what a batch sizer
  // running here shortens its transactions for.
  inFlight: () => waiters.foreground.length + (performance.now() - lastRequestAt < REQUEST_STREAM_MS ? 1 : 0),
  transaction: (fn, options) =>
    holding(laneOf(options ?? {}), () =>
      db.transaction(async (tx) => {
        if (options?.begin) await tx.exec(options.begin);
        return fn(localExecutor(tx));
      }),
    ),
  close: () => Promise.reject(new Error('the database closes with its thread')),
};

/** The lane of a request's statement or transaction. */
const laneOf = (req: { heavy?: boolean; background?: boolean; processing?: boolean }): Lane =>
  req.background ? (req.processing ? 'processing' : 'background') : req.heavy ? 'heavy' : 'foreground';

async function handle(req: PgliteRequest): Promise<Omit<Extract<PgliteReply, { ok: true }>, 'id' | 'ok'>> {
  switch (req.op) {
    case 'query': {
      const params = req.params as unknown[] | undefined;
      const ex = req.tx === undefined ? db : txOf(req.tx).tx;
      const run = () => (req.prepare ? prepared.query(req.text, params) : ex.query(req.text, params));
      return { rows: (await (req.tx === undefined ? holding(laneOf(req), run) : run())).rows };
    }
    case 'exec':
      if (req.tx !== undefined) await txOf(req.tx).tx.exec(req.script);
      else await holding(laneOf(req), () => db.exec(req.script));
      return {};
    case 'begin':
      await begin(req.id, req.begin, laneOf(req));
      return { tx: req.id };
    case 'commit':
    case 'rollback': {
      const t = txOf(req.tx);
      open.delete(req.tx);
      if (req.op === 'commit') t.end.commit();
      else t.end.rollback();
      try {
        await t.ended;
      } catch (err) {
        if (err !== ROLLBACK) throw err;
      }
      return {};
    }
    case 'run': {
      const exported = ((await import(req.module)) as Record<string, unknown>)[req.fn];
      if (typeof exported !== 'function') throw new Error(`${req.module} exports no function ${req.fn}`);
      return { result: await (exported as (db: SqlClient, ...args: unknown[]) => Promise<unknown>)(local, ...req.args) };
    }
    case 'dump': {
      const tarball = await holding('foreground', () => db.dumpDataDir('none'));
      await writeFile(req.path, new Uint8Array(await tarball.arrayBuffer()));
      return {};
    }
    case 'close':
      await holding('background', () => db.close());
      return {};
  }
}

function txOf(id: number): OpenTx {
  const t = open.get(id);
  if (!t) throw new Error(`no open transaction ${id} on the embedded database`);
  return t;
}

port.on('message', (req: PgliteRequest) => {
  handle(req).then(
    (ok) => {
      port.postMessage({ id: req.id, ok: true, ...ok } satisfies PgliteReply);
      if (req.op === 'close') port.close();
    },
    (err: unknown) => port.postMessage({ id: req.id, ok: false, error: errorData(err) } satisfies PgliteReply),
  );
});
port.postMessage({ ready: true } satisfies PgliteNotice);

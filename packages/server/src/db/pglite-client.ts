/**
 * The embedded database's client: PGlite runs in a thread of its own (`pglite-thread.ts`), and
 * this side sends it statements. One connection, so statements and transactions are serialized
 * in arrival order; a transaction's statements go straight to it.
 *
 * Why a thread: see pglite-thread.ts. What it costs: a statement crosses the thread boundary
 * twice (a structured clone of its parameters and of its rows, ~50-100 µs together), which the
 * requests' thread gets back many times over by never running the database itself.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB } from '../config.js';
import type { PgliteMemoryOptions } from './pglite-settings.js';
import type { PgliteErrorData, PgliteNotice, PgliteReply, PgliteRequest, PgliteThreadInit } from './pglite-thread-protocol.js';
import type { QueryOptions, SqlClient, SqlExecutor } from './sql-client.js';

/**
 * Starts the thread: the compiled `.js` beside this file from `dist/`, else the `.ts` (tests),
 * through tsx registered inside the thread (Node 20 does not apply `--import` hooks to a worker).
 */
function startThread(workerData: PgliteThreadInit): Worker {
  const js = fileURLToPath(new URL('./pglite-thread.js', import.meta.url));
  if (existsSync(js)) return new Worker(js, { workerData });
  // The package's `import` entry: `require.resolve` names its `require` twin beside it.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const ts = new URL('./pglite-thread.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(ts)}); });`, { eval: true, workerData });
}

/** Rebuilds an error of the thread as an Error with Postgres's fields (`code`...), as the drivers report them. */
function toError(data: PgliteErrorData): Error {
  const err = Object.assign(new Error(data.message), data.fields);
  if (data.name) err.name = data.name;
  return err;
}

type Request = PgliteRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** The embedded database's client: a SqlClient that can also write the whole database to one file. */
export interface PgliteClient extends SqlClient {
  /**
   * Writes the whole database (PGlite's tarball of its folder, uncompressed) to `path`; an
   * in-memory database opened with `{ loadDataDir: path }` starts as a copy of it. Tests open
   * every suite's database from one migrated copy: initdb and 49 migrations cost ~2 s an open.
   */
  dumpTo(path: string): Promise<void>;
}

/**
 * Opens PGlite in its own thread on a data folder, or in memory when `dataDir` is undefined
 * (tests), with the memory settings of `pglite-settings.ts`. A folder without a database gets one
 * from PGlite's initdb in that thread: `openDatabase` creates it in a child process first (see
 * `pglite-initdb.ts`). An in-memory database starts empty, or as a copy of the file `loadDataDir`
 * written by {@link PgliteClient.dumpTo}.
 *
 * @example
 * const db = await openPglite('./.feedloop/data');
 * await db.query('SELECT 1');
 */
export async function openPglite(
  dataDir: string | undefined,
  memory: PgliteMemoryOptions = { sharedBuffersMb: DEFAULT_PGLITE_SHARED_BUFFERS_MB },
  start: { loadDataDir?: string } = {},
): Promise<PgliteClient> {
  const worker = startThread({ dataDir, sharedBuffersMb: memory.sharedBuffersMb, statementProfile: memory.statementProfile, loadDataDir: start.loadDataDir });
  const pending = new Map<number, { resolve(reply: Extract<PgliteReply, { ok: true }>): void; reject(err: Error): void }>();
  /** Statements and foreground transactions sent and not finished, outside a transaction's own statements. */
  let inFlight = 0;
  let nextId = 1;
  let gone: Error | undefined;

  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the embedded database's thread exited during start-up (code ${code})`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (notice: PgliteNotice) => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      if (notice.ready) resolve();
      else reject(toError(notice.error));
    });
  });

  const fail = (err: Error) => {
    gone ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('message', (reply: PgliteReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.ok) p.resolve(reply);
    else p.reject(toError(reply.error));
  });
  // As a lost connection is reported (SQLSTATE 08006): every caller then sees the database unavailable (write-failure.ts).
  const lost = (why: string) => Object.assign(new Error(`the embedded database is closed: ${why}`), { code: '08006' });
  worker.on('error', (err) => fail(Object.assign(lost(err.message), { cause: err })));
  worker.on('exit', (code) => fail(lost(`its thread exited (code ${code})`)));

  const send = (req: Request): Promise<Extract<PgliteReply, { ok: true }>> => {
    if (gone) return Promise.reject(gone);
    const id = nextId++;
    return new Promise<Extract<PgliteReply, { ok: true }>>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...req, id } as PgliteRequest);
    });
  };
  /** Sends a statement or transaction of its own: counted in {@link inFlight} until `done` settles. */
  const counted = async <T>(done: () => Promise<T>): Promise<T> => {
    inFlight++;
    try {
      return await done();
    } finally {
      inFlight--;
    }
  };

  /**
   * Statements outside a transaction (`tx` undefined) or in one. `heavy`: a heavy read's, sent in
   * the thread's heavy lane and not counted in {@link inFlight} (what inFlight tells the pipeline
   * is that a request waits, and a heavy read may wait).
   */
  const executor = (tx: number | undefined, heavy = false): SqlExecutor => {
    const flags = { ...(tx === undefined ? {} : { tx }), ...(heavy ? { heavy } : {}) };
    const run = <T>(done: () => Promise<T>) => (tx === undefined && !heavy ? counted(done) : done());
    return {
      query: <R>(text: string, params?: readonly unknown[], options?: QueryOptions) =>
        run(async () => (await send({ op: 'query', text, params, ...flags, ...(options?.prepare ? { prepare: true } : {}) })).rows as R[]),
      exec: (script) => run(async () => void (await send({ op: 'exec', script, ...flags }))),
    };
  };

  const client = (heavy: boolean): PgliteClient => ({
    dialect: 'pglite',
    ...executor(undefined, heavy),
    inFlight: () => inFlight,
    heavyReads: () => heavyClient,
    runInThread: async <R>(module: string, fn: string, args: readonly unknown[]) => (await send({ op: 'run', module, fn, args })).result as R,
    transaction: (fn, options) => {
      const background = options?.background === true;
      const run = async () => {
        const { tx } = await send({
          op: 'begin',
          ...(options?.begin ? { begin: options.begin } : {}),
          ...(background ? { background, ...(options?.processing === true ? { processing: true } : {}) } : heavy ? { heavy } : {}),
        });
        if (tx === undefined) throw new Error('the embedded database opened no transaction');
        let result;
        try {
          result = await fn(executor(tx));
        } catch (err) {
          await send({ op: 'rollback', tx }).catch(() => undefined);
          throw err;
        }
        await send({ op: 'commit', tx });
        return result;
      };
      return background || heavy ? run() : counted(run);
    },
    dumpTo: async (path) => void (await send({ op: 'dump', path })),
    async close() {
      if (gone) return;
      await send({ op: 'close' });
      await new Promise<void>((resolve) => {
        if (gone) resolve();
        else worker.once('exit', () => resolve());
      });
    },
  });
  const heavyClient = client(true);
  return client(false);
}

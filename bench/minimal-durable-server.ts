/**
 * The issue-8 baseline "minimal durable server": Fastify + each request body inserted into a
 * one-index table (bench/minimal-table.ts) by a plain group commit. Requests that arrive while a
 * commit is in flight wait and share the next one (one multi-row `INSERT`, i.e. one transaction);
 * each request is answered after the commit that holds its rows. Nothing else: no auth, no
 * validation beyond Fastify's JSON parsing, no derived columns. It is what this machine and this
 * store allow an HTTP ingest server to do, so feedloop's ratio to it says what feedloop's own
 * work costs.
 *
 * Run as a child process by the benchmarks:
 *   node --import tsx bench/minimal-durable-server.ts <port> postgres <database url>
 *   node --import tsx bench/minimal-durable-server.ts <port> pglite <data folder>
 * Routes: `POST /v1/feedback` (one event a body, 202), `POST /v1/feedback/batch`
 * (`{ events: [...] }`, 207), `GET /healthz`.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import Fastify from 'fastify';
import pg from 'pg';
import { MINIMAL_INSERT, MINIMAL_TABLE_DDL } from './minimal-table.js';

/** Inserts one group's rows in one statement (autocommit: one transaction). */
type InsertRows = (ids: string[], bodies: string[]) => Promise<void>;

interface Waiter {
  ids: string[];
  bodies: string[];
  done: (err?: unknown) => void;
}

/** The part of feedloop's `SqlClient` the baseline uses. */
interface PgliteLike {
  query(text: string, params?: readonly unknown[]): Promise<unknown[]>;
  exec(script: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * PGlite in `dataDir` through feedloop's build (`packages/server/dist`: `loadConfig` +
 * `openDatabase`), imported at run time so the baseline follows whatever settings the embedded
 * profile uses; plain `PGlite.create` when there is no build.
 */
async function openLikeFeedloop(dataDir: string): Promise<PgliteLike> {
  const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../packages/server/dist');
  try {
    const { loadConfig } = (await import(pathToFileURL(join(dist, 'config.js')).href)) as { loadConfig: (env: Record<string, string>) => unknown };
    const { openDatabase } = (await import(pathToFileURL(join(dist, 'db/open-database.js')).href)) as { openDatabase: (c: unknown) => Promise<PgliteLike> };
    return await openDatabase(loadConfig({ FEEDLOOP_DATA_DIR: dataDir }));
  } catch (err) {
    process.stderr.write(`minimal server: feedloop's build not usable (${String(err)}); PGlite with its defaults\n`);
    const db = await PGlite.create({ dataDir });
    return { query: async (t, p) => (await db.query(t, p as unknown[])).rows, exec: async (s) => void (await db.exec(s)), close: () => db.close() };
  }
}

/** Opens the store, creates the table and returns its insert and close. */
async function openStore(kind: string, target: string): Promise<{ insert: InsertRows; close: () => Promise<void> }> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    await client.query(MINIMAL_TABLE_DDL);
    return { insert: async (ids, bodies) => void (await client.query(MINIMAL_INSERT, [ids, bodies])), close: () => client.end() };
  }
  if (kind === 'pglite') {
    // Opened exactly as the embedded profile opens it (feedloop's built openDatabase: same PGlite
    // settings, e.g. its memory), so the ratio measures feedloop's own work, not its settings.
    const db = await openLikeFeedloop(target);
    await db.exec(MINIMAL_TABLE_DDL);
    return { insert: async (ids, bodies) => void (await db.query(MINIMAL_INSERT, [ids, bodies])), close: () => db.close() };
  }
  throw new Error(`unknown store ${kind}: postgres or pglite`);
}

/** A plain group commit: one commit in flight; whatever arrives meanwhile goes into the next. */
function groupCommit(insert: InsertRows): (ids: string[], bodies: string[]) => Promise<void> {
  let pending: Waiter[] = [];
  let flushing = false;
  const flush = async (): Promise<void> => {
    flushing = true;
    while (pending.length > 0) {
      const group = pending;
      pending = [];
      try {
        await insert(
          group.flatMap((w) => w.ids),
          group.flatMap((w) => w.bodies),
        );
        for (const w of group) w.done();
      } catch (err) {
        for (const w of group) w.done(err);
      }
    }
    flushing = false;
  };
  return (ids, bodies) =>
    new Promise<void>((resolve, reject) => {
      pending.push({ ids, bodies, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!flushing) void flush();
    });
}

type WireEvent = { id: string } & Record<string, unknown>;

async function main(): Promise<void> {
  const [port, kind, target] = process.argv.slice(2);
  if (!port || !kind || !target) throw new Error('usage: minimal-durable-server.ts <port> <postgres|pglite> <url|folder>');
  const store = await openStore(kind, target);
  const commit = groupCommit(store.insert);
  const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.post('/v1/feedback', async (req, reply) => {
    const event = req.body as WireEvent;
    await commit([event.id], [JSON.stringify(event)]);
    return reply.code(202).send({ id: event.id, status: 'accepted' });
  });
  app.post('/v1/feedback/batch', async (req, reply) => {
    const { events } = req.body as { events: WireEvent[] };
    await commit(
      events.map((e) => e.id),
      events.map((e) => JSON.stringify(e)),
    );
    return reply.code(207).send({ results: events.map((e) => ({ id: e.id, status: 'accepted' })) });
  });
  await app.listen({ port: Number(port), host: '127.0.0.1' });
  const stop = (): void =>
    void app
      .close()
      .then(() => store.close())
      .then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

await main();

/**
 * Test harness: the databases every store and API suite loops over (PGlite in memory, and the
 * real Postgres server in a schema of its own per suite), and an app wired to one of them.
 *
 * Postgres is `TEST_DATABASE_URL` (default the machine's 127.0.0.1:5432/test). When it does not
 * answer: with CI=true that is a failure; elsewhere its suites are skipped with a loud warning.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig, type Config } from '../src/config.js';
import { loadMigrations, migrate, type Migration } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite-client.js';
import { openPostgres } from '../src/db/postgres-client.js';
import type { SqlClient } from '../src/db/sql-client.js';
import { buildApp } from '../src/http/app.js';
import type { AppServices } from '../src/http/services.js';
import { createServices, openSink } from '../src/server.js';
import { createApiKey } from '../src/store/api-keys.js';
import { createWorkspace } from '../src/store/workspaces.js';

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const IN_CI = process.env.CI === 'true';
/** PGlite's version, from its package.json (which its exports do not name): a dump is PGlite's own format. */
const PGLITE_VERSION = (() => {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pkg = join(entry.slice(0, entry.lastIndexOf('/dist/')), 'package.json');
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
})();

async function answers(check: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await check();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Whether a service is reachable; in CI an unreachable service throws (the suite fails), on a
 * laptop it warns loudly and the caller skips.
 */
export async function serviceAvailable(name: string, check: () => Promise<unknown>): Promise<boolean> {
  const problem = await answers(check);
  if (problem === undefined) return true;
  if (IN_CI) throw new Error(`${name} is required in CI but did not answer: ${problem}`);
  console.warn(`\n*** SKIPPING ${name} TESTS: ${name} did not answer (${problem}). Start it to run them. ***\n`);
  return false;
}

const postgresUp = await serviceAvailable('Postgres', async () => {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2_000 });
  await client.connect();
  await client.end();
});

/** Whether the machine's Redis answers (a failure in CI, a loud skip elsewhere). */
export const redisUp = await serviceAvailable('Redis', async () => {
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2_000 });
  try {
    await r.connect();
    await r.ping();
  } finally {
    r.disconnect();
  }
});

/**
 * Runs `fn` on a fresh client of `connectionString` (default the test Postgres), then closes it:
 * for creating and dropping databases, and for reading what child processes wrote.
 */
export async function withPgClient<T>(fn: (c: pg.Client) => Promise<T>, connectionString = POSTGRES_URL): Promise<T> {
  const c = new pg.Client({ connectionString });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A database for one suite; `close` drops everything it made. */
export interface TestDatabase {
  db: SqlClient;
  close(): Promise<void>;
}

/** One backend a suite runs against. */
export interface Backend {
  name: 'pglite' | 'postgres';
  available: boolean;
  open(): Promise<TestDatabase>;
}

/**
 * A fresh Postgres schema named for this suite, migrated with `migrations` (default all of them;
 * an upgrade test passes the older ones).
 */
export async function openPostgresSchema(migrations?: Migration[]): Promise<TestDatabase> {
  const schema = `fl_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const db = await openPostgres(POSTGRES_URL, { schema, max: 8 });
  await migrate(db, migrations);
  return {
    db,
    async close() {
      // A test may have closed the pool already to simulate an outage.
      await db.close().catch(() => undefined);
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

let template: Promise<string> | undefined;

/**
 * The file every suite's in-memory PGlite starts from: a database migrated once and dumped
 * (`PgliteClient.dumpTo`), named by a hash of the migrations and PGlite's version, so a changed
 * migration makes a new one. Opening a copy takes ~0.4 s where initdb and migrating took ~2.5 s,
 * and the suites open a hundred-odd. Written to a temporary name and renamed: suites in parallel
 * processes may make it at once.
 */
export function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const hash = createHash('sha256').update(PGLITE_VERSION);
    for (const m of loadMigrations()) hash.update(`${m.version}\0${m.sql}\0`);
    const file = join(tmpdir(), `feedloop-test-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
    if (existsSync(file)) return file;
    const db = await openPglite(undefined);
    try {
      await migrate(db);
      const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
      await db.dumpTo(partial);
      renameSync(partial, file);
    } finally {
      await db.close();
    }
    return file;
  })();
  return template;
}

/** The backends every store and API suite loops over. */
export const BACKENDS: Backend[] = [
  {
    name: 'pglite',
    available: true,
    async open() {
      const db = await openPglite(undefined, undefined, { loadDataDir: await pgliteTemplate() });
      await migrate(db);
      return { db, close: () => db.close().catch(() => undefined) };
    },
  },
  { name: 'postgres', available: postgresUp, open: openPostgresSchema },
];

/** An app on a test database with one workspace and its keys. */
export interface TestApp {
  app: FastifyInstance;
  services: AppServices;
  db: SqlClient;
  workspaceId: string;
  secretKey: string;
  publicKey: string;
  /** Headers with the secret key. */
  auth: { authorization: string };
  /** Makes another workspace with its own secret key. */
  otherWorkspace(): Promise<{ workspaceId: string; secretKey: string }>;
  close(): Promise<void>;
}

/**
 * Builds an app on a database (not listening; use `app.inject`).
 *
 * @example
 * const t = await startTestApp(await backend.open());
 * await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload: {...} });
 */
export async function startTestApp(database: TestDatabase, env: Record<string, string> = {}, options: { worker?: boolean; adminToken?: string } = {}): Promise<TestApp> {
  // A Redis prefix of its own: suites share one Redis, and must never share queues or counters.
  const config: Config = loadConfig({
    LOG_LEVEL: 'silent',
    FEEDLOOP_KEY_CACHE_SECONDS: '0',
    FEEDLOOP_REDIS_PREFIX: `fltest-${randomBytes(6).toString('hex')}`,
    ...env,
  });
  const { db } = database;
  const makeWorkspace = async () => {
    // implicitConsent 'assumed': the suites send implicit signals without a consent step
    // (issue 11 makes new workspaces 'required'); privacy tests set it themselves.
    const { workspace } = await createWorkspace(db, { name: `ws-${randomBytes(4).toString('hex')}`, settings: { implicitConsent: 'assumed' } });
    const secret = await createApiKey(db, workspace.id, 'secret');
    return { workspaceId: workspace.id, secretKey: secret.key };
  };
  const main = await makeWorkspace();
  const pub = await createApiKey(db, main.workspaceId, 'public');
  const sink = await openSink(config);
  const { services, close } = createServices(config, db, sink ? { sink } : {});
  if (options.worker) await services.pipeline.startWorker();
  const app = await buildApp(services, { logger: false, ...(options.adminToken ? { adminToken: options.adminToken } : {}) });
  await app.ready();
  return {
    app,
    services,
    db,
    ...main,
    publicKey: pub.key,
    auth: { authorization: `Bearer ${main.secretKey}` },
    otherWorkspace: makeWorkspace,
    async close() {
      await app.close();
      await close();
      await database.close();
    },
  };
}

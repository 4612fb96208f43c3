/**
 * The benchmarks' Postgres: a fresh database per run on a loopback server (dropped afterwards,
 * and on Ctrl-C), and one-off connections to it.
 */
import pg from 'pg';
import { LOOPBACK, sleep, token } from './bench-server.js';

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The Postgres server the benchmarks use; only a loopback server is accepted. */
export function adminUrl(): string {
  const url = new URL(process.env.BENCH_DATABASE_URL?.trim() || DEFAULT_ADMIN_URL);
  if (url.hostname !== LOOPBACK && url.hostname !== 'localhost') throw new Error(`BENCH_DATABASE_URL must point at ${LOOPBACK}, not ${url.hostname}`);
  url.hostname = LOOPBACK;
  return url.toString();
}

/** Databases made and not yet dropped; dropped on Ctrl-C too. */
const live = new Set<FreshDatabase>();
let interruptHooked = false;

function dropOnInterrupt(): void {
  if (interruptHooked) return;
  interruptHooked = true;
  process.once('SIGINT', () => {
    const drops = [...live].map((db) => db.drop().catch(() => undefined));
    void Promise.race([Promise.all(drops), sleep(10_000)]).then(() => process.exit(130));
  });
}

/** A database made for one run; `drop()` removes it (and kills its connections). */
export interface FreshDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Creates `fl_bench_<random>` on the benchmark server. */
export async function createFreshDatabase(): Promise<FreshDatabase> {
  const admin = adminUrl();
  const name = `fl_bench_${token()}`;
  await withClient(admin, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(admin);
  url.pathname = `/${name}`;
  let dropped = false;
  const db: FreshDatabase = {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      live.delete(db);
      await withClient(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
  live.add(db);
  dropOnInterrupt();
  return db;
}

/**
 * Experiment knob `BENCH_ANALYZE=1`: gives the planner statistics after the warm-up (a fresh
 * database has none until autovacuum's first analyze, about a minute in), to show how much of a
 * figure is due to plans chosen without them. Off by default: the figures are for a fresh database.
 */
export async function analyzeIfAsked(url: string): Promise<boolean> {
  if (process.env.BENCH_ANALYZE !== '1') return false;
  await withClient(url, (c) => c.query('ANALYZE feedback_events; ANALYZE responses'));
  return true;
}

/** Runs `fn` on a fresh connection, closed afterwards. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  // A forced drop (Ctrl-C) ends the connection; the pending query then fails, which is enough.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

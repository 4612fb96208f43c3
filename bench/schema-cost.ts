/**
 * Measures what the events schema costs the flush, on Postgres (docs/schema.md):
 * 1. the flush (writeFeedbackBatch) at 1, 50 and 1,000 events with STORED rows already stored,
 *    timed, and one `EXPLAIN (ANALYZE, BUFFERS)` of its INSERT at each size;
 * 2. `COPY` of the same rows into a copy of today's `feedback_events` (all its indexes), into
 *    the copy minus one index at a time, and into a lean one-index table;
 * 3. the same COPY into the populated table itself.
 * Every figure is printed next to its same-run baseline.
 *
 * With SCHEMA_BASE_DIR=<a checkout of an earlier commit> the flush is measured on both schemas
 * (each its own database, that tree's migrations and writer) in one run, flushes alternating
 * A, B, A, B, so that a busy machine slows both alike; the ratio is the figure.
 *
 * Run: node --import tsx bench/schema-cost.ts   Knobs: BENCH_DATABASE_URL, SCHEMA_STORED (100000), SCHEMA_COPY (50000), SCHEMA_BASE_DIR
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import copyStreams from 'pg-copy-streams';
import { contentFingerprint, resolveWorkspaceSettings, sourceOfType, voteSlot, type FeedbackEvent } from '../packages/core/src/index.js';
import { loadMigrations, migrate } from '../packages/server/src/db/migrate.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import type { SqlClient, SqlExecutor } from '../packages/server/src/db/sql-client.js';
import { writeFeedbackBatch, type FeedbackSubmission } from '../packages/server/src/store/feedback-writer.js';
import {
  dec,
  envInt,
  int,
  isMain,
  token,
} from './bench-server.js';
import { createFreshDatabase, withClient } from './bench-database.js';
import { makeEvent, type ResponseRef, type WireEvent } from './bench-workload.js';

const RESPONSES = 1_000;
const settings = resolveWorkspaceSettings({});

/** A client whose transactions EXPLAIN the statement that inserts into feedback_events (once). */
function explaining(db: SqlClient, plans: string[]): SqlClient {
  const wrap = (tx: SqlExecutor): SqlExecutor => ({
    exec: (s) => tx.exec(s),
    async query<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
      if (!/INSERT INTO feedback_events/.test(text)) return tx.query<R>(text, params);
      const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
      plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      return [];
    },
  });
  return { ...db, dialect: db.dialect, query: (t, p) => db.query(t, p), exec: (s) => db.exec(s), close: () => db.close(), transaction: (fn, o) => db.transaction((tx) => fn(wrap(tx)), o) };
}

function submissions(ws: string, from: number, n: number, runId: string, responses: ResponseRef[]): FeedbackSubmission[] {
  const at = new Date().toISOString();
  return Array.from({ length: n }, (_, i) => ({
    workspaceId: ws,
    settings,
    event: makeEvent(from + i, runId, responses, at) as unknown as FeedbackEvent & { id: string },
    trustClientTime: true,
    verified: true,
    editDistance: null,
  }));
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function copyLine(ws: string, e: WireEvent, now: string): string {
  const event = e as unknown as FeedbackEvent;
  const fp = contentFingerprint(event);
  const slot = voteSlot(event);
  const f = (v: unknown): string => (v === null || v === undefined ? '\\N' : String(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n'));
  return [ws, e.id, e.responseId, e.type, sourceOfType(event.type), e.userId, e.sessionId, null, JSON.stringify(e.payload),
    e.metadata === undefined ? null : JSON.stringify(e.metadata), null, (e.occurredAt as string | undefined) ?? now, now,
    fp === undefined ? null : createHash('sha1').update(fp).digest('base64url'),
    slot === undefined ? null : e.userId, slot ?? null].map(f).join('\t');
}

const COPY_COLUMNS = 'workspace_id, id, response_id, type, source, user_id, session_id, target_id, payload, metadata, edit_distance, occurred_at, received_at, content_hash, voter, vote_slot';

async function copyInto(url: string, table: string, body: Buffer): Promise<number> {
  return withClient(url, async (c) => {
    const t0 = performance.now();
    const stream = c.query(copyStreams.from(`COPY ${table} (${COPY_COLUMNS}) FROM STDIN`));
    const done = new Promise<void>((ok, ko) => { stream.on('finish', ok); stream.on('error', ko); });
    if (!stream.write(body)) await once(stream, 'drain');
    stream.end();
    await done;
    return performance.now() - t0;
  });
}

/** Runs the measurements and prints them. */
export async function runSchemaCost(): Promise<void> {
  const stored = envInt('SCHEMA_STORED', 100_000);
  const copyRows = envInt('SCHEMA_COPY', 50_000);
  const fresh = await createFreshDatabase();
  const db = await openPostgres(fresh.url);
  try {
    await migrate(db);
    const runId = token(4);
    const ws = `ws-${runId}`;
    const responses: ResponseRef[] = Array.from({ length: RESPONSES }, (_, i) => ({ id: `r-${runId}-${i}`, answer: `the answer number ${i} says refunds take thirty days to process` }));
    await db.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [ws]);
    await db.query(`INSERT INTO responses (workspace_id, id, query, answer, created_at) SELECT $1, id, 'q', a, now() - interval '1 minute' FROM unnest($2::text[], $3::text[]) AS x(id, a)`,
      [ws, responses.map((r) => r.id), responses.map((r) => r.answer)]);
    let g = 0;
    const t0 = performance.now();
    while (g < stored) {
      await writeFeedbackBatch(db, submissions(ws, g, 1_000, runId, responses));
      g += 1_000;
    }
    console.log(`seeded ${int(stored)} events by 1,000-event flushes: ${int(stored / ((performance.now() - t0) / 1000))} events/s`);
    await db.query('ANALYZE');

    for (const size of [1, 50, 1_000]) {
      const times: number[] = [];
      const rounds = size === 1 ? 200 : size === 50 ? 40 : 8;
      for (let i = 0; i < rounds; i++) {
        const batch = submissions(ws, g, size, runId, responses);
        g += size;
        const t = performance.now();
        await writeFeedbackBatch(db, batch);
        times.push(performance.now() - t);
      }
      const plans: string[] = [];
      await writeFeedbackBatch(explaining(db, plans), submissions(ws, g, size, runId, responses));
      g += size;
      console.log(`\n## flush of ${size}: median ${dec(median(times), 2)} ms (${int(size / (median(times) / 1000))} events/s), ${rounds} flushes`);
      console.log(plans.join('\n'));
    }

    // COPY: the same rows into tables alike but for their indexes, all empty, then the populated table.
    const now = new Date().toISOString();
    const lines: string[] = [];
    for (let i = 0; i < copyRows; i++) lines.push(copyLine(ws, makeEvent(10_000_000 + i, `c${runId}`, responses, now), now));
    const body = Buffer.from(`${lines.join('\n')}\n`);
    const indexes = (await db.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE tablename = 'feedback_events' AND indexname NOT LIKE '%pkey' AND schemaname = 'public'")).map((r) => r.indexname);
    const variants: Array<{ label: string; ddl: string[] }> = [
      { label: 'copy of feedback_events, all indexes', ddl: [] },
      ...indexes.map((ix) => ({ label: `  without ${ix}`, ddl: [ix] })),
      { label: 'lean: primary key only', ddl: indexes },
    ];
    const results: Array<{ label: string; ms: number }> = [];
    for (const v of variants) {
      const table = `scratch_${token(3)}`;
      await db.exec(`CREATE TABLE ${table} (LIKE feedback_events INCLUDING DEFAULTS INCLUDING IDENTITY); ALTER TABLE ${table} ADD PRIMARY KEY (workspace_id, id);`);
      const defs = await db.query<{ indexdef: string; indexname: string }>("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'feedback_events' AND indexname NOT LIKE '%pkey' AND schemaname = 'public'");
      for (const d of defs) if (!v.ddl.includes(d.indexname)) await db.exec(d.indexdef.replace(/INDEX \S+ ON (ONLY )?public\.feedback_events/, `INDEX ON ${table}`));
      const ms = await copyInto(fresh.url, table, body);
      results.push({ label: v.label, ms });
      await db.exec(`DROP TABLE ${table}`);
    }
    const base = results[0]?.ms ?? 1;
    console.log(`\n## COPY of ${int(copyRows)} rows (empty tables)`);
    for (const r of results) console.log(`${r.label.padEnd(52)} ${int(copyRows / (r.ms / 1000)).padStart(9)} rows/s  ${dec(r.ms / base)} of the full copy's time`);
    const populated = await copyInto(fresh.url, 'feedback_events', body);
    console.log(`into feedback_events itself (${int(g)} rows stored)        ${int(copyRows / (populated / 1000)).padStart(9)} rows/s`);
  } finally {
    await db.close();
    await fresh.drop();
  }
}

type Writer = typeof writeFeedbackBatch;

/** One side of the A/B: a fresh database migrated by a tree's migrations, written by its writer. */
async function side(migrationsDir: string | undefined, write: Writer, runId: string) {
  const fresh = await createFreshDatabase();
  const db = await openPostgres(fresh.url);
  await migrate(db, loadMigrations(migrationsDir));
  const ws = `ws-${runId}`;
  const responses: ResponseRef[] = Array.from({ length: RESPONSES }, (_, i) => ({ id: `r-${runId}-${i}`, answer: `the answer number ${i} says refunds take thirty days to process` }));
  await db.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [ws]);
  await db.query(`INSERT INTO responses (workspace_id, id, query, answer, created_at) SELECT $1, id, 'q', a, now() - interval '1 minute' FROM unnest($2::text[], $3::text[]) AS x(id, a)`,
    [ws, responses.map((r) => r.id), responses.map((r) => r.answer)]);
  let g = 0;
  return {
    /** Writes the next `n` events in one flush; returns its milliseconds. */
    async flush(n: number): Promise<number> {
      const batch = submissions(ws, g, n, runId, responses);
      g += n;
      const t = performance.now();
      await write(db, batch);
      return performance.now() - t;
    },
    async close() {
      await db.close();
      await fresh.drop();
    },
  };
}

/** Where a tree keeps the feedback writer, newest layout first (issue 25 moved it from ingest/ to store/). */
const WRITER_PATHS = ['packages/server/src/store/feedback-writer.ts', 'packages/server/src/ingest/feedback-writer.ts'];

/** The base tree's feedback writer: the first of {@link WRITER_PATHS} that it has. */
function baseWriterPath(baseDir: string): string {
  const found = WRITER_PATHS.map((p) => `${baseDir}/${p}`).find((p) => existsSync(p));
  if (!found) throw new Error(`SCHEMA_BASE_DIR ${baseDir} has no feedback writer (looked for ${WRITER_PATHS.join(', ')})`);
  return found;
}

/** The A/B run: the base tree's schema and writer against this tree's, alternating. */
export async function runSchemaAb(baseDir: string): Promise<void> {
  const stored = envInt('SCHEMA_STORED', 100_000);
  const base = (await import(baseWriterPath(baseDir))) as { writeFeedbackBatch: Writer };
  const runId = token(4);
  const a = await side(`${baseDir}/packages/server/migrations`, base.writeFeedbackBatch, runId);
  const b = await side(undefined, writeFeedbackBatch, runId);
  try {
    const seed = { a: 0, b: 0 };
    for (let g = 0; g < stored; g += 1_000) {
      seed.a += await a.flush(1_000);
      seed.b += await b.flush(1_000);
    }
    console.log(`seeding ${int(stored)} events by 1,000-event flushes: base ${int(stored / (seed.a / 1000))} events/s, new ${int(stored / (seed.b / 1000))} events/s, ratio ${dec(seed.a / seed.b)}`);
    for (const size of [1, 50, 1_000]) {
      const rounds = size === 1 ? 400 : size === 50 ? 80 : 16;
      const ta: number[] = [];
      const tb: number[] = [];
      for (let i = 0; i < rounds; i++) {
        ta.push(await a.flush(size));
        tb.push(await b.flush(size));
      }
      console.log(`flush of ${size}: base median ${dec(median(ta))} ms, new ${dec(median(tb))} ms, new/base ${dec(median(tb) / median(ta))} (${rounds} flushes each, alternating)`);
    }
  } finally {
    await a.close();
    await b.close();
  }
}

if (isMain(import.meta.url)) {
  if (process.env.SCHEMA_BASE_DIR) await runSchemaAb(process.env.SCHEMA_BASE_DIR);
  else await runSchemaCost();
}

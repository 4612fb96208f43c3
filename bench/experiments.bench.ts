/**
 * The experiment read on a big experiment: `EXPERIMENT_RESPONSES` responses (default 100,000) in
 * two variants, 60 % of them voted on, 10 % corrected, all scored, written straight into the
 * tables of schema 7 (plus as many responses outside any experiment), then migration 0008, whose
 * backfill fills the variant totals the pipeline keeps. Prints the backfill's time and p50/p95
 * of the store read and the analysis (what GET /v1/experiments/:id does), on Postgres and PGlite.
 *
 * `node --import tsx bench/experiments.bench.ts`
 */
import { analyzeExperiment, defaultExperimentDefinition } from '@feedloop/core';
import { loadMigrations, migrate } from '../packages/server/src/db/migrate.js';
import { openPglite } from '../packages/server/src/db/pglite-client.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import type { SqlClient } from '../packages/server/src/db/sql-client.js';
import { experimentTotals } from '../packages/server/src/store/experiment-totals.js';
import { createFreshDatabase } from './bench-database.js';
import { dec, envInt, int, isMain } from './bench-server.js';

const WS = 'ws_bench';
const RUNS = 15;

/** Writes the experiment: responses, their vote and correction events with signals, and scores. */
async function seed(db: SqlClient, n: number): Promise<void> {
  await db.query(`INSERT INTO workspaces (id, name) VALUES ($1, $1)`, [WS]);
  // Half again as many responses outside any experiment, so the index has something to skip.
  await db.query(
    `INSERT INTO responses (workspace_id, id, query, answer, experiment_id, variant, created_at)
     SELECT $1, 'r' || i, 'q', 'a', CASE WHEN i <= $2 THEN 'exp-big' END, CASE WHEN i <= $2 THEN (CASE WHEN i % 2 = 0 THEN 'control' ELSE 'B' END) END, now()
       FROM generate_series(1, $2 * 2) AS i`,
    [WS, n],
  );
  // Every 10th response gets a correction, 6 of every 10 a vote (two thirds of them up).
  await db.query(
    `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, payload, edit_distance, occurred_at, received_at)
     SELECT $1, 'e' || i, 'r' || i,
            CASE WHEN i % 10 = 0 THEN 'correction' WHEN i % 10 < 4 THEN 'thumbs_up' WHEN i % 10 < 7 THEN 'thumbs_down' ELSE 'thumbs_up' END,
            'explicit', '{}'::jsonb, CASE WHEN i % 10 = 0 THEN 20 END, now(), now()
       FROM generate_series(1, $2) AS i WHERE i % 10 IN (0, 1, 2, 3, 4, 5, 6)`,
    [WS, n],
  );
  await db.query(`INSERT INTO feedback_event_ids (workspace_id, id, received_at, seq) SELECT workspace_id, id, received_at, seq FROM feedback_events`);
  await db.query(
    `INSERT INTO feedback_signals (workspace_id, event_id, response_id, type, status, polarity, occurred_at)
     SELECT workspace_id, id, response_id, type, 'counted', CASE WHEN type = 'thumbs_up' THEN 'positive' ELSE 'negative' END, occurred_at
       FROM feedback_events`,
  );
  await db.query(
    `INSERT INTO response_scores (workspace_id, response_id, score, confidence, weight_sum, signal_count, computed_at)
     SELECT $1, 'r' || i, ((i % 7) - 3) / 3.0, 0.5, 1, 1, now() FROM generate_series(1, $2) AS i`,
    [WS, n],
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

async function measure(db: SqlClient): Promise<{ p50: number; p95: number; verdict: string }> {
  const times: number[] = [];
  let verdict = '';
  for (let i = 0; i < RUNS + 2; i++) {
    const start = performance.now();
    const totals = await experimentTotals(db, WS, 'exp-big');
    verdict = analyzeExperiment(totals.get('exp-big') ?? [], defaultExperimentDefinition()).verdict;
    if (i >= 2) times.push(performance.now() - start); // two warm-ups
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), verdict };
}

/** Schema 7, the seed, then migration 0008 (timed: its backfill). */
async function prepare(db: SqlClient, n: number): Promise<number> {
  await migrate(db, loadMigrations().filter((m) => m.version < 8));
  await seed(db, n);
  const start = performance.now();
  await migrate(db);
  const took = performance.now() - start;
  // As autovacuum would after a bulk load: statistics, and the visibility map the index-only count needs.
  await db.query('VACUUM ANALYZE');
  return took;
}

/** Runs the read on both stores and prints one line each. */
export async function runExperimentsBench(): Promise<void> {
  const n = envInt('EXPERIMENT_RESPONSES', 100_000);
  const fresh = await createFreshDatabase();
  try {
    const pgDb = await openPostgres(fresh.url);
    const backfill = await prepare(pgDb, n);
    const r = await measure(pgDb);
    console.log(`postgres: GET /v1/experiments/:id read over ${int(n)} responses: p50 ${dec(r.p50, 1)} ms, p95 ${dec(r.p95, 1)} ms (${r.verdict}); backfill ${dec(backfill / 1000, 1)} s`);
    await pgDb.close();
  } finally {
    await fresh.drop();
  }
  const lite = await openPglite(undefined);
  const backfill = await prepare(lite, n);
  const r = await measure(lite);
  console.log(`pglite:   GET /v1/experiments/:id read over ${int(n)} responses: p50 ${dec(r.p50, 1)} ms, p95 ${dec(r.p95, 1)} ms (${r.verdict}); backfill ${dec(backfill / 1000, 1)} s`);
  await lite.close();
}

if (isMain(import.meta.url)) await runExperimentsBench();
